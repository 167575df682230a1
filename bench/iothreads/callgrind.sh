#!/usr/bin/env bash
# The main thread's instructions per request under callgrind (immune to the
# machine's load, unlike its CPU time): the server under valgrind, counters
# zeroed after the GET fill, then redis-benchmark -c 512 -P 1; prints thread
# 1's total over the run divided by dispatch()'s calls (the 512 accepts
# included). bench/results/iothreads.md quotes it.
#
#   bench/iothreads/callgrind.sh [SERVER] [IO_THREADS] [get|set] [REQUESTS]
#   e.g. bench/iothreads/callgrind.sh build/lawnkv-server 2 get 40000
set -eu
BIN=${1:-build/lawnkv-server}
IOT=${2:-2}
T=${3:-get}
N=${4:-40000}
P=$((17000 + RANDOM % 1000))
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$DIR/cg.%p" "$BIN" --port $P \
  --bind 127.0.0.1 --save '' --appendonly no --io-threads "$IOT" --io-threads-do-reads yes \
  --maxclients 10000 >/dev/null 2>"$DIR/log" &
VP=$!
for _ in $(seq 1 100); do redis-cli -p $P ping >/dev/null 2>&1 && break; sleep 0.5; done
if [ "$T" = get ]; then redis-benchmark -p $P -c 50 -P 64 -n 200000 -r 1000000 -d 16 -t set -q >/dev/null; fi
callgrind_control -z $VP >/dev/null 2>&1
redis-benchmark -p $P -c 512 -P 1 -n "$N" -r 1000000 -d 16 -t "$T" -q >/dev/null
callgrind_control -d $VP >/dev/null 2>&1
kill $VP
wait $VP || true
F="$DIR/cg.$VP.1-01"
total=$(awk '/^summary:/ {print $2}' "$F")
# dispatch()'s calls from the call tree (the "=>" lines of the annotated
# source need the sources the binary was built from).
calls=$(callgrind_annotate --tree=calling --threshold=100 "$F" 2>/dev/null |
  grep -m1 -oE '> .*lawnkv::dispatch\(.*\(([0-9,]+)x\)' | grep -oE '\(([0-9,]+)x\)$' | tr -d '(),x')
echo "$T io-threads $IOT: $total instructions / $calls requests = $((total / calls)) a request (main thread)"
