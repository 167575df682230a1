# Other clients' latency with many clients blocked in BLPOP, against one
# server: python3 blocked_latency.py PORT [BLOCKED=10000] [N=200000]
# redis-benchmark -P 1 -c 50 GET (--csv: ops/s, p50, p99) with none blocked,
# with BLOCKED clients blocked each on its own key (BLPOP bq:<i> 0, counted
# by INFO blocked_clients), and with none again after they disconnect.
# The server needs maxclients above BLOCKED + 50.
import socket, subprocess, sys, time
port = int(sys.argv[1])
blocked = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200000
def cli(*args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args], capture_output=True, text=True).stdout
def blocked_now():
    for line in cli("info", "clients").splitlines():
        if line.startswith("blocked_clients:"): return int(line.split(":")[1])
def bench(label):
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-P", "1", "-c", "50", "-n", str(n), "-t", "get", "--csv"],
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    f = [x.strip('"') for x in out.split(",")]
    print(f"{label:28s} {float(f[1]):10.0f} ops/s  p50 {f[4]} ms  p99 {f[6]} ms  (blocked_clients {blocked_now()})", flush=True)
bench("none blocked")
socks = []
for i in range(blocked):
    s = socket.create_connection(("127.0.0.1", port))
    key = f"bq:{i}".encode()
    s.sendall(b"*3\r\n$5\r\nBLPOP\r\n$%d\r\n%s\r\n$1\r\n0\r\n" % (len(key), key))
    socks.append(s)
while blocked_now() != blocked: time.sleep(0.05)
bench(f"{blocked} blocked")
bench(f"{blocked} blocked (again)")
for s in socks: s.close()
while blocked_now() != 0: time.sleep(0.05)
bench("none blocked (after)")
