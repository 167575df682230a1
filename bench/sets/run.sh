#!/usr/bin/env bash
# Sets: lawnkv against redis-server, side by side in one run.
#
#   bench/sets/run.sh            (LAWNKV_SERVER=build/lawnkv-server, ROUNDS=3, N=1000000)
#
# Throughput: redis-benchmark -P 16 with -t sadd,spop (one member, as the
# tool sends it), SISMEMBER on a ~95k-member set, and SADD / SPOP with
# -r 1000000 (random members); each server in turn per round; ops/s and
# the server's CPU time per request (utime + stime from /proc/PID/stat).
# Memory: bench/sets/memory.py (INFO used_memory delta and MEMORY USAGE
# for 10-member and 10,000-member sets and intsets).
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
run() {  # label pid port requests benchmark-args...
  local label=$1 pid=$2 port=$3 n=$4; shift 4
  local c0 c1 out
  c0=$(cpu "$pid")
  out=$(redis-benchmark -p "$port" -P 16 -n "$n" -q "$@" 2>/dev/null | tr '\r' '\n' | grep "requests per second" | tail -1)
  c1=$(cpu "$pid")
  printf '%-28s %10s ops/s  %s us/req\n' "$label" "$(echo "$out" | sed -E 's/.*: ([0-9.]+) requests per second.*/\1/')" \
    "$(echo "scale=3; ($c1-$c0)*1000000/$TCK/$n" | bc -l)"
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for srv in redis lawnkv; do
    if [ "$srv" = redis ]; then port=$RP pid=$RPID; else port=$LP pid=$LPID; fi
    redis-cli -p "$port" flushall >/dev/null
    run "r$round $srv SADD" "$pid" "$port" "$N" -t sadd
    run "r$round $srv SPOP" "$pid" "$port" "$N" -t spop
    redis-cli -p "$port" flushall >/dev/null
    redis-benchmark -p "$port" -r 100000 -n 400000 -P 16 -q SADD myset element:__rand_int__ >/dev/null 2>&1
    run "r$round $srv SISMEMBER" "$pid" "$port" "$N" -r 200000 SISMEMBER myset element:__rand_int__
    redis-cli -p "$port" flushall >/dev/null
    run "r$round $srv SADD -r 1000000" "$pid" "$port" "$N" -r 1000000 -t sadd
    run "r$round $srv SPOP (that set)" "$pid" "$port" "$N" -t spop
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/sets/memory.py "$RP" "$LP"
