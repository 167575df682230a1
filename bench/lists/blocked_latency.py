# Other clients' latency with many clients blocked in BLPOP, against one
# server: python3 blocked_latency.py PORT PID [BLOCKED=10000] [N=200000]
# redis-benchmark -P 1 -c 50 GET (--csv: ops/s, p50, p99), and the server's
# CPU time per GET (utime + stime of PID, /proc/PID/stat, around the run: a
# cost per blocked client per loop iteration would show here, where the
# machine's load moves ops/s and p99 more), with none blocked,
# with BLOCKED clients blocked each on its own key (BLPOP bq:<i> 0, counted
# by INFO blocked_clients), and with none again after they disconnect.
# The server needs maxclients above BLOCKED + 50.
import os, socket, subprocess, sys, time
port = int(sys.argv[1])
pid = int(sys.argv[2])
blocked = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
n = int(sys.argv[4]) if len(sys.argv) > 4 else 200000
def cpu_s():
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
def cli(*args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args], capture_output=True, text=True).stdout
def blocked_now():
    for line in cli("info", "clients").splitlines():
        if line.startswith("blocked_clients:"): return int(line.split(":")[1])
def bench(label):
    t0 = cpu_s()
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-P", "1", "-c", "50", "-n", str(n), "-t", "get", "--csv"],
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    cpu_us = (cpu_s() - t0) * 1e6 / n
    f = [x.strip('"') for x in out.split(",")]
    print(f"{label:28s} {float(f[1]):10.0f} ops/s  p50 {f[4]} ms  p99 {f[6]} ms  server CPU {cpu_us:.2f} us/GET"
          f"  (blocked_clients {blocked_now()})", flush=True)
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
