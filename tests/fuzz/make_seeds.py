#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/<harness>/)
from the compat case files (tests/compat/cases/*.txt) and redis.conf.example,
in each harness's input format (see the comment at the top of each harness).
Seeds it writes are named seed-*; other files in the corpus directories (crash
reproducers, hand-made inputs) are left alone. Run from anywhere:

    python3 tests/fuzz/make_seeds.py
"""
import hashlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests/compat/cases").glob("*.txt"))
CORPUS = ROOT / "tests/fuzz/corpus"


def split_args(line):
    """sdssplitargs, enough for the case files: quotes and \\xHH escapes."""
    args, i, n = [], 0, len(line)
    while True:
        while i < n and line[i] in " \t\r\n":
            i += 1
        if i >= n:
            return args
        cur, inq, insq = bytearray(), False, False
        while i < n:
            c = line[i]
            if inq:
                if c == "\\" and i + 3 < n and line[i + 1] == "x" and re.match(r"[0-9a-fA-F]{2}", line[i + 2:i + 4]):
                    cur.append(int(line[i + 2:i + 4], 16)); i += 3
                elif c == "\\" and i + 1 < n:
                    i += 1
                    cur += {"n": b"\n", "r": b"\r", "t": b"\t", "b": b"\b", "a": b"\a"}.get(line[i], line[i].encode())
                elif c == '"':
                    inq = False
                else:
                    cur += c.encode()
            elif insq:
                if c == "\\" and i + 1 < n and line[i + 1] == "'":
                    cur += b"'"; i += 1
                elif c == "'":
                    insq = False
                else:
                    cur += c.encode()
            elif c in " \t\r\n":
                break
            elif c == '"':
                inq = True
            elif c == "'":
                insq = True
            else:
                cur += c.encode()
            i += 1
        if inq or insq:
            return None
        args.append(bytes(cur))


def case_commands(path):
    """(client, argv) for each command line of a case file; @raw lines as bytes."""
    client, out, raws = 0, [], []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@client "):
            client = int(line.split()[1]) % 3
            continue
        if line.startswith("@"):
            word, _, rest = line.partition(" ")
            if word == "@closes" and rest.startswith("@raw"):
                word, _, rest = rest.partition(" ")
            if word == "@raw":
                raw = split_args(rest)
                if raw:
                    raws.append(raw[0])
                continue
            line = rest
            if not line:
                continue
        argv = split_args(line)
        if argv:
            out.append((client, argv))
    return out, raws


def resp(argv):
    return b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv)


def write(harness, data):
    d = CORPUS / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


def chunks(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def command_op(client, argv):
    """One command of command_fuzz: op byte, raw name, argc, raw args."""
    if any(len(a) > 63 for a in argv) or len(argv) > 16:
        return b""
    out = bytes([0x21 + client])  # 0x21 % 3 == 0
    out += bytes([0xc0 + len(argv[0])]) + argv[0]
    out += bytes([len(argv) - 1])
    for a in argv[1:]:
        out += bytes([0xc0 + len(a)]) + a
    return out


# Hand-made command_fuzz scenarios around the properties it checks: one
# command per line ("N: cmd args" runs it from client N, default 0), or a
# clock step: "+N" (ms, then a full reap), "-N" (back), "+N reap B" (reap
# at most B keys, B <= 4), "+N noreap". "{now+N}" is the current time in ms
# plus N; the clock starts at kT0 (command_fixture.hpp).
SCENARIOS = {
    # What the fuzzer found, written with raw names so that new commands or
    # tokens (which shift the indices a fuzzer input uses) keep them replaying.
    "regress-expiretime-overflow": """
        SET k v
        PEXPIREAT k 9223372036854775807
        EXPIRETIME k
        TTL k
    """,
    # Scripts: writes and reads, frozen time, errors, inside MULTI, waking a
    # blocked client, loops stopped past busy-reply-threshold (written or
    # not), a function library.
    "scripts": """
        SET k1 5
        EVAL "return redis.call('incr', KEYS[1])" 1 k1
        EVAL "redis.call('set','k2',1,'px',1) return redis.call('get','k2')" 0
        +10
        GET k2
        1: EVAL "return redis.pcall('lpush', KEYS[1], 'x')" 1 k1
        1: EVAL "return redis.call('lpush', KEYS[1], 'x')" 1 k1
        EVAL "return {1, 'two', {3, false}, {err = 'x'}, 2.5}" 0
        MULTI
        EVAL "return redis.call('del', KEYS[1])" 1 k1
        EXEC
        2: BLPOP q 0
        EVAL "redis.call('rpush', KEYS[1], 'a') return 1" 1 q
        EVAL_RO "return redis.call('set', KEYS[1], 1)" 1 k5
        EVAL "while true do end" 0
        EVAL "redis.call('set', 'k3', 1) while true do end" 0
        SCRIPT KILL
        FUNCTION LOAD "#!lua name=f\\nredis.register_function('f',function()end)"
        FCALL f 0
    """,
    "expiry-boundary": """
        SET a v PX 100
        SET b v PX 100
        PSETEX c 101 v
        SET d v PXAT {now+100}
        +100
        PTTL a
        GET d
        +1
        GET a
        +1
        EXISTS c
    """,
    "regress-bpoll-timeout-overflow": """
        1: REDE.BPOLL q 9.3e18
        1: REDE.BPOLL q 9223372036854000
        REDE.PUSH q 5 el id1
        +6
    """,
    # A TTL turns hot (a Lawn queue) and FLUSHALL leaves its queue chunk.
    "flushall-hot-ttl": """
        SET a v EX 100
        SET b v EX 100
        SET c v EX 100
        SET d v EX 100
        SET e v EX 100
        EXPIRE a 100
        FLUSHALL
        SET a v EX 100
        FLUSHALL
    """,
    "lazy-boundary": """
        SET a v PX 50
        +50 noreap
        GET a
        +1 noreap
        GET a
        TTL b
    """,
    "partial-reaps": """
        MSET a 1 b 2 c 3 d 4 e 5 f 6
        PEXPIRE a 10
        PEXPIRE b 10
        PEXPIRE c 10
        PEXPIRE d 11
        PEXPIRE e 12
        PEXPIREAT f {now+10}
        +11 reap 1
        +0 reap 2
        DBSIZE
        +1 reap 4
        +100
        DBSIZE
    """,
    "clock-back": """
        SET a v PX 1000
        SET b v PX 1000
        +900
        -800
        SET c v PX 1000
        EXPIRE a 1 GT
        +1500
        KEYS *
    """,
    "flushall-ttls": """
        SET a v EX 100
        SET b 012345678901234567890123456789012345678901234567890123456789 PX 5
        SET c v
        REDE.PUSH q 10 el id1
        SELECT 2
        SET d v EX 10
        1: SET e v PX 1
        +2 noreap
        FLUSHALL
        SET a v EX 5
        FLUSHALL ASYNC
    """,
    "transactions": """
        SET k v PX 100
        WATCH k
        MULTI
        SET k v2 PXAT {now-1}
        GET k
        PTTL k
        EXEC
        1: WATCH k
        1: MULTI
        1: GET k
        +200
        1: EXEC
    """,
    "moves": """
        SET a v PX 100
        SET b v EX 100
        MOVE a 1
        SWAPDB 0 1
        RENAME a c
        COPY c d DB 2
        SELECT 2
        PTTL d
        +101
        DBSIZE
    """,
    "blocking": """
        1: REDE.BPOLL q 0.05
        2: REDE.BPOLL q 0
        REDE.PUSH q 20 el id1
        REDE.PUSH q 10 x id2
        +11
        +10
        +50
        REDE.PUSH q 5 y id3
        2: REDE.BPOLL q 1 COUNT 1
        +6
        1: QUIT
        CLIENT KILL TYPE normal
    """,
    # Blocked stream readers served from the key that woke them, a group
    # destroyed and a key deleted or overwritten under them, claims and
    # trims of pending entries, a stream with groups renamed and expired.
    "streams-blocking": """
        XGROUP CREATE s g $ MKSTREAM
        XGROUP CREATE t g $ MKSTREAM
        1: XREADGROUP GROUP g c1 BLOCK 0 STREAMS s t > >
        2: XREAD BLOCK 100 STREAMS s t $ $
        MULTI
        XADD t 1-1 f v
        XADD s 1-1 f v
        EXEC
        1: XREADGROUP GROUP g c1 BLOCK 0 STREAMS s >
        2: XREADGROUP GROUP g c2 BLOCK 0 STREAMS t >
        XGROUP DESTROY s g
        SET t x
        +101
        XADD s MAXLEN 1 2-0 a b
        XCLAIM s g c3 0 1-1 FORCE
        XAUTOCLAIM t g c1 0 0
        PEXPIRE s 50
        RENAME s u
        +60
        XINFO STREAM u FULL
    """,
    "streams-groups": """
        XADD s 1-1 f v
        XADD s 1-2 f v g h
        XADD s 2-0 f v
        XGROUP CREATE s g 0
        XREADGROUP GROUP g c1 COUNT 2 STREAMS s >
        XREADGROUP GROUP g c2 NOACK STREAMS s >
        XCLAIM s g c2 0 1-1 1-2 IDLE 5 RETRYCOUNT 3 JUSTID
        XDEL s 1-1
        XAUTOCLAIM s g c1 0 0 COUNT 1
        XPENDING s g - + 10 c2
        XTRIM s MINID = 2-0
        XREADGROUP GROUP g c2 STREAMS s 0
        XGROUP DELCONSUMER s g c2
        XSETID s 5-0 ENTRIESADDED 10 MAXDELETEDID 3-0
        XINFO GROUPS s
        COPY s s2
        XACK s2 g 1-2 2-0
        DEBUG RELOAD
        XINFO STREAM s2 FULL
    """,
}


def scenario_ops(text):
    now, out = 1_700_000_000_000, b""
    for line in text.strip().splitlines():
        line = line.strip()
        m = re.fullmatch(r"([+-])(\d+)(?: (reap) (\d)| (noreap))?", line)
        if m:
            v = int(m.group(2))
            if m.group(1) == "-":
                out += bytes([2, v & 0xff, v >> 8]); now -= v % 1000
            elif m.group(3):
                out += bytes([6 + 8 * (int(m.group(4)) - 1), v & 0xff, v >> 8]); now += v
            elif m.group(5):
                out += bytes([7, v & 0xff, v >> 8]); now += v
            else:
                out += bytes([0, v & 0xff, v >> 8]); now += v
            continue
        client = 0
        m = re.fullmatch(r"(\d): (.*)", line)
        if m:
            client, line = int(m.group(1)), m.group(2)
        line = re.sub(r"\{now([+-]\d+)\}", lambda g: str(now + int(g.group(1))), line)
        op = command_op(client, split_args(line))
        assert op, line
        out += op
    return out


def main():
    for old in CORPUS.glob("*/seed-*"):
        old.unlink()
    for path in CASES:
        cmds, raws = case_commands(path)
        # resp_parser: requests as RESP and inline, whole streams of 20.
        for group in chunks(cmds, 20):
            write("resp_parser", b"\x00\x04" + b"".join(resp(a) for _, a in group))
            write("resp_parser", b"\x09\x07" + b"".join(b" ".join(a) + b"\r\n" for _, a in group
                                                       if all(re.fullmatch(rb"[!-~]+", x) for x in a)))
        for raw in raws:
            write("resp_parser", b"\x01\x03" + raw)
            write("resp_parser", b"\x02\x03" + raw)
        # command: 30 commands per seed, a time step of 1 s after every 5th.
        for group in chunks(cmds, 30):
            ops = b""
            for i, (client, argv) in enumerate(group):
                ops += command_op(client, argv)
                if i % 5 == 4:
                    ops += b"\x01\x01\x00"
            write("command", ops)
    for name, text in SCENARIOS.items():
        (CORPUS / "command").mkdir(parents=True, exist_ok=True)
        (CORPUS / "command" / ("seed-" + name)).write_bytes(scenario_ops(text))
    # config: the example file, and CONFIG SET pairs.
    write("config", b"\x00" + (ROOT / "redis.conf.example").read_bytes())
    write("config", b"\x00save 900 1\nsave \"\"\nclient-output-buffer-limit pubsub 32mb 8mb 60\nbind 127.0.0.1 -::1\n"
                    b"notify-keyspace-events KEA\nmaxmemory 1gb\n")
    for pairs in ([b"notify-keyspace-events", b"Ex"], [b"maxmemory", b"100mb", b"hz", b"50"],
                  [b"save", b"3600 1 300 100"], [b"client-output-buffer-limit", b"normal 0 0 0 pubsub 1mb 1kb 5"],
                  [b"timeout", b"-1"], [b"maxmemory-policy", b"allkeys-lru", b"maxmemory-policy", b"noeviction"],
                  [b"\x05", b"yes", b"\x30", b"10"]):
        write("config", b"\x01" + b"\x00".join(pairs))


if __name__ == "__main__":
    main()
