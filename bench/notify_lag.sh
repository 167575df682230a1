#!/usr/bin/env bash
# Keyspace-event lag, lawnkv and redis-server side by side in one run.
#
#   bench/notify_lag.sh            (scripts/bench.sh runs it as the "notify" part)
#
# For each server, on a free loopback port with notify-keyspace-events Ex:
#   10,000 keys with PX uniform in 100..2000 ms, a subscriber on
#   __keyevent@0__:expired, lag = receive time - the key's deadline
#   (bench/notify_lag.cpp); then the same with 1,000,000 other keys holding
#   TTLs an hour away. The servers run one at a time (never 6379), each
#   stopped by PID before the next starts.
# Prints a markdown section (table + chart) on stdout; writes the chart
# notify_lag.png, the histogram data and the raw lags under the results
# directory (dirname of $BENCH_RAW, default bench/results).
#
# Environment: LAWNKV_SERVER (build/lawnkv-server), REDIS_SERVER
# (redis-server), BENCH_QUICK=1 (100,000 background keys, 10 s wait),
# NOTIFY_KEYS (10000), NOTIFY_BACKGROUND (1000000), NOTIFY_WAIT_MS (time
# allowed after the last deadline for missing events, 60000), NOTIFY_SEED (1).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
LAWNKV=${LAWNKV_SERVER:-build/lawnkv-server}
REDIS=${REDIS_SERVER:-redis-server}
RAW=${BENCH_RAW:-bench/results/raw}
OUTDIR=$(dirname "$RAW")
KEYS=${NOTIFY_KEYS:-10000}
SEED=${NOTIFY_SEED:-1}
if [ "${BENCH_QUICK:-0}" = 1 ]; then d_bg=100000 d_wait=10000; else d_bg=1000000 d_wait=60000; fi
BACKGROUND=${NOTIFY_BACKGROUND:-$d_bg}
WAIT_MS=${NOTIFY_WAIT_MS:-$d_wait}
LAG_PREFIX=notify
source bench/lib/lag_runs.bash

lag_runs "$BACKGROUND" "--notify-keyspace-events Ex" ""

# Histogram on log-spaced bins (4 per doubling, from 0.25 ms), one column per run.
python3 - "$RAW" "$BACKGROUND" "$OUTDIR/notify_lag_hist.dat" <<'EOF'
import math, sys
raw, bg, out = sys.argv[1], sys.argv[2], sys.argv[3]
runs = [("lawnkv", "0"), ("redis", "0"), ("lawnkv", bg), ("redis", bg)]
edges = [0.25 * 2 ** (i / 4) for i in range(0, 4 * 20)]  # 0.25 ms .. ~262 s
counts = []
for name, b in runs:
    c = [0] * len(edges)
    for line in open(f"{raw}/notify-{name}-{b}.lags"):
        v = max(float(line), edges[0])
        i = min(len(edges) - 1, int(math.floor(4 * math.log2(v / 0.25))))
        c[i] += 1
    counts.append(c)
with open(out, "w") as f:
    f.write("# bin_start_ms " + " ".join(f"{n}+{b}" for n, b in runs) + "\n")
    for i, e in enumerate(edges):
        f.write(f"{e:.4f} " + " ".join(str(c[i]) for c in counts) + "\n")
EOF

gnuplot <<EOF
set terminal pngcairo size 1000,560 font ",10"
set output "$OUTDIR/notify_lag.png"
set title "expired keyspace events: lag = receive time - deadline ($KEYS keys, PX 100..2000 ms)"
set xlabel "lag (ms, log scale)"
set ylabel "events per bin (4 bins per doubling)"
set logscale x 2
set logscale y 10
set yrange [0.8:*]
set grid
set key top right
plot "$OUTDIR/notify_lag_hist.dat" using 1:(\$2>0?\$2:1/0) with steps lw 2 title "lawnkv", \
     "" using 1:(\$3>0?\$3:1/0) with steps lw 2 title "redis-server 7.0", \
     "" using 1:(\$4>0?\$4:1/0) with steps lw 2 dt 2 title "lawnkv, +$BACKGROUND keys with TTL 1 h", \
     "" using 1:(\$5>0?\$5:1/0) with steps lw 2 dt 2 title "redis-server, +$BACKGROUND keys with TTL 1 h"
EOF

# The markdown section.
echo "## Keyspace-event lag (expired)"
echo
echo "$KEYS keys with PX uniform in 100..2000 ms, one subscriber on \`__keyevent@0__:expired\`;"
echo "lag = receive time - the key's deadline (PEXPIRETIME). A key lives while now <= deadline,"
echo "so 1.0 ms is the least any server can show. Missing events were waited for ${WAIT_MS} ms"
echo "after the last deadline. Servers run one at a time on loopback; load average"
echo "$LOAD_BEFORE before and $LOAD_AFTER after the runs, $(nproc) CPUs (other work on the machine shows in the tails)."
echo
lag_table events
echo
echo "![lag histogram](notify_lag.png)"
