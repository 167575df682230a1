#!/usr/bin/env bash
# One expiry-stall probe run (bench/results/expiry-stall.md), measured so that
# the machine's share can be told from lawnkv's:
#
#   bench/server/expiry_stall_run.sh SEED [PORT] [expiry-drain options...]
#
# - the server's loop thread runs SCHED_FIFO 50 pinned to CPU 1, the bench
#   (probe and poller) SCHED_FIFO 50 pinned to CPU 0: other processes'
#   compilers cannot preempt them (the kernel's RT throttling, 95% of each
#   second, keeps the machine alive). jemalloc's background threads are left
#   SCHED_OTHER and unpinned (they start before main; only the main thread is
#   moved), so a purge there never holds the loop thread's CPU.
# - the server records its loop trace (LAWNKV_LOOP_TRACE, server/loop_trace.hpp);
#   the probe writes its replies over 1.5 ms; loop_trace_match.py lines them up.
# - steal: /proc/stat's steal column (CPU 0 and 1, in ms) over the bench run.
# - SCHED_TRACE=1: ftrace's sched_switch and sched_wakeup on every CPU over the
#   bench run (trace_clock mono, the clock of the other two), kept in
#   sched-SEED.txt: who held each CPU while a slow reply waited.
# Output: expiry-drain's lines, steal_cpu0_ms / steal_cpu1_ms, then the match.
# Needs root (chrt) and build/lawnkv-server, build/bench/expiry-drain.
# LAWNKV_SERVER (default build/lawnkv-server) picks the binary, LAWNKV_SERVER_ARGS
# adds server options; MALLOC_CONF passes through; OUT_DIR (default
# /tmp/expiry-stall) keeps the traces.
set -euo pipefail
seed=${1:?seed}
port=${2:-7390}
shift $(( $# >= 2 ? 2 : 1 ))
dir=${OUT_DIR:-/tmp/expiry-stall}
mkdir -p "$dir"
trace=$dir/trace-$seed.txt
slow=$dir/slow-$seed.txt
rm -f "$trace" "$slow"

LAWNKV_LOOP_TRACE=$trace ${LAWNKV_SERVER:-build/lawnkv-server} --port "$port" --save '' --logfile "$dir/server-$seed.log" \
  ${LAWNKV_SERVER_ARGS:-} &
pid=$!
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
taskset -pc 1 "$pid" >/dev/null
chrt -f -p 50 "$pid"

steal() { awk -v c="cpu$1" '$1 == c { print $9 * 10 }' /proc/stat; }
s0=$(steal 0); s1=$(steal 1)
t=/sys/kernel/tracing
if [[ ${SCHED_TRACE:-0} == 1 ]]; then
  echo 0 > $t/tracing_on; echo > $t/trace; echo mono > $t/trace_clock; echo 16384 > $t/buffer_size_kb
  echo 'sched:sched_switch sched:sched_wakeup sched:sched_waking irq:irq_handler_entry' > $t/set_event
  echo 1 > $t/tracing_on
fi
chrt -f 50 taskset -c 0 build/bench/expiry-drain --port "$port" --keys 1000000 --spread-ms 1000 --poll-ms 2 \
  --probe-us 1000 --seed "$seed" --slow-file "$slow" "$@" || true
if [[ ${SCHED_TRACE:-0} == 1 ]]; then
  echo 0 > $t/tracing_on; cp $t/trace "$dir/sched-$seed.txt"; echo > $t/set_event; echo > $t/trace
fi
echo "steal_cpu0_ms=$(( $(steal 0) - s0 ))"
echo "steal_cpu1_ms=$(( $(steal 1) - s1 ))"
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
wait "$pid" || true
python3 bench/server/loop_trace_match.py "$trace" "$slow" ${SCHED_TRACE:+--sched "$dir/sched-$seed.txt"}
