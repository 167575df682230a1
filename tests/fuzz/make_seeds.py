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
