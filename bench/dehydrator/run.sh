#!/usr/bin/env bash
# The dehydrator (REDE.*) benchmarks of issue 5, against a lawnkv built with
# its DEBUG command (DEBUG ADVANCE-TIME moves the server clock: nothing waits
# for a TTL).
#
#   bench/dehydrator/run.sh [part ...]      parts, in this order by default:
#
#   throughput  redis-benchmark -n DEHY_N -c DEHY_CLIENTS at each pipeline of
#               DEHY_PIPELINES: REDE.PUSH q 60000 v id:__rand_int__:__rand_int__
#               (-r 1000000: unique ids), REDE.GIDPUSH q 60000 v, and
#               SET key:__rand_int__ v PX 60000 on the same server, alternated,
#               FLUSHALL before each run; ops/s, p50 and the server's on-CPU
#               ns per request (schedstat of its loop thread)
#   drain       one REDE.POLL of DEHY_DRAIN_ELEMENTS due elements over
#               DEHY_DRAIN_TTLS TTLs: client wall ms, INFO commandstats usec,
#               server on-CPU ms; the order is checked; memory (used_memory,
#               RSS, MEMORY USAGE) before, pushed, polled, deleted, purged
#   empty       empty REDE.POLL and REDE.TTN (and PING, the floor),
#               DEHY_EMPTY_CALLS calls each, with DEHY_EMPTY_TTLS distinct
#               TTLs 1 s apart from 1 h (the issue's case); then the same TTLs
#               1 ms apart (a tenth of the calls), and 100,000 elements over
#               10,000 TTLs 1 ms apart from 10 min (jittered TTLs, a
#               hundredth); each with a PING probe while a client is blocked
#               in REDE.BPOLL
#   xpoll       REDE.XPOLL of DEHY_XPOLL_ELEMENTS due elements (first call,
#               second call), then REDE.XACK of all of them
#   profile     (not run by default) callgrind on the server around one
#               REDE.POLL of DEHY_PROFILE_ELEMENTS (100000) elements, and perf
#               (if allowed) around one of DEHY_DRAIN_ELEMENTS; the
#               annotations go under the raw directory (2-4 minutes)
#
# Each part runs DEHY_ROUNDS rounds, each on a freshly started server (a free
# loopback port, never 6379, --save '' --appendonly no), stopped by PID.
# bench/dehydrator/dehy_bench.cpp is compiled to build/bench/dehy-bench first
# (only when newer than the binary).
#
# Environment (defaults: the full run, 3.5-5.5 minutes measured on 2 shared
# cores at load 6-14; BENCH_QUICK=1 about 40 s):
#   LAWNKV_SERVER=build/lawnkv-server (copied before use, so a rebuild
#                 during the run changes nothing)
#   BENCH_QUICK=1  smoke run: 100,000 requests and elements, one round
#   BENCH_RAW=bench/results/raw   raw results go to $BENCH_RAW/dehydrator/
#   DEHY_OUT       the markdown report file; default bench/results/dehydrator.md
#                  when run by hand, none when BENCH_RAW is set (scripts/bench.sh
#                  keeps the stdout). The report always goes to stdout too.
#   DEHY_PARTS="throughput drain empty xpoll" (arguments win)
#   DEHY_ROUNDS=3  DEHY_N=500000  DEHY_CLIENTS=50  DEHY_PIPELINES="1 16"
#   DEHY_DRAIN_ELEMENTS=1000000   DEHY_DRAIN_TTLS=100
#   DEHY_EMPTY_TTLS=10000         DEHY_EMPTY_CALLS=100000
#   DEHY_XPOLL_ELEMENTS=40000     DEHY_PROFILE_ELEMENTS=100000
# REDIS_SERVER is accepted (scripts/bench.sh passes it) but not used: the
# baseline is SET ... PX on the same lawnkv, and ReDe's figures are quoted
# from issue 5.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$(pwd)

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then d_n=100000 d_rounds=1 d_drain=100000 d_calls=20000; else d_n=500000 d_rounds=3 d_drain=1000000 d_calls=100000; fi
PARTS=${DEHY_PARTS:-"throughput drain empty xpoll"}
[ $# -gt 0 ] && PARTS="$*"
ROUNDS=${DEHY_ROUNDS:-$d_rounds}
N=${DEHY_N:-$d_n}
CLIENTS=${DEHY_CLIENTS:-50}
PIPELINES=${DEHY_PIPELINES:-"1 16"}
DRAIN_N=${DEHY_DRAIN_ELEMENTS:-$d_drain}
DRAIN_TTLS=${DEHY_DRAIN_TTLS:-100}
EMPTY_TTLS=${DEHY_EMPTY_TTLS:-10000}
EMPTY_CALLS=${DEHY_EMPTY_CALLS:-$d_calls}
XPOLL_N=${DEHY_XPOLL_ELEMENTS:-40000}
PROFILE_N=${DEHY_PROFILE_ELEMENTS:-100000}
if [ -n "${BENCH_RAW:-}" ]; then d_out=""; else d_out=bench/results/dehydrator.md; fi
OUT=${DEHY_OUT-$d_out}
RAW=${BENCH_RAW:-bench/results/raw}/dehydrator
LAWNKV_SRC=${LAWNKV_SERVER:-build/lawnkv-server}
CXX=${CXX:-g++}
BIN=$ROOT/build/bench/dehy-bench

for tool in redis-benchmark redis-cli python3 "$CXX"; do
  command -v "$tool" >/dev/null || { echo "dehydrator bench: $tool not found" >&2; exit 1; }
done
[ -x "$LAWNKV_SRC" ] || { echo "dehydrator bench: $LAWNKV_SRC not built (make build/lawnkv-server)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lawnkv-dehy.XXXXXX")
LAWNKV=$WORK/lawnkv-server
cp "$LAWNKV_SRC" "$LAWNKV"
mkdir -p "$RAW" "$(dirname "$BIN")"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# What is measured: the binary as copied now (a rebuild later changes nothing).
BUILD="$LAWNKV_SRC built $(date -u -r "$LAWNKV_SRC" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$LAWNKV" | cut -c1-12)"
BUILD+=", checkout at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$ROOT" status --porcelain -- src 2>/dev/null | grep -q . && BUILD+=" with uncommitted src/ changes"
if [ ! -x "$BIN" ] || [ bench/dehydrator/dehy_bench.cpp -nt "$BIN" ]; then
  "$CXX" -O2 -g -std=c++20 -Wall -Wextra -o "$BIN" bench/dehydrator/dehy_bench.cpp >&2
fi

PID="" PORT=""
stop_server() {
  if [ -n "$PID" ]; then
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=""
  fi
}
cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT

log() { echo "dehydrator bench: $*" >&2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_server [wrapper ...] -> PORT, PID (the server's own, or the wrapper's
# when it execs it, as valgrind does)
start_server() {
  local i
  PORT=$(free_port)
  "$@" "$LAWNKV" --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
    --enable-debug-command yes >>"$RAW/server.log" 2>&1 &
  PID=$!
  for i in $(seq 1 600); do
    redis-cli -p "$PORT" PING >/dev/null 2>&1 && return 0
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05  # waiting for the server to listen, not a measurement
  done
  log "lawnkv did not start on port $PORT (see $RAW/server.log)"
  exit 1
}

cpu_ns() { cut -d' ' -f1 "/proc/$PID/task/$PID/schedstat"; }

# Records the exact command lines a part ran, for the report.
note() { echo "$*" >>"$RAW/$CUR.cmds"; }

begin_part() {
  CUR=$1
  rm -f "$RAW/$CUR.txt" "$RAW/$CUR.cmds" "$RAW/$CUR.err"
  { date -u '+%Y-%m-%d %H:%M UTC'; echo "$BUILD"; echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; } >"$RAW/$CUR.when"
  log "== $CUR"
}

# ----------------------------------------------------------------- throughput
part_throughput() {
  begin_part throughput
  local -A cmd=(
    [push]="REDE.PUSH q 60000 v id:__rand_int__:__rand_int__"
    [gidpush]="REDE.GIDPUSH q 60000 v"
    [set]="SET key:__rand_int__ v PX 60000"
  )
  local round p t line c0 c1 attempt
  start_server
  for p in $PIPELINES; do
    for t in push gidpush set; do
      note "redis-benchmark -p PORT -n $N -c $CLIENTS -P $p -r 1000000 --csv ${cmd[$t]}"
    done
  done
  for round in $(seq 1 "$ROUNDS"); do
    for p in $PIPELINES; do
      for t in push gidpush set; do
        # Two __rand_int__ of -r 1000000 make 10^12 ids: 500,000 pushes draw
        # the same one about once in 8 runs, and redis-benchmark exits at the
        # first error reply. Such a run is retried, and counted.
        for attempt in 1 2 3 4; do
          redis-cli -p "$PORT" FLUSHALL >/dev/null
          c0=$(cpu_ns)
          # shellcheck disable=SC2086  # the command is split into its words on purpose
          if line=$(redis-benchmark -p "$PORT" -n "$N" -c "$CLIENTS" -P "$p" -r 1000000 --csv ${cmd[$t]} \
              2>>"$RAW/throughput.err" | tail -1); then
            c1=$(cpu_ns)
            break
          fi
          log "throughput: $t -P $p failed (attempt $attempt, see $RAW/throughput.err)"
          line=""
        done
        [ -n "$line" ] || { log "throughput: $t -P $p failed 4 times"; exit 1; }
        # "name","rps","avg","min","p50","p95","p99","max"
        IFS=, read -r _ rps _ _ p50 _ p99 _ <<<"${line//\"/}"
        echo "round=$round pipeline=$p test=$t rps=$rps p50_ms=$p50 p99_ms=$p99" \
          "cpu_ns_per_req=$(( (c1 - c0) / N )) retries=$(( attempt - 1 ))" | tee -a "$RAW/throughput.txt" >&2
      done
    done
  done
  stop_server
}

# ---------------------------------------------------------------------- drain
part_drain() {
  begin_part drain
  local round
  note "dehy-bench drain --port PORT --pid PID --elements $DRAIN_N --ttls $DRAIN_TTLS --ttl-step 60000 --batch 10000"
  for round in $(seq 1 "$ROUNDS"); do
    start_server
    echo "round=$round $("$BIN" drain --port "$PORT" --pid "$PID" --elements "$DRAIN_N" --ttls "$DRAIN_TTLS" \
      2>>"$RAW/drain.err")" | tee -a "$RAW/drain.txt" >&2
    stop_server
  done
}

# ---------------------------------------------------------------------- empty
part_empty() {
  begin_part empty
  local round clustered_calls=$(( EMPTY_CALLS / 10 )) jitter_calls=$(( EMPTY_CALLS / 100 ))
  local -a cases=(
    "spread --ttls $EMPTY_TTLS --per-ttl 1 --ttl-base 3600000 --ttl-spacing 1000 --calls $EMPTY_CALLS --bpoll-probe 200"
    "clustered --ttls $EMPTY_TTLS --per-ttl 1 --ttl-base 3600000 --ttl-spacing 1 --calls $clustered_calls --bpoll-probe 200"
    "jittered --ttls 10000 --per-ttl 10 --ttl-base 600000 --ttl-spacing 1 --calls $jitter_calls --bpoll-probe 100"
  )
  local c name args
  for c in "${cases[@]}"; do note "dehy-bench empty --port PORT --pid PID ${c#* }  # ${c%% *}"; done
  for round in $(seq 1 "$ROUNDS"); do
    for c in "${cases[@]}"; do
      name=${c%% *}
      args=${c#* }
      start_server
      # shellcheck disable=SC2086
      echo "round=$round case=$name $("$BIN" empty --port "$PORT" --pid "$PID" $args 2>>"$RAW/empty.err")" \
        | tee -a "$RAW/empty.txt" >&2
      stop_server
    done
  done
}

# ---------------------------------------------------------------------- xpoll
part_xpoll() {
  begin_part xpoll
  local round ttls
  for ttls in 1 100; do note "dehy-bench xpoll --port PORT --pid PID --elements $XPOLL_N --ttls $ttls"; done
  for round in $(seq 1 "$ROUNDS"); do
    for ttls in 1 100; do
      start_server
      echo "round=$round $("$BIN" xpoll --port "$PORT" --pid "$PID" --elements "$XPOLL_N" --ttls "$ttls" \
        2>>"$RAW/xpoll.err")" | tee -a "$RAW/xpoll.txt" >&2
      stop_server
    done
  done
}

# -------------------------------------------------------------------- profile
part_profile() {
  begin_part profile
  command -v valgrind >/dev/null || { log "profile: valgrind not found; skipped"; return 0; }
  local out=$RAW/callgrind.poll.out
  rm -f "$out" "$RAW/callgrind.ttn.out"
  start_server valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out"
  note "valgrind --tool=callgrind --instr-atstart=no lawnkv-server ...; dehy-bench drain --elements $PROFILE_N" \
    "--exec-before 'callgrind_control -i on PID' --exec-after 'callgrind_control -i off PID'"
  "$BIN" drain --port "$PORT" --pid "$PID" --elements "$PROFILE_N" --ttls "$DRAIN_TTLS" \
    --exec-before "callgrind_control -i on $PID >/dev/null" --exec-after "callgrind_control -i off $PID >/dev/null" \
    2>>"$RAW/profile.err" | tee -a "$RAW/profile.txt" >&2
  stop_server
  callgrind_annotate --inclusive=yes "$out" 2>/dev/null | head -60 >"$RAW/callgrind.poll.inclusive.txt" || true
  callgrind_annotate "$out" 2>/dev/null | head -60 >"$RAW/callgrind.poll.self.txt" || true
  log "profile: $RAW/callgrind.poll.*.txt"

  # Cycles (cache misses included, which instruction counts miss) of the
  # full-size POLL, where perf is allowed.
  command -v perf >/dev/null || { log "profile: perf not found; cycles skipped"; return 0; }
  local data=$RAW/perf.poll.data
  start_server
  printf '%s\n' '#!/bin/sh' \
    "perf record -F 2000 -p $PID -o $data >$RAW/perf.err 2>&1 &" \
    "echo \$! >$WORK/perf.pid" \
    'sleep 1  # perf attaching, not a measurement' >"$WORK/perf-on.sh"
  printf '%s\n' '#!/bin/sh' \
    "kill -INT \$(cat $WORK/perf.pid) 2>/dev/null" \
    "while kill -0 \$(cat $WORK/perf.pid) 2>/dev/null; do sleep 0.1; done" 'exit 0' >"$WORK/perf-off.sh"
  note "perf record -F 2000 -p PID around: dehy-bench drain --elements $DRAIN_N --ttls $DRAIN_TTLS"
  if "$BIN" drain --port "$PORT" --pid "$PID" --elements "$DRAIN_N" --ttls "$DRAIN_TTLS" \
      --exec-before "sh $WORK/perf-on.sh" --exec-after "sh $WORK/perf-off.sh" 2>>"$RAW/profile.err" \
      | tee -a "$RAW/profile.txt" >&2; then
    perf report -i "$data" --no-children --stdio --sort symbol 2>/dev/null | grep -v '^#' | grep -v '^$' \
      | cut -c1-160 | head -30 >"$RAW/perf.poll.symbols.txt" || true
    perf report -i "$data" --no-children --stdio --sort srcline 2>/dev/null | grep -v '^#' | grep -v '^$' \
      | head -30 >"$RAW/perf.poll.srclines.txt" || true
    log "profile: $RAW/perf.poll.*.txt"
  fi
  stop_server
}

for part in $PARTS; do
  case $part in
    throughput|drain|empty|xpoll|profile) "part_$part" ;;
    *) echo "dehydrator bench: unknown part '$part' (throughput drain empty xpoll profile)" >&2; exit 2 ;;
  esac
done

{
  echo "host=$(uname -n) cores=$(nproc) cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "load_start=$LOAD_START load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "quick=$QUICK rounds=$ROUNDS"
} >"$RAW/machine.txt"

if [ -n "$OUT" ]; then
  python3 bench/dehydrator/report.py --raw "$RAW" | tee "$OUT"
else
  python3 bench/dehydrator/report.py --raw "$RAW"
fi
