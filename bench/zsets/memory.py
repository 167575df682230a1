# Memory of small (listpack-encoded) sorted sets, lawnkv against redis-server:
#
#   python3 bench/zsets/memory.py REDIS_PORT LAWNKV_PORT [SHAPE...]
#
# For each shape: FLUSHALL, INFO used_memory, load the keys through
# `redis-cli --pipe` (ZADDs of up to 100 score/member pairs), INFO
# used_memory again; prints the delta per member (keys included), MEMORY
# USAGE and OBJECT ENCODING of the first key, and whether ZRANGE 0 -1
# WITHSCORES of that key is the same text on both servers (the scores came
# back exactly as Redis keeps them). Members are `member:000000000`
# (16 bytes); scores as each shape says, written with Python's repr (the
# shortest text that reads back as the same double). A fixed seed: both
# servers get the same commands.
import random, subprocess, sys, time


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args],
                          capture_output=True, text=True).stdout.strip()


def used(port):
    for line in cli(port, "info", "memory").splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])


# shape name -> (keys, members a key, score of member i of key k, members in random order?)
TS0 = 1_700_000_000_000  # a Unix time in ms (November 2023)
SHAPES = {
    # The shape of the first measurement (bench/results/zsets-notes.md).
    "1.5*i": (1000, 128, lambda r, k, i: i * 1.5, False),
    # Timestamps in ms, a few seconds apart, added in time order.
    "ts-ms": (1000, 128, lambda r, k, i: float(TS0 + i * 1000 + r.randrange(1000)), False),
    # Counters: small non-negative integers, random order.
    "counter": (1000, 128, lambda r, k, i: float(r.randrange(1000)), True),
    # Larger integers, both signs (an id, a delta).
    "int-signed": (1000, 128, lambda r, k, i: float(r.randrange(-10**9, 10**9)), True),
    # Prices with two decimals, random order.
    "decimal-2": (1000, 128, lambda r, k, i: r.randrange(100000) / 100, True),
    # Uniform doubles (all 53 bits used), random order.
    "random": (1000, 128, lambda r, k, i: r.random() * 1e6, True),
    # Few members a key: the per-key part weighs more.
    "1.5*i x10": (20000, 10, lambda r, k, i: i * 1.5, False),
    "counter x10": (20000, 10, lambda r, k, i: float(r.randrange(1000)), True),
}


def commands(shape):
    keys, n, score, shuffled = SHAPES[shape]
    r = random.Random(1)
    cmds = []
    for k in range(keys):
        order = list(range(n))
        if shuffled:
            r.shuffle(order)
        for j in range(0, n, 100):
            args = ["ZADD", f"zk{k}"]
            for i in order[j:j + 100]:
                args += [repr(score(r, k, i)), f"member:{i:09d}"]
            cmds.append(resp(*args))
    return b"".join(cmds), keys * n


def measure(port, payload):
    cli(port, "flushall")
    time.sleep(0.3)
    before = used(port)
    p = subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=payload, capture_output=True)
    if b"errors: 0" not in p.stdout:
        print(p.stdout, p.stderr)
    time.sleep(0.3)
    return used(port) - before


def main():
    rport, lport = int(sys.argv[1]), int(sys.argv[2])
    shapes = sys.argv[3:] or list(SHAPES)
    print("| shape | keys x members | lawnkv B/member | Redis B/member | lawnkv / Redis "
          "| MEMORY USAGE zk0 lawnkv / Redis | encoding | same ZRANGE |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in shapes:
        payload, total = commands(shape)
        res = {}
        for name, port in (("redis", rport), ("lawnkv", lport)):
            delta = measure(port, payload)
            res[name] = (delta / total, cli(port, "memory", "usage", "zk0", "samples", "0"),
                         cli(port, "object", "encoding", "zk0"),
                         cli(port, "zrange", "zk0", "0", "-1", "withscores"))
        keys, n = SHAPES[shape][:2]
        lw, rd = res["lawnkv"], res["redis"]
        print(f"| {shape} | {keys} x {n} | {lw[0]:.1f} | {rd[0]:.1f} | {lw[0] / rd[0]:.2f} "
              f"| {lw[1]} / {rd[1]} | {lw[2]} / {rd[2]} | {'yes' if lw[3] == rd[3] else 'NO'} |", flush=True)
    for port in (rport, lport):
        cli(port, "flushall")


if __name__ == "__main__":
    main()
