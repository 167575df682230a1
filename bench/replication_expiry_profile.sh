#!/usr/bin/env bash
# User-space instructions per expired key, under callgrind (a count the
# machine's load does not move): N keys (100,000) `SET k:<i> v PXAT <t +
# 0..1000 ms>` through `redis-cli --pipe`, then callgrind_control -z before
# the first deadline and -d once every server's DBSIZE is 0.
#
#   bench/replication_expiry_profile.sh primary|replica REPLICAS [N]
#
# primary: the primary runs under callgrind, with REPLICAS (0, 1, ...)
# plain replicas; replica: the first replica does (REPLICAS >= 1). Each
# replica has notify-keyspace-events Eg and the first a `redis-cli
# subscribe __keyevent@0__:del`. Prints the dump's total and per key; the
# dump stays in build/bench/ for callgrind_annotate --inclusive=yes.
# Ports 7821...; LAWNKV_SERVER (build/lawnkv-server). DELAY_MS (15000): the
# first deadline, after the start of the load (under callgrind it is slow).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${LAWNKV_SERVER:-$(pwd)/build/lawnkv-server}
WHO=$1 REPS=$2 N=${3:-100000}
mkdir -p build/bench
OUT=$(pwd)/build/bench/expiry-$WHO-$REPS.callgrind
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
CG="valgrind --tool=callgrind --callgrind-out-file=$OUT.%p"
start() {  # port prefix args...
  local port=$1 prefix=$2; shift 2
  mkdir -p "$WORK/$port"
  $prefix "$BIN" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/$port" "$@" \
    > "$WORK/$port.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 3000); do redis-cli -p "$port" ping > /dev/null 2>&1 && return 0; sleep 0.02; done
  echo "server on $port did not start" >&2; return 1
}
[ "$WHO" = primary ] && start 7821 "$CG" || start 7821 ""
CG_PID=${PIDS[0]}
for i in $(seq 1 "$REPS"); do
  pre=""
  if [ "$WHO" = replica ] && [ "$i" = 1 ]; then pre=$CG; fi
  start $((7821 + i)) "$pre" --replicaof 127.0.0.1 7821 --notify-keyspace-events Eg
  [ "$WHO" = replica ] && [ "$i" = 1 ] && CG_PID=${PIDS[-1]}
  for _ in $(seq 1 3000); do
    redis-cli -p $((7821 + i)) info replication | grep -q master_link_status:up && break; sleep 0.02
  done
done
if [ "$REPS" -ge 1 ]; then redis-cli -p 7822 subscribe __keyevent@0__:del > /dev/null & PIDS+=($!); fi
at=$(( $(date +%s%3N) + ${DELAY_MS:-15000} ))
python3 - "$N" "$at" <<'PY' | redis-cli -p 7821 --pipe > /dev/null
import random, sys
n, at = int(sys.argv[1]), int(sys.argv[2])
r, out = random.Random(1), sys.stdout.buffer
for i in range(n):
    k, t = b"k:%d" % i, b"%d" % (at + r.randrange(1000))
    out.write(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n$4\r\nPXAT\r\n$%d\r\n%s\r\n" % (len(k), k, len(t), t))
PY
for i in $(seq 1 "$REPS"); do
  for _ in $(seq 1 3000); do [ "$(redis-cli -p $((7821 + i)) dbsize)" = "$N" ] && break; sleep 0.05; done
done
[ "$(date +%s%3N)" -lt "$at" ] || { echo "loading ran past the first deadline: raise DELAY_MS" >&2; exit 1; }
callgrind_control -z "$CG_PID" > /dev/null
for _ in $(seq 1 6000); do
  left=0
  for i in $(seq 0 "$REPS"); do left=$((left + $(redis-cli -p $((7821 + i)) dbsize))); done
  [ "$left" = 0 ] && [ "$(date +%s%3N)" -gt $((at + 1000)) ] && break
  sleep 0.05
done
callgrind_control -d "$CG_PID" > /dev/null
dump=$(ls -t "$OUT.$CG_PID".* | head -1)
total=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
echo "$WHO under callgrind, $REPS replicas, $N keys: $total instructions, $((total / N)) a key ($dump)"
