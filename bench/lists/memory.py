# Memory of lists, lawnkv against redis-server: python3 memory.py REDIS_PORT LAWNKV_PORT
# For each shape, FLUSHALL, INFO used_memory, RPUSH the lists through
# redis-cli --pipe, INFO used_memory again; the delta per element (keys
# included) and MEMORY USAGE of one key. Elements are 16 bytes, or 14 to 18
# bytes (average 16) in the "mixed" shapes.
import sys, subprocess, time
def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out
def pipe(port, cmds):
    p = subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=b"".join(cmds), capture_output=True)
    if b"errors: 0" not in p.stdout: print(p.stdout, p.stderr)
def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args], capture_output=True, text=True).stdout.strip()
def used(port):
    for line in cli(port, "info", "memory").splitlines():
        if line.startswith("used_memory:"): return int(line.split(":")[1])
def value(k, i): return f"v{k:07d}:{i:07d}"  # 16 bytes
def mixed(k, i): return (value(k, i) + "xy")[: 14 + i % 5]  # 14..18 bytes
scenarios = {
  "10-element lists, 100,000 keys": (100000, 10, value),
  "1,000,000-element list, 1 key": (1, 1000000, value),
  "mixed 10-element lists, 100,000 keys": (100000, 10, mixed),
  "mixed 1,000,000-element list, 1 key": (1, 1000000, mixed),
}
for name, port in (("redis", int(sys.argv[1])), ("lawnkv", int(sys.argv[2]))):
    for title, (keys, n, value_of) in scenarios.items():
        cli(port, "flushall")
        time.sleep(0.3)
        before = used(port)
        cmds = []
        for k in range(keys):
            for j in range(0, n, 1000):
                cmds.append(resp("RPUSH", f"key:{k:06d}", *[value_of(k, i) for i in range(j, min(n, j + 1000))]))
        pipe(port, cmds)
        time.sleep(0.3)
        after = used(port)
        total = keys * n
        usage = cli(port, "memory", "usage", "key:000000", "samples", "0")
        print(f"{name:7s} {title}: used_memory +{after-before} B, {(after-before)/total:.2f} B/element (incl. keys); "
              f"MEMORY USAGE key:000000 = {usage} ({int(usage)/n:.2f} B/element)")
    cli(port, "flushall")
