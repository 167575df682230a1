#!/usr/bin/env bash
# Client-side caching: how late the invalidation of an expiring key arrives,
# lawnkv and redis-server side by side in one run.
#
#   bench/tracking_lag.sh > bench/results/tracking.md
#
# For each server, on a free loopback port (never 6379), one at a time:
# 10,000 keys with PX uniform in 100..2000 ms, each read once (GET) by a
# client with CLIENT TRACKING on REDIRECT to a RESP3 connection, which
# stamps each `invalidate` push as it arrives (bench/notify_lag.cpp
# --tracking 1); lag = arrival time - the key's deadline (PEXPIRETIME).
# Then the same with 1,000,000 other keys holding TTLs an hour away (what a
# sampling expirer has to look through). Nothing touches the keys after the
# read: the invalidation comes when the server deletes the key by itself.
# Then what a tracked GET costs each server beside an untracked one
# (bench/tracking_cost.py). Prints a markdown section on stdout (scripts/bench.sh
# runs it as the "tracking" part); the raw lags go under $BENCH_RAW
# (bench/results/raw).
#
# Environment: LAWNKV_SERVER (build/lawnkv-server), REDIS_SERVER
# (redis-server), BENCH_QUICK=1 (100,000 background keys, 10 s wait),
# TRACKING_KEYS (10000), TRACKING_BACKGROUND (1000000), TRACKING_WAIT_MS
# (time allowed after the last deadline, 60000), SEED (1).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
LAWNKV=${LAWNKV_SERVER:-build/lawnkv-server}
REDIS=${REDIS_SERVER:-redis-server}
RAW=${BENCH_RAW:-bench/results/raw}
KEYS=${TRACKING_KEYS:-10000}
if [ "${BENCH_QUICK:-0}" = 1 ]; then d_bg=100000 d_wait=10000; else d_bg=1000000 d_wait=60000; fi
BACKGROUND=${TRACKING_BACKGROUND:-$d_bg}
WAIT_MS=${TRACKING_WAIT_MS:-$d_wait}
SEED=${SEED:-1}
LAG_PREFIX=tracking
source bench/lib/lag_runs.bash

lag_runs "$BACKGROUND" "" "--tracking 1"

echo "## Invalidation lag of expiring keys (CLIENT TRACKING)"
echo
echo "$KEYS keys with PX uniform in 100..2000 ms, each read once by a tracking client (REDIRECT to a"
echo "RESP3 connection that only receives); lag = arrival of the key's \`invalidate\` push - its deadline"
echo "(PEXPIRETIME). A key lives while now <= deadline, so 1.0 ms is the least any server can show."
echo "Missing invalidations were waited for ${WAIT_MS} ms after the last deadline. Servers run one at a"
echo "time on loopback; load average $LOAD_BEFORE before and $LOAD_AFTER after, $(nproc) CPUs."
echo "Command: \`bench/tracking_lag.sh\` (TRACKING_KEYS=$KEYS TRACKING_BACKGROUND=$BACKGROUND)."
echo
lag_table invalidations
echo
echo "## What a tracked GET costs"
echo
echo "1,000 keys of 10 bytes, GETs pipelined 16 deep on one connection; server CPU (utime + stime) per"
echo "GET, best of 3 rounds of 400,000: a plain client against one with CLIENT TRACKING on (RESP3)."
echo "Command: \`bench/tracking_cost.py --server SERVER\`."
echo
echo "| server | untracked GET ns | tracked GET ns | ratio |"
echo "|---|---:|---:|---:|"
for name in lawnkv redis; do
  case $name in lawnkv) bin=$LAWNKV ;; redis) bin=$REDIS ;; esac
  python3 bench/tracking_cost.py --server "$bin" --requests 400000 --rounds 3 |
    awk -v n="$name" '/^untracked:/ { u = $2 } /^tracked:/ { t = $2 } /^ratio/ { r = $3 }
                      END { printf "| %s | %s | %s | %s |\n", n, u, t, r }'
done
