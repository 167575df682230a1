#!/usr/bin/env bash
# Lists: lawnkv against redis-server, side by side in one run.
#
#   bench/lists/run.sh           (LAWNKV_SERVER=build/lawnkv-server, ROUNDS=3, N=1000000)
#
# Throughput: redis-benchmark -P 16 -t lpush,rpop,lrange_100 (the tool's own
# tests: LPUSH and RPOP of a 3-byte value on one list; LRANGE 0 99 of a
# list the tool fills first), each server in turn per round; ops/s and the
# server's CPU time per request (utime + stime from /proc/PID/stat).
# Memory: bench/lists/memory.py (INFO used_memory delta and MEMORY USAGE for
# 10-element lists and a 1,000,000-element list of 16-byte values).
# Servers listen on free loopback ports, without persistence, and are
# stopped by PID when the script exits.
set -euo pipefail
cd "$(dirname "$0")/../.."
LAWNKV=${LAWNKV_SERVER:-build/lawnkv-server}
ROUNDS=${ROUNDS:-3}
N=${N:-1000000}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
LP=$(free_port); RP=$(free_port)
"$LAWNKV" --port "$LP" --save '' --appendonly no >/dev/null 2>&1 & LPID=$!
redis-server --port "$RP" --save '' --appendonly no >/dev/null 2>&1 & RPID=$!
trap 'kill $LPID $RPID 2>/dev/null || true' EXIT
sleep 0.5
TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for srv in redis lawnkv; do
    if [ "$srv" = redis ]; then port=$RP pid=$RPID; else port=$LP pid=$LPID; fi
    redis-cli -p "$port" flushall >/dev/null
    for t in lpush rpop lrange_100; do
      c0=$(cpu "$pid")
      out=$(redis-benchmark -p "$port" -P 16 -n "$N" -t "$t" -q 2>/dev/null | tr '\r' '\n' | grep "requests per second" | tail -1)
      c1=$(cpu "$pid")
      # lrange_100 also runs the tool's LPUSH fill (N requests) first: its CPU is counted too.
      printf 'r%s %-7s %-18s %s  cpu %s us/req\n' "$round" "$srv" "$t" "$out" \
        "$(echo "scale=3; ($c1-$c0)*1000000/$TCK/$N" | bc -l)"
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/lists/memory.py "$RP" "$LP"
