#!/usr/bin/env bash
# Sorted sets: lawnkv (and optionally a second lawnkv build) against
# redis-server, side by side, in alternation round by round.
#
#   bench/zsets/run.sh    (LAWNKV_SERVER=build/lawnkv-server, BASE_SERVER= a
#                          second lawnkv binary to compare, ROUNDS=3, N=500000)
#
# Throughput, redis-benchmark -P 16: requests per second and the server's
# CPU time per request (utime + stime from /proc/PID/stat, steadier than
# the rate on a busy machine), each test on every server in turn, then the
# next test:
#   zadd        -t zadd -r 100000 (fills `myzset`, about 100,000 members: skiplist)
#   zrange-big  ZRANGEBYSCORE myzset 0 +inf LIMIT 0 10
#   then `lp` is loaded with 128 members (member:000000000.., scores 1.5*i: listpack):
#   zrange-lp   ZRANGEBYSCORE lp 0 +inf LIMIT 0 10
#   zscore-lp   ZSCORE lp member:000000100
#   zrank-lp    ZRANK lp member:000000100
#   zadd-lp     ZADD lpz __rand_int__ m__rand_int__ -r 100 (a listpack of 100 members,
#               every request after the first hundred or so an update)
# Memory: bench/zsets/memory.py against redis and each lawnkv (MEMORY=0 skips).
# Servers listen on free loopback ports, without persistence, and are
# stopped by PID when the script exits.
set -euo pipefail
cd "$(dirname "$0")/../.."
LAWNKV=${LAWNKV_SERVER:-build/lawnkv-server}
BASE=${BASE_SERVER:-}
ROUNDS=${ROUNDS:-3}
N=${N:-500000}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
declare -A PORT
PORT[redis]=$(free_port)
redis-server --port "${PORT[redis]}" --save '' --appendonly no >/dev/null 2>&1 & pids+=($!)
PORT[lawnkv]=$(free_port)
"$LAWNKV" --port "${PORT[lawnkv]}" --save '' --appendonly no >/dev/null 2>&1 & pids+=($!)
servers=(redis lawnkv)
if [ -n "$BASE" ]; then
  PORT[base]=$(free_port)
  "$BASE" --port "${PORT[base]}" --save '' --appendonly no >/dev/null 2>&1 & pids+=($!)
  servers=(redis base lawnkv)
fi
sleep 0.5
lp_args=()
for i in $(seq 0 127); do lp_args+=("$(python3 -c "print(repr($i*1.5))")" "$(printf 'member:%09d' "$i")"); done
declare -A PID
i=0
for srv in redis lawnkv base; do [ -n "${PORT[$srv]:-}" ] && PID[$srv]=${pids[$i]} && i=$((i + 1)); done
TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
# One test on one server: "rps cpu-us-per-request".
run() {
  local srv=$1 n=$2; shift 2
  local c0 c1 out
  c0=$(cpu "${PID[$srv]}")
  out=$(redis-benchmark -p "${PORT[$srv]}" -P 16 -q -n "$n" "$@" 2>/dev/null | tr '\r' '\n' | grep "requests per second" | tail -1 |
        sed -E 's/.*: ([0-9.]+) requests per second.*/\1/')
  c1=$(cpu "${PID[$srv]}")
  echo "$out $(echo "scale=3; ($c1-$c0)*1000000/$TCK/$n" | bc -l)"
}
# Tests in order, each on every server in turn before the next.
tests=(zadd zrange-big zrange-lp zscore-lp zrank-lp zadd-lp)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for srv in "${servers[@]}"; do redis-cli -p "${PORT[$srv]}" flushall >/dev/null; done
  for t in "${tests[@]}"; do
    for srv in "${servers[@]}"; do
      p=${PORT[$srv]}
      case $t in
        zadd) r=$(run "$srv" $((N * 2)) -r 100000 -t zadd) ;;
        zrange-big) r=$(run "$srv" "$N" ZRANGEBYSCORE myzset 0 +inf LIMIT 0 10) ;;
        zrange-lp) redis-cli -p "$p" zadd lp "${lp_args[@]}" >/dev/null
                   r=$(run "$srv" "$N" ZRANGEBYSCORE lp 0 +inf LIMIT 0 10) ;;
        zscore-lp) r=$(run "$srv" "$N" ZSCORE lp member:000000100) ;;
        zrank-lp) r=$(run "$srv" "$N" ZRANK lp member:000000100) ;;
        zadd-lp) r=$(run "$srv" "$N" -r 100 ZADD lpz __rand_int__ m__rand_int__) ;;
      esac
      printf 'r%s %-10s %-7s %s rps, cpu %s us/req (load %s)\n' "$round" "$t" "$srv" ${r% *} ${r#* } "$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
  for srv in "${servers[@]}"; do
    echo "r$round $srv encodings: $(redis-cli -p "${PORT[$srv]}" object encoding myzset) $(redis-cli -p "${PORT[$srv]}" object encoding lp) $(redis-cli -p "${PORT[$srv]}" object encoding lpz)"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${MEMORY:-1}" != 0 ]; then
  for srv in "${servers[@]}"; do
    [ "$srv" = redis ] && continue
    echo "memory: $srv against redis"
    python3 bench/zsets/memory.py "${PORT[redis]}" "${PORT[$srv]}"
  done
fi
