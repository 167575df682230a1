#!/usr/bin/env bash
# Replication beside redis-server 7.0.15 in the same roles (a lawnkv primary
# with lawnkv replicas, a redis-server primary with redis-server replicas),
# every process on the loopback (ports 7811-7814), one pair at a time:
#
#   expiry   1,000,000 keys due within one second on the primary (PXAT,
#            start + 30..31 s); a subscriber on the replica hears each key's
#            `del` (the primary's DEL, applied): lag = receive time - the
#            key's deadline (bench/notify_lag.cpp --sub-port --event del).
#   keepup   redis-benchmark -P 16 -t set against the primary while the
#            replica's processed offset (slave_repl_offset) is sampled
#            against the primary's master_repl_offset every 100 ms: the lag
#            in bytes (max, median), and the time to catch up at the end.
#   cpu      the primary's CPU (utime+stime from /proc/<pid>/stat) over a
#            redis-benchmark -P 16 -t set run, divided by its writes, with
#            0, 1 and 2 replicas attached.
#
#   expiry-primary  the same flood with a replica attached, the subscriber
#            on the primary's own `expired` events: whether feeding the
#            replica holds the primary's expiry back.
#
#   bench/replication_bench.sh [expiry] [expiry-primary] [keepup] [cpu]
#   (default: expiry keepup cpu)
# Environment: LAWNKV_SERVER (build/lawnkv-server), REDIS_SERVER
# (redis-server), EXPIRY_KEYS (1000000), KEEPUP_N (2000000), CPU_N (1000000).
# PAIRS (lawnkv redis): which pairs run.
# RT=1 (the default) runs the measured processes under SCHED_FIFO and
# pinned, so that other work on the machine (compilers) does not decide the
# figures: the primary `taskset -c 0 chrt -f 50`, its replicas
# `taskset -c 1 chrt -f 50`, notify-lag `chrt -f 51` (it preempts the
# server it shares a core with, to stamp each event as it comes) on core 0
# with the primary, or on core 1 with the replica when it listens to the
# primary. RT=0: no pinning, the scheduler's defaults.
# Results: bench/results/replication.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LAWNKV=${LAWNKV_SERVER:-$ROOT/build/lawnkv-server}
REDIS=${REDIS_SERVER:-redis-server}
EXPIRY_KEYS=${EXPIRY_KEYS:-1000000}
KEEPUP_N=${KEEPUP_N:-2000000}
CPU_N=${CPU_N:-1000000}
PARTS=${*:-expiry keepup cpu}
RT=${RT:-1}
# The prefix that pins and prioritises a process on core $1 at FIFO
# priority $2 (nothing with RT=0).
rt() { [ "$RT" = 1 ] && echo "taskset -c $1 chrt -f $2" || true; }
PRIMARY_RT=$(rt 0 50)
REPLICA_RT=$(rt 1 50)
WORK=$(mktemp -d)
PIDS=()
stop_all() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}
trap 'stop_all; rm -rf "$WORK"' EXIT

TOOL=$ROOT/build/bench/notify-lag
mkdir -p "$ROOT/build/bench"
if [ ! -x "$TOOL" ] || [ bench/notify_lag.cpp -nt "$TOOL" ]; then
  ${CXX:-g++} -O2 -g -std=c++20 -Wall -Wextra -o "$TOOL" bench/notify_lag.cpp -lpthread
fi

field() { redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }'; }
start() {  # binary port [args...]: starts it (under $PREFIX), waits for PING
  local bin=$1 port=$2; shift 2
  mkdir -p "$WORK/$port"
  # Both sync diskless (the default of both) without its 5 s gathering delay.
  ${PREFIX:-} "$bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/$port" \
    --repl-diskless-sync-delay 0 "$@" \
    > "$WORK/$port.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 500); do redis-cli -p "$port" ping > /dev/null 2>&1 && return 0; sleep 0.01; done
  echo "server on $port did not start" >&2; return 1
}
pid_of() { redis-cli -p "$1" info server | tr -d '\r' | awk -F: '$1 == "process_id" { print $2 }'; }
wait_link() {  # replica port
  for _ in $(seq 1 3000); do [ "$(field "$1" replication master_link_status)" = up ] && return 0; sleep 0.01; done
  echo "replica on $1 never came up" >&2; return 1
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

start_pair() {  # binary [primary args...]: a primary on 7811, a replica on 7812 (with its `del` events)
  local bin=$1; shift
  PREFIX=$PRIMARY_RT start "$bin" 7811 "$@"
  PREFIX=$REPLICA_RT start "$bin" 7812 --replicaof 127.0.0.1 7811 --notify-keyspace-events Eg
  wait_link 7812
}

expiry() {  # name binary
  start_pair "$2"
  local out; out=$($(rt 0 51) "$TOOL" --port 7811 --sub-port 7812 --event del --keys "$EXPIRY_KEYS" --absolute 1 \
    --min-ms 30000 --max-ms 31000 --wait-ms 60000 --out "$WORK/expiry-$1.lags")
  echo "expiry $1, $EXPIRY_KEYS keys (replica's del): $out"
  stop_all
}

expiry_primary() {  # name binary
  start_pair "$2" --notify-keyspace-events Ex
  local out; out=$($(rt 1 51) "$TOOL" --port 7811 --sub-port 7811 --event expired --keys "$EXPIRY_KEYS" --absolute 1 \
    --min-ms 30000 --max-ms 31000 --wait-ms 60000 --out "$WORK/expiry-primary-$1.lags")
  echo "expiry-primary $1, $EXPIRY_KEYS keys (primary's expired, a replica attached): $out"
  stop_all
}

keepup() {  # name binary
  start "$2" 7811
  start "$2" 7812 --replicaof 127.0.0.1 7811
  wait_link 7812
  redis-benchmark -p 7811 -P 16 -t set -n "$KEEPUP_N" -r 1000000 -d 16 -c 50 -q > "$WORK/keepup-$1.bench" 2>&1 &
  local bench=$!
  : > "$WORK/keepup-$1.lag"
  while kill -0 "$bench" 2>/dev/null; do
    # The replica first: the lag read is at most the writes between the
    # two INFO calls larger than the true one, never smaller.
    local m r
    r=$(field 7812 replication slave_repl_offset)
    m=$(field 7811 replication master_repl_offset)
    echo $((m - r)) >> "$WORK/keepup-$1.lag"
    sleep 0.1
  done
  wait "$bench" || true
  local t0; t0=$(date +%s%3N)
  for _ in $(seq 1 3000); do
    [ "$(field 7811 replication master_repl_offset)" = "$(field 7812 replication slave_repl_offset)" ] && break
    sleep 0.01
  done
  local t1; t1=$(date +%s%3N)
  local rps; rps=$(tr '\r' '\n' < "$WORK/keepup-$1.bench" | grep -o 'SET: [0-9.]* requests per second' | tail -1)
  sort -n "$WORK/keepup-$1.lag" | awk -v name="$1" -v rps="$rps" -v catch=$((t1 - t0)) \
    '{ v[NR] = $1 } END { printf "keepup %s: %s, %d samples, offset lag bytes median %d max %d, caught up %d ms after the run\n",
       name, rps, NR, v[int((NR + 1) / 2)], v[NR], catch }'
  stop_all
}

cpu() {  # name binary replicas
  PREFIX=$PRIMARY_RT start "$2" 7811
  for i in $(seq 1 "$3"); do
    PREFIX=$REPLICA_RT start "$2" $((7811 + i)) --replicaof 127.0.0.1 7811
    wait_link $((7811 + i))
  done
  local pid; pid=$(pid_of 7811)
  local before; before=$(cpu_ticks "$pid")
  redis-benchmark -p 7811 -P 16 -t set -n "$CPU_N" -r 1000000 -d 16 -c 50 -q > "$WORK/cpu.bench" 2>&1
  local after; after=$(cpu_ticks "$pid")
  local hz; hz=$(getconf CLK_TCK)
  awk -v name="$1" -v r="$3" -v t=$((after - before)) -v hz="$hz" -v n="$CPU_N" \
    'BEGIN { printf "cpu %s, %d replicas: primary CPU %.2f s for %d writes = %.2f us/write\n", name, r, t / hz, n, t / hz / n * 1e6 }'
  stop_all
}

# PAIRS="lawnkv" (or "redis") runs one kind only.
PAIRS=${PAIRS:-lawnkv redis}
each() {  # part [args]: the part for each pair of PAIRS
  local part=$1; shift
  for pair in $PAIRS; do
    if [ "$pair" = lawnkv ]; then "$part" lawnkv "$LAWNKV" "$@"; else "$part" redis "$REDIS" "$@"; fi
  done
}

for part in $PARTS; do
  case $part in
    expiry) each expiry ;;
    expiry-primary) each expiry_primary ;;
    keepup) each keepup ;;
    cpu) for r in 0 1 2; do each cpu "$r"; done ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
