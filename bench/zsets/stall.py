# Does growing one sorted set stall the other clients? A probe client sends
# GET in a loop, one at a time, and records each round trip while another
# client grows one sorted set to MEMBERS members (default 4,000,000) by
# ZADD, BATCH members a command, sent with redis-cli --pipe (pipelined: the
# server always has the next batches waiting). A hash table that rebuilds
# itself at once when it doubles holds the loop for the whole move (every
# member rehashed) at 2M, 1M, 512k... members; one that moves a few chains
# per ZADD spreads that over the next commands, so the probe's worst round
# trip is then about one batch's work.
#
#   python3 bench/zsets/stall.py [NAME=BINARY ...]   (redis-server runs as "redis")
#   e.g. python3 bench/zsets/stall.py old=/work/main/build/lawnkv-server new=build/lawnkv-server
#
# Environment: MEMBERS=4000000 BATCH=1000 ROUNDS=1. Each server is started
# on a free loopback port without persistence, run alone (one at a time,
# stopped by PID after its run). Prints per server and round: the time to
# load, the probe's GET count, median, p99, p99.9 and max round trip, and
# how many round trips took over 10 ms and over 50 ms, and the server's CPU
# time for the load (utime + stime, /proc/PID/stat). On a busy machine
# the probe's figures include the time it waited for a core; the server's
# own view is its SLOWLOG (slowlog-log-slower-than SLOW_US, default 10000):
# how many commands took longer, and the longest, in microseconds.
import multiprocessing as mp
import os
import socket
import subprocess
import sys
import tempfile
import time

MEMBERS = int(os.environ.get("MEMBERS", 4_000_000))
BATCH = int(os.environ.get("BATCH", 1000))
ROUNDS = int(os.environ.get("ROUNDS", 1))
SLOW_US = int(os.environ.get("SLOW_US", 10000))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def write_load(path):
    """ZADD big <score> <member> ... in commands of BATCH members."""
    with open(path, "wb") as f:
        for start in range(0, MEMBERS, BATCH):
            args = [b"ZADD", b"big"]
            for i in range(start, min(start + BATCH, MEMBERS)):
                args += [b"%d" % i, b"member:%08d" % i]
            f.write(resp(*args))


def read_reply(sock, buf):
    # A GET reply: "$-1\r\n" or "$<n>\r\n<bytes>\r\n"; the probe key holds "v".
    while b"\r\n" not in buf:
        buf += sock.recv(65536)
    head, _, rest = buf.partition(b"\r\n")
    n = int(head[1:])
    need = 0 if n < 0 else n + 2
    while len(rest) < need:
        rest += sock.recv(65536)
    return rest[need:]


def read_value(f):
    """One RESP2 value from a buffered socket file."""
    line = f.readline()[:-2]
    kind, rest = line[:1], line[1:]
    if kind == b"*":
        return [read_value(f) for _ in range(int(rest))]
    if kind == b"$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2]
    if kind == b":":
        return int(rest)
    return rest


def slowlog(port):
    """The durations (us) of the commands SLOWLOG holds."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(resp("SLOWLOG", "GET", "100000"))
        entries = read_value(sock.makefile("rb"))
    return sorted(e[2] for e in entries)


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def probe(port, stop, result):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    req = resp("GET", "probe")
    times = []
    buf = b""
    while not stop.is_set():
        t0 = time.perf_counter()
        sock.sendall(req)
        buf = read_reply(sock, buf)
        times.append(time.perf_counter() - t0)
    sock.close()
    result.put(times)


def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + [str(a) for a in args], capture_output=True,
                          text=True).stdout.strip()


def wait_ready(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"no server on port {port}")


def run_one(name, binary, load_path, rnd):
    port = free_port()
    srv = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(port)
        cli(port, "SET", "probe", "v")
        cli(port, "CONFIG", "SET", "slowlog-max-len", "100000")
        cli(port, "CONFIG", "SET", "slowlog-log-slower-than", SLOW_US)
        stop, result = mp.Event(), mp.Queue()
        p = mp.Process(target=probe, args=(port, stop, result))
        p.start()
        time.sleep(0.5)  # the probe is connected and looping
        t0, c0 = time.perf_counter(), cpu_s(srv.pid)
        with open(load_path, "rb") as f:
            subprocess.run(["redis-cli", "-p", str(port), "--pipe"], stdin=f, stdout=subprocess.DEVNULL, check=True)
        load_s, load_cpu = time.perf_counter() - t0, cpu_s(srv.pid) - c0
        stop.set()
        times = sorted(result.get())
        p.join()
        card = cli(port, "ZCARD", "big")
        enc = cli(port, "OBJECT", "ENCODING", "big")
        slow = slowlog(port)
    finally:
        srv.terminate()
        srv.wait()
    ms = [t * 1000 for t in times]

    def pct(q):
        return ms[min(len(ms) - 1, int(q * len(ms)))]

    print(f"r{rnd} {name:8s} zcard {card} ({enc}) load {load_s:6.2f} s (cpu {load_cpu:5.2f} s)  GETs {len(ms):7d}  "
          f"p50 {pct(0.5):6.3f} ms  p99 {pct(0.99):7.3f} ms  p99.9 {pct(0.999):7.3f} ms  max {ms[-1]:8.3f} ms  "
          f">10ms {sum(t > 10 for t in ms):4d}  >50ms {sum(t > 50 for t in ms):3d}  |  "
          f"slowlog >{SLOW_US} us: {len(slow):3d}, longest {slow[-1] if slow else 0:7d} us", flush=True)


def main():
    servers = [("redis", "redis-server")]
    for arg in sys.argv[1:]:
        name, _, binary = arg.partition("=")
        servers.append((name, binary))
    print(f"members {MEMBERS}, batch {BATCH}, load average {open('/proc/loadavg').read().split()[:3]}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        load_path = os.path.join(tmp, "load.resp")
        write_load(load_path)
        for rnd in range(1, ROUNDS + 1):
            for name, binary in servers:
                run_one(name, binary, load_path, rnd)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}", flush=True)


if __name__ == "__main__":
    main()
