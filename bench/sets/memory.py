# Memory of sets, lawnkv against redis-server: python3 memory.py REDIS_PORT LAWNKV_PORT
# For each shape, FLUSHALL, INFO used_memory, SADD the sets through
# redis-cli --pipe, INFO used_memory again; the delta per member (keys
# included) and MEMORY USAGE of one key. The 10,000-member intsets need
# set-max-intset-entries 10000 (set, then restored to 512, on both).
import sys, subprocess, time
def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out
def pipe(port, cmds):
    data = b"".join(cmds)
    p = subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, capture_output=True)
    if b"errors: 0" not in p.stdout: print(p.stdout, p.stderr)
def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args], capture_output=True, text=True).stdout.strip()
def used(port):
    for line in cli(port, "info", "memory").splitlines():
        if line.startswith("used_memory:"): return int(line.split(":")[1])
scenarios = {
  "10-member string sets (10-byte members), 10,000 keys": (10000, lambda k: [f"m{i:09d}" for i in range(10)]),
  "10-member intsets (0..9), 10,000 keys": (10000, lambda k: list(range(10))),
  "10,000-member string set (10-byte members), 1 key x 20": (20, lambda k: [f"m{i:09d}" for i in range(10000)]),
  "10,000-member intset (0..9999, 2-byte), 1 key x 20": (20, lambda k: list(range(10000))),
  "10,000-member intset (100000.., 4-byte), 1 key x 20": (20, lambda k: list(range(100000, 110000))),
}
for name, port in (("redis", int(sys.argv[1])), ("lawnkv", int(sys.argv[2]))):
    cli(port, "config", "set", "set-max-intset-entries", "512")
    for title, (keys, members) in scenarios.items():
        cli(port, "flushall")
        if "intset" in title and "10,000" in title:
            cli(port, "config", "set", "set-max-intset-entries", "10000")
        time.sleep(0.2)
        before = used(port)
        cmds = []
        for k in range(keys):
            ms = members(k)
            for j in range(0, len(ms), 1000):
                cmds.append(resp("SADD", f"key:{k:06d}", *ms[j:j+1000]))
        pipe(port, cmds)
        time.sleep(0.2)
        after = used(port)
        n = keys * len(members(0))
        usage = cli(port, "memory", "usage", "key:000000")
        enc = cli(port, "object", "encoding", "key:000000")
        print(f"{name:7s} {title}: used_memory +{after-before} B, {(after-before)/n:.1f} B/member (incl. keys); MEMORY USAGE key:000000 = {usage} ({int(usage)/len(members(0)):.1f} B/member), {enc}")
        cli(port, "config", "set", "set-max-intset-entries", "512")
