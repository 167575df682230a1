#!/usr/bin/env bash
# I/O threads (src/server/io_threads.hpp): redis-benchmark SET and GET with
# 512 connections at -P 1 and -P 16 against lawnkv with io-threads 1 and 2
# and redis-server with io-threads 2 (io-threads-do-reads yes), alternated,
# BENCH_ROUNDS rounds. Reports ops/s, p50/p99, the whole server's CPU per
# request and the main thread's own CPU per request (utime + stime of
# /proc/PID/task/PID/stat): with I/O threads the main thread should run the
# commands only, and its CPU per request is the ceiling of what one dataset
# thread can serve on a machine with cores to spare. The io-threads 2 rows
# are run twice: unpinned, and with the server on CPU 0 and redis-benchmark
# on the other CPUs (as the many-core table pins them).
#
# With 8 cores or more (nproc) it also runs the many-core table: the server
# pinned (taskset) to the first half of the cores, redis-benchmark with
# --threads to the other half, io-threads 1, 4 and 8, Redis with io-threads
# 4, and valkey-server with io-threads 8 when VALKEY_SERVER names one.
#
# Run by scripts/bench.sh (part "iothreads"), which passes LAWNKV_SERVER,
# REDIS_SERVER, BENCH_QUICK and BENCH_RAW; markdown on stdout. Alone:
#   LAWNKV_SERVER=build/lawnkv-server bench/iothreads/run.sh
# Environment: BENCH_ROUNDS (default 1), BENCH_IOT_N requests a run (default
# 500,000; 100,000 with BENCH_QUICK=1), BENCH_IOT_CLIENTS (512),
# BENCH_IOT_PIPELINES ("1 16"), BENCH_IOT_TESTS ("set get"), VALKEY_SERVER,
# LAWNKV_BASELINE (an earlier lawnkv binary: run beside, io-threads 1, to
# show that io-threads 1 costs what it did).
#
# On a machine without network or packages (a many-core box lent for an
# hour): carry the binaries and the libraries they link in one directory.
#   here:   bench/iothreads/run.sh pack /tmp/iot-carry
#           (LAWNKV_SERVER, REDIS_SERVER, VALKEY_SERVER as above choose
#           what goes; redis-benchmark and redis-cli go too)
#   copy /tmp/iot-carry to the other machine, then there:
#           BENCH_ROUNDS=3 /tmp/iot-carry/run.sh > iothreads.md
# run.sh finds the binaries beside itself (or in IOT_BIN_DIR) and their
# libraries in lib/ there; it needs bash, awk, taskset and /proc.
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN_DIR=${IOT_BIN_DIR:-}
[ -n "$BIN_DIR" ] || [ ! -x "$SELF_DIR/lawnkv-server" ] || BIN_DIR=$SELF_DIR

if [ "${1:-}" = pack ]; then
  dest=${2:?usage: run.sh pack DIR}
  mkdir -p "$dest/lib"
  bins=("${LAWNKV_SERVER:-build/lawnkv-server}" "$(command -v "${REDIS_SERVER:-redis-server}")"
        "$(command -v redis-benchmark)" "$(command -v redis-cli)")
  [ -z "${VALKEY_SERVER:-}" ] || bins+=("$VALKEY_SERVER")
  for b in "${bins[@]}"; do
    name=$(basename "$b")
    [ "$b" != "$(command -v "${REDIS_SERVER:-redis-server}")" ] || name=redis-server
    cp -L "$b" "$dest/$name"
    # Every library but the C library's own (the other machine's loader
    # must match its libc).
    ldd "$b" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
      case $(basename "$lib") in libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
        *) cp -L "$lib" "$dest/lib/" ;; esac
    done
  done
  cp "${BASH_SOURCE[0]}" "$dest/run.sh"
  echo "packed into $dest: $(ls "$dest" | tr '\n' ' ')"
  exit 0
fi

if [ -n "$BIN_DIR" ]; then
  export LD_LIBRARY_PATH="$BIN_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  : "${LAWNKV_SERVER:=$BIN_DIR/lawnkv-server}"
  : "${REDIS_SERVER:=$BIN_DIR/redis-server}"
  [ ! -x "$BIN_DIR/valkey-server" ] || : "${VALKEY_SERVER:=$BIN_DIR/valkey-server}"
  PATH="$BIN_DIR:$PATH"
fi
LAWNKV=${LAWNKV_SERVER:-build/lawnkv-server}
REDIS=${REDIS_SERVER:-redis-server}
VALKEY=${VALKEY_SERVER:-}
BASELINE=${LAWNKV_BASELINE:-}
QUICK=${BENCH_QUICK:-0}
ROUNDS=${BENCH_ROUNDS:-1}
if [ "$QUICK" = 1 ]; then N=${BENCH_IOT_N:-100000}; else N=${BENCH_IOT_N:-500000}; fi
CLIENTS=${BENCH_IOT_CLIENTS:-512}
PIPELINES=${BENCH_IOT_PIPELINES:-"1 16"}
TESTS=${BENCH_IOT_TESTS:-"set get"}
CORES=$(nproc)
TICK=$(getconf CLK_TCK)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lawnkv-iot.XXXXXX")
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  local p=$((20000 + RANDOM % 12000))
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((20000 + RANDOM % 12000)); done
  echo "$p"
}

# start KIND IO_THREADS PIN -> sets PID PORT. KIND: lawnkv | redis | valkey.
start() {
  local kind=$1 threads=$2 pin=$3 bin
  case $kind in lawnkv) bin=$LAWNKV ;; baseline) bin=$BASELINE ;; redis) bin=$REDIS ;; valkey) bin=$VALKEY ;; esac
  PORT=$(free_port)
  local cmd=("$bin" --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --io-threads "$threads"
             --io-threads-do-reads yes --maxclients 10000)
  case $kind in redis|valkey) cmd+=(--dir "$WORK") ;; esac
  [ -z "$pin" ] || cmd=(taskset -c "$pin" "${cmd[@]}")
  "${cmd[@]}" >"$WORK/$kind-$PORT.log" 2>&1 &
  PID=$!
  PIDS+=("$PID")
  local i
  for i in $(seq 100); do
    [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  echo "iothreads: $kind did not start" >&2
  cat "$WORK/$kind-$PORT.log" >&2
  exit 1
}

stop() {
  kill -TERM "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
}

# utime + stime, in ticks, of a process (task = its pid) or of its main thread.
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "$1"; }
# The main thread's CPU time in ns: the time on CPU of its schedstat (what
# utime + stime add up to, without their ticks: a 200,000-request run at
# 1 µs a request is 20 ticks), or its ticks where there is no schedstat.
main_ns() {
  if [ -r "$1/schedstat" ]; then awk '{ print $1 }' "$1/schedstat"
  else echo $(( $(ticks "$1/stat") * 1000000000 / TICK )); fi
}

# run_one KIND THREADS TEST PIPELINE PIN BENCH_PIN BENCH_THREADS [LABEL] -> one TSV row
run_one() {
  local kind=$1 threads=$2 test=$3 p=$4 pin=$5 bpin=$6 bthreads=$7 label=${8:-$1}
  start "$kind" "$threads" "$pin"
  # GET finds the keys a SET filled.
  [ "$test" != get ] || redis-benchmark -p "$PORT" -c 50 -P 64 -n "$N" -r 1000000 -d 16 -t set -q >/dev/null 2>&1
  local all0 main0 all1 main1 csv
  all0=$(ticks "/proc/$PID/stat")
  main0=$(main_ns "/proc/$PID/task/$PID")
  local bench=(redis-benchmark -p "$PORT" -c "$CLIENTS" -P "$p" -n "$N" -r 1000000 -d 16 -t "$test" --csv)
  [ "$bthreads" = 1 ] || bench+=(--threads "$bthreads")
  [ -z "$bpin" ] || bench=(taskset -c "$bpin" "${bench[@]}")
  csv=$("${bench[@]}" 2>/dev/null | tail -1)
  all1=$(ticks "/proc/$PID/stat")
  main1=$(main_ns "/proc/$PID/task/$PID")
  stop
  # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  echo "$csv" | tr -d '"' | awk -F, -v k="$label" -v t="$threads" -v p="$p" -v n="$N" -v tk="$TICK" \
    -v all=$((all1 - all0)) -v main=$((main1 - main0)) -v test="$test" \
    '{ printf "%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%.2f\t%.3f\n", k, t, test, p, $2, $5, $7, all / tk * 1e6 / n, main / 1000 / n }'
}

table() {  # table TSV
  echo "| server | io-threads | test | -P | ops/s | p50 ms | p99 ms | server CPU µs/req | main thread CPU µs/req |"
  echo "|---|---|---|---|---|---|---|---|---|"
  sort -t$'\t' -k3,3 -k4,4n -k1,1 -k2,2n "$1" | awk -F'\t' '
    { key = $1 "\t" $2 "\t" $3 "\t" $4; n[key]++; r[key] = r[key] (n[key] > 1 ? " / " : "") $5
      p50[key] = p50[key] (n[key] > 1 ? " / " : "") $6; p99[key] = p99[key] (n[key] > 1 ? " / " : "") $7
      c[key] = c[key] (n[key] > 1 ? " / " : "") $8; m[key] = m[key] (n[key] > 1 ? " / " : "") $9
      if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    END { for (i = 1; i <= k; i++) { split(order[i], f, "\t")
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], toupper(f[3]), f[4], r[order[i]], p50[order[i]], p99[order[i]], c[order[i]], m[order[i]] } }'
}

echo "# I/O threads"
echo
echo "$CORES CPUs; redis-benchmark -c $CLIENTS -n $N -r 1000000 -d 16, $ROUNDS round(s), values of each round" \
     "separated by /. CPU per request from /proc over the run: the whole server (utime + stime, $TICK ticks" \
     "a second), and its main thread alone (the thread that runs the commands; its schedstat, in ns)."
echo
SMALL=$WORK/small.tsv
: >"$SMALL"
small_cfgs=("lawnkv 1" "lawnkv 2" "redis 2")
[ -z "$BASELINE" ] || small_cfgs=("baseline 1" "${small_cfgs[@]}")
# Pinned: the server on CPU 0 and redis-benchmark on the others, as the
# many-core table pins them to disjoint cores; unpinned, the main thread
# shares its CPU with redis-benchmark and each of its wake-ups may follow
# a switch from another process.
PINNED=$WORK/pinned.tsv
: >"$PINNED"
pinned_cfgs=("lawnkv 2" "redis 2")
for round in $(seq "$ROUNDS"); do
  for test in $TESTS; do
    for p in $PIPELINES; do
      for cfg in "${small_cfgs[@]}"; do
        # shellcheck disable=SC2086
        run_one $cfg "$test" "$p" "" "" 1 >>"$SMALL"
      done
      [ "$CORES" -ge 2 ] || continue
      for cfg in "${pinned_cfgs[@]}"; do
        # shellcheck disable=SC2086
        run_one $cfg "$test" "$p" 0 "1-$((CORES - 1))" 1 "${cfg%% *} pinned" >>"$PINNED"
      done
    done
  done
done
echo "## Main-thread proxy (io-threads 1 and 2, no pinning)"
echo
table "$SMALL"
echo
if [ -s "$PINNED" ]; then
  echo "## Main-thread proxy, pinned (the server on CPU 0, redis-benchmark on CPUs 1-$((CORES - 1)))"
  echo
  table "$PINNED"
  echo
fi

if [ "$CORES" -ge 8 ]; then
  half=$((CORES / 2))
  spin="0-$((half - 1))"
  bpin="$half-$((CORES - 1))"
  bthreads=$((CORES - half - 1))
  [ "$bthreads" -ge 1 ] || bthreads=1
  BIG=$WORK/big.tsv
  : >"$BIG"
  cfgs=("lawnkv 1" "lawnkv 4" "lawnkv 8" "redis 4")
  [ -z "$VALKEY" ] || cfgs+=("valkey 8")
  for round in $(seq "$ROUNDS"); do
    for test in $TESTS; do
      for p in $PIPELINES; do
        for cfg in "${cfgs[@]}"; do
          # shellcheck disable=SC2086
          run_one $cfg "$test" "$p" "$spin" "$bpin" "$bthreads" >>"$BIG"
        done
      done
    done
  done
  echo "## Many cores (server on CPUs $spin, redis-benchmark --threads $bthreads on CPUs $bpin)"
  echo
  table "$BIG"
  echo
else
  echo "The many-core table needs 8 CPUs or more (this machine has $CORES): it waits for such a machine."
fi
