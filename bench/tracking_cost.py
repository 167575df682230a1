#!/usr/bin/env python3
"""What a tracked GET costs the server beside an untracked one.

    bench/tracking_cost.py [--server build/lawnkv-server] [--requests 400000] [--rounds 3]

Starts the server on a free loopback port, stores 1,000 keys, then sends
GETs of them pipelined 16 deep on one connection: once plain, once from a
client with CLIENT TRACKING on (RESP3; the keys are remembered for it), in
alternating rounds. The server's CPU time (utime + stime from
/proc/<pid>/stat) over each round, divided by the requests, is the cost per
GET; the best round of each kind is kept (other work on the machine only
adds). Prints one line per kind and their ratio. Works with redis-server as
--server too.
"""
import argparse
import os
import socket
import subprocess
import sys
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def enc(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def call(self, *args):
        self.s.sendall(enc(*args))
        return self.s.recv(1 << 16)

    def run(self, batch, replies_end, count):
        """Sends batch count times, each time reading until the batch's replies are in."""
        for _ in range(count):
            self.s.sendall(batch)
            buf = b""
            while not buf.endswith(replies_end):
                buf += self.s.recv(1 << 20)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rfind(")") + 2:].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", default="build/lawnkv-server")
    p.add_argument("--requests", type=int, default=400000)
    p.add_argument("--rounds", type=int, default=3)
    o = p.parse_args()
    port = free_port()
    proc = subprocess.Popen([o.server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)  # waiting for the server to listen, not a measurement
        admin = Conn(port)
        for i in range(1000):
            admin.call("SET", f"key:{i}", "xxxxxxxxxx")
        depth = 16
        batches = []
        for b in range(1000 // depth):
            batches.append(b"".join(enc("GET", f"key:{b * depth + j}") for j in range(depth)))
        plain = Conn(port)
        tracked = Conn(port)
        tracked.call("HELLO", "3")
        assert tracked.call("CLIENT", "TRACKING", "on") == b"+OK\r\n"
        per_round = o.requests // depth
        best = {"untracked": None, "tracked": None}
        ticks_per_s = os.sysconf("SC_CLK_TCK")
        for _ in range(o.rounds):
            for name, conn in (("untracked", plain), ("tracked", tracked)):
                before = cpu_ticks(proc.pid)
                n = 0
                while n < per_round:
                    conn.run(batches[n % len(batches)], b"xxxxxxxxxx\r\n", 1)
                    n += 1
                used = (cpu_ticks(proc.pid) - before) / ticks_per_s
                ns = used * 1e9 / (per_round * depth)
                if best[name] is None or ns < best[name]:
                    best[name] = ns
        for name in ("untracked", "tracked"):
            print(f"{name}: {best[name]:.0f} ns of server CPU per GET (best of {o.rounds} rounds of {per_round * depth})")
        print(f"ratio tracked/untracked: {best['tracked'] / best['untracked']:.2f}")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    sys.exit(main())
