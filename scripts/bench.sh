#!/usr/bin/env bash
# lawnkv against redis-server, side by side, measured the same way in one run.
#
#   scripts/bench.sh [part ...]          (make bench runs it with no argument)
#
# Parts (default: all, in this order):
#   throughput  redis-benchmark SET, GET and SET ... EX 100 at -P 1 and -P 16
#               against lawnkv, redis-server and the do-nothing ceiling server
#               (bench/ceiling/), alternated, BENCH_ROUNDS rounds; ops/s, p50,
#               p99 and server CPU time per request (/proc/PID/stat)
#   memory      RSS and INFO used_memory per key at BENCH_MEM_KEYS keys
#               (16-byte names and values), with and without a TTL
#   types       hashes, sets, lists, sorted sets, HyperLogLog: INFO used_memory per
#               element (and MEMORY USAGE) of the shapes of bench/types/shapes.py
#               (smaller shapes under BENCH_QUICK), loaded with redis-cli --pipe;
#               then redis-benchmark -P 16 of HSET, HGET, SADD, SISMEMBER, SPOP,
#               LPUSH, RPOP, LRANGE 0 99, ZADD, ZRANGEBYSCORE, ZPOPMIN, PFADD
#               (dense, sparse), PFCOUNT (cached, union of two) and
#               GEOSEARCH BYRADIUS over 100,000 points, each
#               after FLUSHALL and the fill it needs, alternated with Redis and
#               the ceiling server as the throughput part runs, BENCH_ROUNDS
#               rounds of BENCH_N requests
#   streams     INFO used_memory per entry of BENCH_STREAM_ENTRIES (default
#               1,000,000) entries of two short fields; server CPU per request
#               at -P 16 of XADD, XRANGE COUNT 10, XREADGROUP COUNT 10 + XACK
#               (bench/streams/group_read.cpp), and XPENDING / XAUTOCLAIM of 10
#               entries from a group with all the entries pending
#   expiry      bench/server/expiry_drain.cpp: BENCH_EXPIRY_KEYS keys due within
#               one second (SET ... PXAT): time from the last deadline to
#               DBSIZE 0, and a probe client's GET latency meanwhile
#   aof         SET -P 16 with appendonly yes, appendfsync everysec and always
#   fields      the same tool with --hashes 1000: BENCH_EXPIRY_KEYS hash fields
#               in 1,000 hashes due within one second (HPEXPIREAT): drain time,
#               probe latency, and the lag of the `hexpired` events. Redis 7.0
#               has no field TTLs: lawnkv runs alone, beside REDIS74_SERVER (a
#               Redis 7.4 binary) when that is set
#   scripting   Lua scripts (bench/scripting/, whose README says what each
#               does and why): EVALSHA of a lock release, a rate limiter and
#               a ten-command job-queue step at -P 16, alternated with Redis
#               as the throughput part runs, BENCH_ROUNDS rounds: server CPU
#               per call; one script of BENCH_SCRIPT_LOOP INCRs, timed;
#               INFO used_memory, used_memory_lua and RSS per cached script
#               for BENCH_SCRIPT_CACHE distinct scripts; instructions per call
#               of the EVALSHA tests under callgrind (as the profile part)
#   index       build/bench-expiry (Google Benchmark, the expiry index)
#   notify      bench/notify_lag.sh or .py if present (keyspace-event lag)
#   monitor     MONITOR's cost: server CPU per request of SET and GET at -P 16
#               with no monitor and with one `redis-cli monitor` attached,
#               lawnkv and redis-server alternated, BENCH_ROUNDS rounds;
#               medians and the ratio to no monitor in monitor.md
#   tracking    bench/tracking_lag.sh: invalidation lag of expiring keys
#               (CLIENT TRACKING), and a tracked GET's CPU beside an untracked one
#   dehydrator  bench/dehydrator/run.sh if present (REDE.* benches)
#   iothreads   bench/iothreads/run.sh: SET and GET, 512 connections, -P 1 and
#               -P 16, lawnkv io-threads 1 and 2 beside Redis io-threads 2:
#               ops/s, p50/p99, server and main-thread CPU per request; with
#               8 CPUs or more, pinned, io-threads 1, 4, 8 beside Redis 4 (and
#               Valkey 8 when VALKEY_SERVER names a valkey-server)
#   eviction    maxmemory (bench/eviction/): hit ratio per policy of a
#               read-through client replaying one Zipf trace with scans (and
#               exact LRU and Belady's optimum on the same trace); SET -P 16
#               while every write evicts; a probe's GET latency while 3/4 of
#               BENCH_EVICT_FILL_MB is evicted at once
#   profile     not by default: instructions per request of each server under
#               callgrind (user space), the same tests; a count, not a time,
#               so it is stable on a busy machine
#   baseline    not by default: this lawnkv against an earlier build of it
#               (LAWNKV_BASELINE, a binary): the throughput tests at
#               BENCH_BASELINE_PIPELINES, interleaved rounds, then both under
#               callgrind (instructions per request)
#
# Environment (the defaults make the full run; BENCH_QUICK=1 is a smoke run):
#   BENCH_PARTS="throughput memory types streams expiry fields aof eviction scripting index notify tracking dehydrator iothreads monitor"
#                        (arguments win)
#   BENCH_QUICK=1        100k requests/keys, one round, a short index bench,
#                        the types part's smaller shapes (shapes.py --quick)
#   BENCH_ROUNDS=3       throughput rounds       BENCH_N=1000000 requests a run
#   BENCH_PIPELINES="1 16"                       BENCH_TESTS="set get setex"
#   BENCH_TYPES_STEPS="memory throughput"        BENCH_TYPES_TESTS (the types
#                        part's tests, default all: hset ... zpopmin pfadd
#                        pfadd_sparse pfcount pfcount_union geosearch)
#   BENCH_CEILING=1      also run the ceiling server (0: skip it)
#   BENCH_MEM_KEYS=1000000   BENCH_EXPIRY_KEYS=1000000   BENCH_EXPIRY_ROUNDS=3
#   BENCH_INDEX_ARGS     extra arguments for build/bench-expiry
#   BENCH_PROFILE_N      requests per profiled run (default BENCH_N / 10)
#   BENCH_EVICT_STEPS="hits cliff instr probe"   BENCH_EVICT_ROUNDS=3 (cliff)
#   BENCH_EVICT_HIT_ROUNDS=1  trace seeds for BENCH_EVICT_TARGETS="allkeys-lru
#                        allkeys-lfu" (the other policies: seed 1 only)
#   BENCH_EVICT_POLICIES="allkeys-lru allkeys-lfu allkeys-random volatile-lru
#                         volatile-lfu volatile-ttl"
#   BENCH_EVICT_FILL_MB=1024 (probe)   BENCH_EVICT_PROBE_ROUNDS=1
#   BENCH_SCRIPT_STEPS="throughput loop memory instr"
#   BENCH_SCRIPT_TESTS="lock release ratelimit jobstep"
#   BENCH_SCRIPT_LOOP=1000000   BENCH_SCRIPT_CACHE=10000
#   LAWNKV_BASELINE      the earlier lawnkv binary for the baseline part
#   REDIS74_SERVER       a Redis 7.4 binary for the fields part (optional)
#   BENCH_BASELINE_PIPELINES=16
#   BENCH_OUT=bench/results  where latest.md, the PNG charts and raw/ go
#   LAWNKV_SERVER=build/lawnkv-server   REDIS_SERVER=redis-server
#   BENCH_EXPIRY_BIN=build/bench-expiry
#   LAWNKV_SOURCE  what the lawnkv binary was built from, for the report
#                  (default: this checkout's commit and its uncommitted files)
#
# Servers listen on free loopback ports (never 6379), without persistence
# (--save '' --appendonly no), and are stopped by PID when the script exits.
# The lawnkv binary is copied first, so a rebuild during the run changes nothing.
# Raw results go to $BENCH_OUT/raw/, one set of files per part; the report
# (bench/server/report.py) turns whatever parts are there into latest.md and
# the charts, so a part run alone updates its section and keeps the others.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then d_n=100000 d_rounds=1 d_keys=100000; else d_n=1000000 d_rounds=3 d_keys=1000000; fi
PARTS=${BENCH_PARTS:-"throughput memory types streams expiry fields aof eviction scripting index notify tracking dehydrator iothreads monitor"}
[ $# -gt 0 ] && PARTS="$*"
ROUNDS=${BENCH_ROUNDS:-$d_rounds}
N=${BENCH_N:-$d_n}
PIPELINES=${BENCH_PIPELINES:-"1 16"}
TESTS=${BENCH_TESTS:-"set get setex"}
CEILING=${BENCH_CEILING:-1}
MEM_KEYS=${BENCH_MEM_KEYS:-$d_keys}
EXP_KEYS=${BENCH_EXPIRY_KEYS:-$d_keys}
EXP_ROUNDS=${BENCH_EXPIRY_ROUNDS:-$d_rounds}
EVICT_STEPS=${BENCH_EVICT_STEPS:-"hits cliff instr probe"}
EVICT_ROUNDS=${BENCH_EVICT_ROUNDS:-$d_rounds}
EVICT_HIT_ROUNDS=${BENCH_EVICT_HIT_ROUNDS:-1}
EVICT_POLICIES=${BENCH_EVICT_POLICIES:-"allkeys-lru allkeys-lfu allkeys-random volatile-lru volatile-lfu volatile-ttl"}
EVICT_TARGETS=${BENCH_EVICT_TARGETS:-"allkeys-lru allkeys-lfu"}
if [ "$QUICK" = 1 ]; then d_fill=128; else d_fill=1024; fi
EVICT_FILL_MB=${BENCH_EVICT_FILL_MB:-$d_fill}
EVICT_PROBE_ROUNDS=${BENCH_EVICT_PROBE_ROUNDS:-1}
BASELINE_PIPELINES=${BENCH_BASELINE_PIPELINES:-16}
SCRIPT_STEPS=${BENCH_SCRIPT_STEPS:-"throughput loop memory instr"}
SCRIPT_TESTS=${BENCH_SCRIPT_TESTS:-"lock release ratelimit jobstep"}
SCRIPT_LOOP=${BENCH_SCRIPT_LOOP:-1000000}
if [ "$QUICK" = 1 ]; then d_cache=1000; else d_cache=10000; fi
SCRIPT_CACHE=${BENCH_SCRIPT_CACHE:-$d_cache}
OUT=${BENCH_OUT:-bench/results}
RAW=$OUT/raw
LAWNKV_SRC=${LAWNKV_SERVER:-build/lawnkv-server}
REDIS_BIN=${REDIS_SERVER:-$(command -v redis-server || echo redis-server)}
CXX=${CXX:-g++}

for tool in redis-benchmark redis-cli gnuplot python3 "$CXX"; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (make deps-bench installs it)" >&2; exit 1; }
done
[ -x "$LAWNKV_SRC" ] || { echo "bench: $LAWNKV_SRC not built (make $LAWNKV_SRC)" >&2; exit 1; }
[ -x "$REDIS_BIN" ] || REDIS_BIN=$(command -v "$REDIS_BIN") || { echo "bench: redis-server not found" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lawnkv-bench.XXXXXX")
LAWNKV_BIN=$WORK/lawnkv-server
cp "$LAWNKV_SRC" "$LAWNKV_BIN"
REDIS74_BIN=${REDIS74_SERVER:-}
BASELINE_BIN=""
if [ -n "${LAWNKV_BASELINE:-}" ]; then
  BASELINE_BIN=$WORK/lawnkv-baseline
  cp "$LAWNKV_BASELINE" "$BASELINE_BIN"
fi
mkdir -p "$RAW" "$ROOT/build/bench"
STARTED=()

cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${STARTED[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }

# Builds a bench tool from its source when the binary is missing or older.
build_tool() {  # build_tool OUT SRC [LIBS...]
  local out=$1 src=$2
  shift 2
  if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
    log "building $out"
    "$CXX" -O2 -std=c++20 -Wall -Wextra -o "$out" "$src" "$@"
  fi
}

# Records a command line for the report (one file per part, no repeats), with
# the scratch directory and the checkout's path left out.
note_cmd() {  # note_cmd PART WORDS...
  local part=$1
  shift
  local line
  line=$(printf '%q ' "$@")
  line=${line% }
  line=${line//$LAWNKV_BIN/$LAWNKV_SRC}
  [ -z "$BASELINE_BIN" ] || line=${line//$BASELINE_BIN/$LAWNKV_BASELINE}
  line=${line//$WORK\//}
  line=${line//$WORK/WORKDIR}
  line=${line//$ROOT\//}
  note_line "$part" "$line"
}

# Records a line as it is (a comment, a redirection) in PART's .cmds, once.
note_line() {  # note_line PART LINE
  grep -qxF -- "$2" "$RAW/$1.cmds" 2>/dev/null || printf '%s\n' "$2" >>"$RAW/$1.cmds"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A port nothing listens on, below Linux's ephemeral range (32768 and up),
# so no client connection holds it either.
free_port() {
  local p=$((20000 + RANDOM % 12000))
  while port_in_use "$p"; do p=$((20000 + RANDOM % 12000)); done
  echo "$p"
}

# Starts a server of KIND (lawnkv|redis|ceiling) on a free loopback port and
# waits until it answers PING; ARGS are more directives (later ones win).
# Sets SRV_PID and SRV_PORT.
start_server() {  # start_server KIND PART [ARGS...]
  local kind=$1 part=$2 port _
  shift 2
  local extra=("$@")
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    local cmd
    case $kind in
      lawnkv) cmd=("$LAWNKV_BIN" --port "$port" --bind 127.0.0.1 --save '' --appendonly no
                   --logfile "$WORK/lawnkv-$port.log") ;;
      redis) cmd=("$REDIS_BIN" --port "$port" --bind 127.0.0.1 --save '' --appendonly no
                  --dir "$WORK" --logfile "$WORK/redis-$port.log") ;;
      ceiling) cmd=("$CEILING_BIN" --port "$port" --bind 127.0.0.1) ;;
      redis74) cmd=("$REDIS74_BIN" --port "$port" --bind 127.0.0.1 --save '' --appendonly no
                    --dir "$WORK" --logfile "$WORK/redis74-$port.log") ;;
      baseline) cmd=("$BASELINE_BIN" --port "$port" --bind 127.0.0.1 --save '' --appendonly no
                     --logfile "$WORK/baseline-$port.log") ;;
    esac
    cmd+=("${extra[@]}")
    "${cmd[@]}" >"$WORK/$kind-$port.out" 2>&1 &
    SRV_PID=$!
    STARTED+=("$SRV_PID")
    local i
    for i in $(seq 100); do
      kill -0 "$SRV_PID" 2>/dev/null || break
      if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then
        SRV_PORT=$port
        note_cmd "$part" "${cmd[@]/$port/PORT}"
        return 0
      fi
      sleep 0.1
    done
    log "$kind did not start on port $port; retrying"
    kill -KILL "$SRV_PID" 2>/dev/null || true
    wait "$SRV_PID" 2>/dev/null || true
  done
  echo "bench: cannot start $kind" >&2
  cat "$WORK"/"$kind"-*.out >&2 || true
  exit 1
}

stop_server() {  # stop_server PID
  local pid=$1 i keep=() p
  for p in "${STARTED[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
  STARTED=("${keep[@]}")
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# "utime stime" of a process, in clock ticks.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12, $13 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
info_field() { redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v k="$3" '$1 == k { print $2 }'; }

machine_info() {
  {
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "nproc=$(nproc)"
    echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    echo "kernel=$(uname -sr)"
    echo "memory=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "lawnkv=$("$LAWNKV_BIN" --version)"
    echo "redis=$("$REDIS_BIN" --version)"
    echo "redis_benchmark=$(redis-benchmark --version)"
    if [ -n "${LAWNKV_SOURCE:-}" ]; then
      echo "source=$LAWNKV_SOURCE"
    else
      echo "source=commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(
        n=$(git status --porcelain -- src 2>/dev/null | wc -l); [ "$n" = 0 ] || echo " + $n uncommitted files under src/")"
    fi
    [ -z "$BASELINE_BIN" ] || echo "baseline=$("$BASELINE_BIN" --version) ($LAWNKV_BASELINE)"
    echo "quick=$QUICK"
  } >"$RAW/machine.txt"
}

# ---------------------------------------------------------------- throughput
# The redis-benchmark arguments of each test, besides -p -n -c 50 -P, which
# every run has. The string tests (throughput part) write 16-byte values over
# a million keys; the data-type tests (types part) keep redis-benchmark's
# defaults: one key, one member or field unless -r is given, 3-byte values.
bench_args() {  # bench_args TEST -> the redis-benchmark arguments for a test
  case $1 in
    set) echo "-r 1000000 -d 16 -t set" ;;
    get) echo "-r 1000000 -d 16 -t get" ;;
    setex) echo "-r 1000000 -d 16 set key:__rand_int__ 0123456789abcdef EX 100" ;;
    hset) echo "-t hset" ;;
    hget) echo "-r 100000 HGET myhash element:__rand_int__" ;;
    sadd) echo "-t sadd" ;;
    sismember) echo "-r 200000 SISMEMBER myset element:__rand_int__" ;;
    spop) echo "-t spop" ;;
    lpush) echo "-t lpush" ;;
    rpop) echo "-t rpop" ;;
    # What -t lrange_100 times, without the N LPUSHes it sends first in the
    # same run (types_fill sends them before), so the CPU per request is
    # LRANGE's alone.
    lrange_100) echo "LRANGE mylist 0 99" ;;
    zadd) echo "-r 100000 -t zadd" ;;
    zrangebyscore) echo "ZRANGEBYSCORE myzset 0 +inf LIMIT 0 10" ;;
    zpopmin) echo "-t zpopmin" ;;
    # HyperLogLog: PFADD of random elements into one dense HLL (types_fill
    # makes it dense first), into 100,000 small sparse ones, and PFCOUNT of
    # the dense one: answered from its cached count, and (twice the key) as
    # a union, which recounts every time.
    pfadd) echo "-r 100000000 PFADD hll element:__rand_int__" ;;
    pfadd_sparse) echo "-r 100000 PFADD hll:__rand_int__ element:__rand_int__" ;;
    pfcount) echo "PFCOUNT hll" ;;
    pfcount_union) echo "PFCOUNT hll hll" ;;
    # A store locator's query: the members within 1.5 km of a point, 72 of
    # the 100,000 GEO_POINTS (types_fill), among the few hundred the cells
    # searched hold.
    geosearch) echo "GEOSEARCH geo FROMLONLAT 13.5 38.5 BYRADIUS 1.5 km" ;;
    # The scripting part's EVALSHA tests (bench/scripting/README.md), by the
    # sha1 of each script file, which scripting_fill loads.
    lock) echo "-r 1000000 EVALSHA $(script_sha lock_release) 1 lock:__rand_int__ token-0123456789" ;;
    release) echo "-r 1000000 EVALSHA $(script_sha release_only) 1 lock:__rand_int__ token-0123456789" ;;
    ratelimit) echo "-r 100000 EVALSHA $(script_sha rate_limit) 1 rate:__rand_int__ 60000" ;;
    jobstep) echo "-r 10000 EVALSHA $(script_sha job_step) 7 q:wait q:active q:job:__rand_int__ q:lock:__rand_int__" \
                  "q:started q:prioritized q:meta token-0123456789 1700000000000" ;;
    *) echo "bench: unknown test $1" >&2; exit 2 ;;
  esac
}

# Every timed run starts from the same keyspace (-r 1000000): about 63% of
# the keys, set without a TTL just before the run, so no run pays for the
# tables' growth, and none shares the server with the keys an earlier SET
# ... EX 100 run left to expire (Redis, expiring them in the SET and GET
# runs that followed 100 s later, spent 3.1 µs of CPU per SET at -P 16
# there, 2.2 µs from a clean keyspace).
throughput_fill() {  # throughput_fill PART PORT [TEST]
  note_cmd "$1" redis-cli -p PORT flushall
  note_cmd "$1" redis-benchmark -p PORT -n "$N" -r 1000000 -d 16 -c 50 -P 16 -t set -q
  redis-cli -p "$2" flushall >/dev/null
  redis-benchmark -p "$2" -n "$N" -r 1000000 -d 16 -c 50 -P 16 -t set -q >/dev/null
}

THROUGHPUT_HEAD='round\tpipeline\ttest\tserver\trps\tavg_ms\tp50_ms\tp99_ms\tmax_ms\tcpu_ticks\tclk_tck\trequests\twall_s\tuser_ticks\n'

# One timed redis-benchmark run: a row of throughput.tsv's format in FILE.
throughput_run() {  # throughput_run FILE PART KIND PORT PID ROUND PIPELINE TEST
  local f=$1 part=$2 k=$3 port=$4 pid=$5 round=$6 p=$7 t=$8 args u0 s0 u1 s1 w0 w1 csv hz
  hz=$(getconf CLK_TCK)
  # shellcheck disable=SC2207
  args=($(bench_args "$t"))
  note_cmd "$part" redis-benchmark -p PORT -n "$N" -c 50 -P "$p" --csv "${args[@]}"
  read -r u0 s0 <<<"$(cpu_ticks "$pid")"
  w0=$(date +%s.%N)
  csv=$(redis-benchmark -p "$port" -n "$N" -c 50 -P "$p" --csv "${args[@]}" | tail -1)
  w1=$(date +%s.%N)
  read -r u1 s1 <<<"$(cpu_ticks "$pid")"
  # "test","rps","avg","min","p50","p95","p99","max"
  IFS=, read -r _ rps avg _ p50 _ p99 max <<<"${csv//\"/}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n' "$round" "$p" "$t" "$k" "$rps" "$avg" \
    "$p50" "$p99" "$max" "$((u1 + s1 - u0 - s0))" "$hz" "$N" \
    "$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')" "$((u1 - u0))" >>"$f"
  log "$part round $round -P $p $t $k: $rps ops/s p50 $p50 p99 $p99 ms, cpu $((u1 + s1 - u0 - s0)) ticks" \
    "($((u1 - u0)) user)"
}

# TESTS against KINDS, BENCH_ROUNDS rounds, the order of the servers
# rotating each round, so none always runs first or last. Before each run
# (the ceiling server's excepted: it stores nothing), FILL PART PORT TEST
# gives the server the keyspace the test needs.
throughput_rounds() {  # throughput_rounds FILE PART "PIPELINES" "TESTS" FILL KINDS...
  local f=$1 part=$2 pipelines=$3 tests=$4 fill=$5
  shift 5
  local kinds=("$@") k round p t i n_kinds=$#
  declare -A srv_pid srv_port
  for k in "${kinds[@]}"; do
    start_server "$k" "$part"
    srv_pid[$k]=$SRV_PID srv_port[$k]=$SRV_PORT
  done
  printf "$THROUGHPUT_HEAD" >"$f"
  for round in $(seq "$ROUNDS"); do
    for p in $pipelines; do
      for t in $tests; do
        for i in $(seq 0 $((n_kinds - 1))); do
          k=${kinds[$(((i + round - 1) % n_kinds))]}
          [ "$k" = ceiling ] || "$fill" "$part" "${srv_port[$k]}" "$t"
          throughput_run "$f" "$part" "$k" "${srv_port[$k]}" "${srv_pid[$k]}" "$round" "$p" "$t"
        done
      done
    done
  done
  for k in "${kinds[@]}"; do stop_server "${srv_pid[$k]}"; done
}

# Sets KINDS to the servers a throughput comparison runs: lawnkv, redis and,
# unless BENCH_CEILING=0, the ceiling server (built first if need be).
throughput_kinds() {
  KINDS=(lawnkv redis)
  if [ "$CEILING" = 1 ]; then
    CEILING_BIN=$ROOT/build/bench/ceiling-server
    build_tool "$CEILING_BIN" bench/ceiling/ceiling_server.cpp
    KINDS+=(ceiling)
  fi
}

part_throughput() {
  rm -f "$RAW/throughput.tsv" "$RAW/throughput.cmds"
  throughput_kinds
  throughput_rounds "$RAW/throughput.tsv" throughput "$PIPELINES" "$TESTS" throughput_fill "${KINDS[@]}"
}

# -------------------------------------------------------------------- memory
# Writes the RESP stream of COUNT SETs (16-byte names and values), with
# "EX 100000" when TTL is 1, for redis-cli --pipe.
gen_sets() {  # gen_sets COUNT TTL FILE
  awk -v n="$1" -v ttl="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      if (ttl) printf "*5\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nval:%012d\r\n$2\r\nEX\r\n$6\r\n100000\r\n", i, i
      else printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nval:%012d\r\n", i, i
    } }' >"$3"
}

part_memory() {
  local f=$RAW/memory.tsv k ttl
  rm -f "$f" "$RAW/memory.cmds"
  gen_sets "$MEM_KEYS" 0 "$WORK/sets-plain.resp"
  gen_sets "$MEM_KEYS" 1 "$WORK/sets-ttl.resp"
  echo "# sets-plain.resp, sets-ttl.resp: $MEM_KEYS x SET key:%012d val:%012d [EX 100000] as RESP (gen_sets in scripts/bench.sh)" \
    >"$RAW/memory.cmds"
  printf 'server\tttl\tkeys\trss_empty_kb\trss_full_kb\tused_empty\tused_full\n' >"$f"
  for ttl in 0 1; do
    for k in lawnkv redis; do
      start_server "$k" memory
      local file=sets-plain.resp
      [ "$ttl" = 1 ] && file=sets-ttl.resp
      sleep 0.5
      local r0 u0 r1 u1 keys
      r0=$(rss_kb "$SRV_PID")
      u0=$(info_field "$SRV_PORT" memory used_memory)
      grep -qxF "redis-cli -p PORT --pipe < $file" "$RAW/memory.cmds" ||
        echo "redis-cli -p PORT --pipe < $file" >>"$RAW/memory.cmds"
      redis-cli -p "$SRV_PORT" --pipe <"$WORK/$file" >"$WORK/pipe.out"
      keys=$(redis-cli -p "$SRV_PORT" dbsize)
      [ "$keys" = "$MEM_KEYS" ] || { echo "bench: $k holds $keys keys, not $MEM_KEYS" >&2; cat "$WORK/pipe.out" >&2; exit 1; }
      sleep 1
      r1=$(rss_kb "$SRV_PID")
      u1=$(info_field "$SRV_PORT" memory used_memory)
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$ttl" "$keys" "$r0" "$r1" "$u0" "$u1" >>"$f"
      log "memory $k ttl=$ttl: RSS $r0 -> $r1 kB, used_memory $u0 -> $u1"
      stop_server "$SRV_PID"
    done
  done
}

# --------------------------------------------------------------------- types
# The four data types beside Redis: memory per element of the shapes of
# bench/types/shapes.py, then redis-benchmark -P 16 of each type's commands
# (TYPES_TESTS) as the throughput part runs its tests.
TYPES_TESTS=${BENCH_TYPES_TESTS:-"hset hget sadd sismember spop lpush rpop lrange_100 zadd zrangebyscore zpopmin
  pfadd pfadd_sparse pfcount pfcount_union geosearch"}
TYPES_STEPS=${BENCH_TYPES_STEPS:-"memory throughput"}

part_types() {
  rm -f "$RAW"/types-* "$RAW/types.cmds"
  case " $TYPES_STEPS " in *" memory "*) types_memory ;; esac
  case " $TYPES_STEPS " in *" throughput "*) types_throughput ;; esac
}

# RESP of GEO_POINTS points spread uniformly (a fixed seed) over the square
# of one degree from longitude 13, latitude 38 (about 88 x 111 km), as
# GEOADDs of 100 points to "geo", members m:000000, m:000001...
GEO_POINTS=100000
gen_geo_points() {  # gen_geo_points FILE
  awk -v n="$GEO_POINTS" 'BEGIN {
    srand(24)
    for (i = 0; i < n; i += 100) {
      printf "*302\r\n$6\r\nGEOADD\r\n$3\r\ngeo\r\n"
      for (j = i; j < i + 100; j++) {
        lon = sprintf("%.6f", 13 + rand()); lat = sprintf("%.6f", 38 + rand()); m = sprintf("m:%06d", j)
        printf "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat, length(m), m
      }
    } }' >"$1"
}

# Each shape in a fresh server of each kind, both started with
# set-max-intset-entries 10000 (the 10,000-member intsets): INFO used_memory
# of the empty server, the shape's RESP through redis-cli --pipe, used_memory
# again, MEMORY USAGE and OBJECT ENCODING of key:000000.
types_memory() {
  local f=$RAW/types-memory.tsv gen=bench/types/shapes.py q=() id type keys per desc k file
  [ "$QUICK" = 1 ] && q=(--quick)
  printf 'shape\ttype\tkeys\tper_key\tserver\tused_empty\tused_full\tusage\tencoding\tdescription\n' >"$f"
  note_line types "# SHAPE.resp: python3 $gen resp SHAPE${q[*]:+ ${q[*]}} (the shapes: python3 $gen list${q[*]:+ ${q[*]}})"
  python3 "$gen" list "${q[@]}" >"$WORK/shapes.tsv"
  while IFS=$'\t' read -r id type keys per desc; do
    file=$WORK/$id.resp
    python3 "$gen" resp "$id" "${q[@]}" >"$file"
    for k in lawnkv redis; do
      start_server "$k" types --set-max-intset-entries 10000
      sleep 0.5
      local u0 u1 n usage enc
      u0=$(info_field "$SRV_PORT" memory used_memory)
      note_line types "redis-cli -p PORT --pipe < SHAPE.resp"
      redis-cli -p "$SRV_PORT" --pipe <"$file" >"$WORK/pipe.out"
      n=$(redis-cli -p "$SRV_PORT" dbsize)
      if [ "$n" != "$keys" ] || ! grep -q 'errors: 0,' "$WORK/pipe.out"; then
        echo "bench: $k holds $n keys after $id, not $keys" >&2
        cat "$WORK/pipe.out" >&2
        exit 1
      fi
      sleep 1
      u1=$(info_field "$SRV_PORT" memory used_memory)
      note_cmd types redis-cli -p PORT memory usage key:000000 samples 0
      note_cmd types redis-cli -p PORT object encoding key:000000
      usage=$(redis-cli -p "$SRV_PORT" memory usage key:000000 samples 0)
      enc=$(redis-cli -p "$SRV_PORT" object encoding key:000000)
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$type" "$keys" "$per" "$k" "$u0" "$u1" \
        "$usage" "$enc" "$desc" >>"$f"
      log "types memory $id $k: used_memory $u0 -> $u1," \
        "$(awk -v a="$u0" -v b="$u1" -v n="$((keys * per))" 'BEGIN { printf "%.1f", (b - a) / n }') B/element ($enc)"
      stop_server "$SRV_PID"
    done
    rm -f "$file"
  done <"$WORK/shapes.tsv"
}

# The keyspace a data-type test needs, after FLUSHALL: ~98,000 fields or
# members for the lookups, ~N members or elements for the pops (so they pop
# from a full structure rather than a missing key), the N LPUSHes of
# -t lrange_100 for LRANGE, ~98,000 members for ZRANGEBYSCORE.
types_fill() {  # types_fill PART PORT TEST
  local part=$1 port=$2 args=()
  case $3 in
    hget) args=(-n 400000 -r 100000 HSET myhash element:__rand_int__ xxx) ;;
    sismember) args=(-n 400000 -r 100000 SADD myset element:__rand_int__) ;;
    spop) args=(-n "$N" -r 1000000000 SADD myset element:__rand_int__) ;;
    rpop|lrange_100) args=(-n "$N" -t lpush) ;;
    zrangebyscore) args=(-n 400000 -r 100000 -t zadd) ;;
    zpopmin) args=(-n "$N" -r 1000000000 -t zadd) ;;
    pfadd|pfcount|pfcount_union) args=(-n 100000 -r 100000000 PFADD hll element:__rand_int__) ;;
  esac
  note_cmd "$part" redis-cli -p PORT flushall
  redis-cli -p "$port" flushall >/dev/null
  if [ "$3" = geosearch ]; then
    [ -s "$WORK/geo.resp" ] || gen_geo_points "$WORK/geo.resp"
    note_line "$part" "# geo.resp: gen_geo_points in scripts/bench.sh ($GEO_POINTS GEOADDed points)"
    note_line "$part" "redis-cli -p PORT --pipe < geo.resp"
    redis-cli -p "$port" --pipe <"$WORK/geo.resp" >/dev/null
    return 0
  fi
  [ ${#args[@]} = 0 ] && return 0
  note_cmd "$part" redis-benchmark -p PORT -c 50 -P 16 -q "${args[@]}"
  redis-benchmark -p "$port" -c 50 -P 16 -q "${args[@]}" >/dev/null
}

types_throughput() {
  throughput_kinds
  throughput_rounds "$RAW/types-throughput.tsv" types 16 "$TYPES_TESTS" types_fill "${KINDS[@]}"
}

# ------------------------------------------------------------------- streams
# Streams beside Redis: INFO used_memory per entry of STREAM_ENTRIES entries
# of two short fields, then the server's CPU time per request at -P 16
# (/proc/PID/stat around the run), BENCH_ROUNDS rounds, the two servers
# alternating:
#   xadd            redis-benchmark XADD s * f1 val0000001 f2 val0000002, after FLUSHALL
#   xrange_10       redis-benchmark XRANGE s - + COUNT 10 on STREAM_ENTRIES entries
#   xreadgroup_ack  bench/streams/group_read.cpp: XREADGROUP COUNT 10, then XACK
#                   of the 10 IDs, pairs pipelined 16 requests deep, over
#                   STREAM_ENTRIES entries 1-1, 2-1, ... (every entry read once)
#   xpending_10     redis-benchmark XPENDING s g - + 10 and
#   xautoclaim_10   XAUTOCLAIM s g c2 0 0-0 COUNT 10, with the STREAM_ENTRIES
#                   entries pending (one XREADGROUP delivered them all): each
#                   request returns 10 entries whatever the number pending
STREAM_ENTRIES=${BENCH_STREAM_ENTRIES:-$d_keys}
STREAM_TESTS=${BENCH_STREAM_TESTS:-"xadd xrange_10 xreadgroup_ack xpending_10 xautoclaim_10"}

# RESP of COUNT XADDs to "s" of two fields (f1, f2: 10-byte values), with
# IDs "*" or, when EXPLICIT is 1, 1-1, 2-1, ...
gen_stream() {  # gen_stream COUNT EXPLICIT FILE
  awk -v n="$1" -v explicit="$2" 'BEGIN {
    for (i = 1; i <= n; i++) {
      id = explicit ? i "-1" : "*"
      printf "*7\r\n$4\r\nXADD\r\n$1\r\ns\r\n$%d\r\n%s\r\n$2\r\nf1\r\n$10\r\nval%07d\r\n$2\r\nf2\r\n$10\r\nval%07d\r\n", length(id), id, i, i + 1
    } }' >"$3"
}

# FLUSHALL, then the stream a test needs (see above).
streams_fill() {  # streams_fill PORT TEST
  local port=$1 file
  note_cmd streams redis-cli -p PORT flushall
  redis-cli -p "$port" flushall >/dev/null
  case $2 in
    xadd) return 0 ;;
    xrange_10) file=stream-auto.resp ;;
    *) file=stream-explicit.resp ;;
  esac
  note_line streams "redis-cli -p PORT --pipe < $file"
  redis-cli -p "$port" --pipe <"$WORK/$file" >"$WORK/pipe.out"
  [ "$(redis-cli -p "$port" xlen s)" = "$STREAM_ENTRIES" ] || { echo "bench: stream fill failed" >&2; cat "$WORK/pipe.out" >&2; exit 1; }
  case $2 in
    xreadgroup_ack|xpending_10|xautoclaim_10)
      note_cmd streams redis-cli -p PORT xgroup create s g 0
      redis-cli -p "$port" xgroup create s g 0 >/dev/null ;;
  esac
  case $2 in
    xpending_10|xautoclaim_10)
      note_cmd streams redis-cli -p PORT xreadgroup group g c count "$STREAM_ENTRIES" streams s '>'
      redis-cli -p "$port" xreadgroup group g c count "$STREAM_ENTRIES" streams s '>' >/dev/null ;;
  esac
}

part_streams() {
  local group_read=$ROOT/build/bench/group-read f=$RAW/streams-cpu.tsv m=$RAW/streams-memory.tsv
  rm -f "$RAW"/streams-* "$RAW/streams.cmds"
  build_tool "$group_read" bench/streams/group_read.cpp -lhiredis
  gen_stream "$STREAM_ENTRIES" 0 "$WORK/stream-auto.resp"
  gen_stream "$STREAM_ENTRIES" 1 "$WORK/stream-explicit.resp"
  note_line streams "# stream-auto.resp, stream-explicit.resp: $STREAM_ENTRIES x XADD s <* or i-1> f1 val%07d f2 val%07d as RESP (gen_stream in scripts/bench.sh)"
  local kinds=(lawnkv redis) k round t i u0 s0 u1 s1 w0 w1 hz
  hz=$(getconf CLK_TCK)
  declare -A srv_pid srv_port
  for k in "${kinds[@]}"; do
    start_server "$k" streams
    srv_pid[$k]=$SRV_PID srv_port[$k]=$SRV_PORT
  done
  printf 'server\tentries\tused_empty\tused_full\trss_empty_kb\trss_full_kb\n' >"$m"
  for k in "${kinds[@]}"; do
    local ue ur re rr
    redis-cli -p "${srv_port[$k]}" flushall >/dev/null
    sleep 0.5
    ue=$(info_field "${srv_port[$k]}" memory used_memory)
    re=$(rss_kb "${srv_pid[$k]}")
    streams_fill "${srv_port[$k]}" xrange_10
    sleep 1
    ur=$(info_field "${srv_port[$k]}" memory used_memory)
    rr=$(rss_kb "${srv_pid[$k]}")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$STREAM_ENTRIES" "$ue" "$ur" "$re" "$rr" >>"$m"
    log "streams memory $k: used_memory $ue -> $ur," \
      "$(awk -v a="$ue" -v b="$ur" -v n="$STREAM_ENTRIES" 'BEGIN { printf "%.1f", (b - a) / n }') B/entry"
  done
  printf 'round\ttest\tserver\trequests\tper_request\tcpu_ticks\tclk_tck\twall_s\n' >"$f"
  for round in $(seq "$ROUNDS"); do
    for t in $STREAM_TESTS; do
      for i in 0 1; do
        k=${kinds[$(((i + round - 1) % 2))]}
        local port=${srv_port[$k]} pid=${srv_pid[$k]} n=$N per=1 args=()
        streams_fill "$port" "$t"
        case $t in
          xadd) args=(XADD s '*' f1 val0000001 f2 val0000002) ;;
          xrange_10) args=(XRANGE s - + COUNT 10) per=10 ;;
          xpending_10) args=(XPENDING s g - + 10) per=10 ;;
          xautoclaim_10) args=(XAUTOCLAIM s g c2 0 0-0 COUNT 10) per=10 ;;
          xreadgroup_ack) n=$((STREAM_ENTRIES / 10 * 2)) per=10 ;;
        esac
        read -r u0 s0 <<<"$(cpu_ticks "$pid")"
        w0=$(date +%s.%N)
        if [ "$t" = xreadgroup_ack ]; then
          note_cmd streams build/bench/group-read --port PORT --entries "$STREAM_ENTRIES" --count 10 --pipeline 16
          "$group_read" --port "$port" --entries "$STREAM_ENTRIES" --count 10 --pipeline 16 >"$WORK/group-read.out"
        else
          note_cmd streams redis-benchmark -p PORT -n "$n" -c 50 -P 16 -q "${args[@]}"
          redis-benchmark -p "$port" -n "$n" -c 50 -P 16 -q "${args[@]}" >/dev/null
        fi
        w1=$(date +%s.%N)
        read -r u1 s1 <<<"$(cpu_ticks "$pid")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\n' "$round" "$t" "$k" "$n" "$per" "$((u1 + s1 - u0 - s0))" "$hz" \
          "$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')" >>"$f"
        log "streams round $round $t $k: $n requests, cpu $((u1 + s1 - u0 - s0)) ticks," \
          "$(awk -v c="$((u1 + s1 - u0 - s0))" -v h="$hz" -v n="$n" 'BEGIN { printf "%.2f", c / h / n * 1e6 }') us/request"
      done
    done
  done
  for k in "${kinds[@]}"; do stop_server "${srv_pid[$k]}"; done
}

# -------------------------------------------------------------------- expiry
part_expiry() {
  local drain=$ROOT/build/bench/expiry-drain round i k
  rm -f "$RAW"/expiry-* "$RAW/expiry.cmds"
  build_tool "$drain" bench/server/expiry_drain.cpp -lhiredis -lpthread
  local kinds=(lawnkv redis)
  for round in $(seq "$EXP_ROUNDS"); do
    for i in 0 1; do
      k=${kinds[$(((i + round - 1) % 2))]}
      start_server "$k" expiry
      note_cmd expiry build/bench/expiry-drain --port PORT --keys "$EXP_KEYS" --spread-ms 1000 --poll-ms 2 \
        --probe-us 1000 --seed "$round" --series "expiry-SERVER-ROUND.dat"
      if ! "$drain" --port "$SRV_PORT" --keys "$EXP_KEYS" --spread-ms 1000 --poll-ms 2 --probe-us 1000 \
          --seed "$round" --series "$RAW/expiry-$k-$round.dat" >"$RAW/expiry-$k-$round.txt"; then
        log "expiry $k round $round: did not drain (see $RAW/expiry-$k-$round.txt)"
      fi
      log "expiry $k round $round: $(grep -E '^(drain_ms|probe_p99_us|probe_max_us)=' "$RAW/expiry-$k-$round.txt" | tr '\n' ' ')"
      stop_server "$SRV_PID"
    done
  done
}

# -------------------------------------------------------------------- fields
# Hash-field TTLs: EXP_KEYS fields in 1,000 hashes, due within one second.
part_fields() {
  local drain=$ROOT/build/bench/expiry-drain round k kinds=(lawnkv)
  rm -f "$RAW"/fields-* "$RAW/fields.cmds"
  build_tool "$drain" bench/server/expiry_drain.cpp -lhiredis -lpthread
  [ -n "$REDIS74_BIN" ] && kinds+=(redis74)
  for round in $(seq "$EXP_ROUNDS"); do
    for k in "${kinds[@]}"; do
      start_server "$k" fields
      note_cmd fields build/bench/expiry-drain --port PORT --keys "$EXP_KEYS" --hashes 1000 --events 1 \
        --spread-ms 1000 --poll-ms 2 --probe-us 1000 --seed "$round"
      if ! "$drain" --port "$SRV_PORT" --keys "$EXP_KEYS" --hashes 1000 --events 1 --spread-ms 1000 \
          --poll-ms 2 --probe-us 1000 --seed "$round" --series "$RAW/fields-$k-$round.dat" \
          >"$RAW/fields-$k-$round.txt"; then
        log "fields $k round $round: did not drain (see $RAW/fields-$k-$round.txt)"
      fi
      log "fields $k round $round: $(grep -E '^(drain_ms|probe_p99_us|event_lag_p99_ms)=' "$RAW/fields-$k-$round.txt" | tr '\n' ' ')"
      stop_server "$SRV_PID"
    done
  done
}

# ----------------------------------------------------------------------- aof
# SET at -P 16 with appendonly yes, appendfsync everysec and always, each
# server in a fresh directory, alternated, BENCH_ROUNDS rounds.
part_aof() {
  local f=$RAW/aof.tsv policy round i k d ops
  rm -f "$f" "$RAW/aof.cmds"
  printf 'policy\tserver\tround\tops\n' >"$f"
  local kinds=(lawnkv redis)
  for policy in everysec always; do
    for round in $(seq "$ROUNDS"); do
      for i in 0 1; do
        k=${kinds[$(((i + round - 1) % 2))]}
        d=$(mktemp -d "$WORK/aof-XXXXXX")
        start_server "$k" aof --appendonly yes --appendfsync "$policy" --dir "$d"
        [ "$round" = 1 ] && note_cmd aof redis-benchmark -p PORT -n "$N" -r 1000000 -d 16 -c 50 -P 16 -t set -q
        ops=$(redis-benchmark -p "$SRV_PORT" -n "$N" -r 1000000 -d 16 -c 50 -P 16 -t set -q 2>/dev/null |
              tr '\r' '\n' | awk '/requests per second/ { v = $2 } END { print v }')
        printf '%s\t%s\t%s\t%s\n' "$policy" "$k" "$round" "$ops" >>"$f"
        log "aof $policy $k round $round: $ops SET/s"
        stop_server "$SRV_PID"
        rm -rf "$d"
      done
    done
  done
}

# ------------------------------------------------------------------- monitor
# The issue's target: one MONITOR watcher costs the server at most twice the
# work of the command it shows. Server CPU (user + system) per request of
# SET and GET at -P 16, without a monitor and with one redis-cli monitor
# attached (its output thrown away), each server filled once, the servers
# alternated within each round; monitor.md gives the medians and the ratio
# with / without.
part_monitor() {
  local f=$RAW/monitor.tsv k round t mode u0 s0 u1 s1 mon i args
  local -A pid port
  rm -f "$f" "$RAW/monitor.cmds"
  printf 'server\tround\ttest\tmonitor\tcpu_ticks\tclk_tck\trequests\n' >"$f"
  for k in lawnkv redis; do
    start_server "$k" monitor
    pid[$k]=$SRV_PID port[$k]=$SRV_PORT
    throughput_fill monitor "$SRV_PORT"
  done
  note_cmd monitor redis-cli -p PORT monitor
  for round in $(seq "$ROUNDS"); do
    for t in set get; do
      # shellcheck disable=SC2207
      args=($(bench_args "$t"))
      for mode in none one; do
        for k in lawnkv redis; do
          mon=
          if [ "$mode" = one ]; then
            redis-cli -p "${port[$k]}" monitor >/dev/null &
            mon=$!
            for i in $(seq 100); do
              redis-cli -p "${port[$k]}" client list | grep -q 'cmd=monitor' && break
              sleep 0.05
            done
          fi
          [ "$round" = 1 ] && note_cmd monitor redis-benchmark -p PORT -n "$N" -c 50 -P 16 -q "${args[@]}"
          read -r u0 s0 <<<"$(cpu_ticks "${pid[$k]}")"
          redis-benchmark -p "${port[$k]}" -n "$N" -c 50 -P 16 -q "${args[@]}" >/dev/null
          read -r u1 s1 <<<"$(cpu_ticks "${pid[$k]}")"
          if [ -n "$mon" ]; then kill "$mon" 2>/dev/null || true; wait "$mon" 2>/dev/null || true; fi
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$round" "$t" "$mode" "$((u1 + s1 - u0 - s0))" \
            "$(getconf CLK_TCK)" "$N" >>"$f"
          log "monitor round $round $t $k monitor=$mode: cpu $((u1 + s1 - u0 - s0)) ticks"
        done
      done
    done
  done
  for k in lawnkv redis; do stop_server "${pid[$k]}"; done
  python3 - "$f" >"$RAW/monitor.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
ns = {}
for r in rows:
    per = int(r["cpu_ticks"]) * 1e9 / int(r["clk_tck"]) / int(r["requests"])
    ns.setdefault((r["server"], r["test"], r["monitor"]), []).append(per)
print("| server | test | CPU/request, no monitor | one monitor | ratio |")
print("|---|---|---|---|---|")
for server in ("lawnkv", "redis"):
    for test in ("set", "get"):
        a = statistics.median(ns[(server, test, "none")])
        b = statistics.median(ns[(server, test, "one")])
        print(f"| {server} | {test.upper()} | {a:.0f} ns | {b:.0f} ns | {b / a:.2f}x |")
PY
  cat "$RAW/monitor.md" >&2
}

# ------------------------------------------------------------------ eviction
# maxmemory and its policies (bench/eviction/, whose tools say what they do
# in their headers). Each run gets a fresh server, so INFO's counters and the
# allocator start from the same state for both.
part_eviction() {
  local step
  # A step run alone replaces its own results and keeps the others'.
  [ "$EVICT_STEPS" != "hits cliff instr probe" ] || rm -f "$RAW/eviction.cmds"
  for step in $EVICT_STEPS; do
    case $step in
      hits|cliff|instr|probe)
        { date -u '+%Y-%m-%d %H:%M UTC'; echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"; } >"$RAW/eviction-$step.when"
        "evict_$step"
        echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW/eviction-$step.when" ;;
      *) echo "bench: unknown eviction step '$step' (hits cliff instr probe)" >&2; exit 2 ;;
    esac
  done
}

# Hit ratio per policy: bench/eviction/hit_ratio.cpp replays the same trace
# (seed = round) against each server under maxmemory 8mb, then computes exact
# LRU and Belady's optimum offline at the key counts the servers held.
evict_hits() {
  local tool=$ROOT/build/bench/hit-ratio f=$RAW/eviction-hits.tsv round pol i k kinds=(lawnkv redis)
  build_tool "$tool" bench/eviction/hit_ratio.cpp -lhiredis
  rm -f "$RAW"/eviction-hits.tsv "$RAW"/eviction-freq.txt "$RAW"/eviction-ref.tsv
  printf 'round\tpolicy\tserver\thit_ratio\tzipf_hit_ratio\tdbsize\tevicted_keys\tset_errors\tcpu_us_per_req\twall_s\n' >"$f"
  for round in $(seq "$EVICT_HIT_ROUNDS"); do
    for pol in $EVICT_POLICIES; do
      # Rounds past the first only for the policies with a target: the
      # ratios move by about 0.001 from one seed to the next.
      [ "$round" = 1 ] || [[ " $EVICT_TARGETS " == *" $pol "* ]] || continue
      for i in 0 1; do
        k=${kinds[$(((i + round - 1) % 2))]}
        local args=(--seed "$round") out
        case $pol in volatile-*) args+=(--ttl 1000000) ;; esac
        case $pol in *-lfu) [ "$round" = 1 ] && args+=(--freq) ;; esac
        start_server "$k" eviction
        note_cmd eviction redis-cli -p PORT config set maxmemory 8mb
        note_cmd eviction redis-cli -p PORT config set maxmemory-policy "$pol"
        redis-cli -p "$SRV_PORT" config set maxmemory 8mb >/dev/null
        redis-cli -p "$SRV_PORT" config set maxmemory-policy "$pol" >/dev/null
        note_cmd eviction build/bench/hit-ratio --port PORT --pid PID --seed ROUND "${args[@]:2}"
        out=$WORK/hits-$k.txt
        "$tool" --port "$SRV_PORT" --pid "$SRV_PID" "${args[@]}" >"$out"
        stop_server "$SRV_PID"
        local v=()
        for field in hit_ratio zipf_hit_ratio dbsize evicted_keys set_errors cpu_us_per_req wall_s; do
          v+=("$(awk -F= -v k="$field" '$1 == k { print $2 }' "$out")")
        done
        (IFS=$'\t'; echo "$round	$pol	$k	${v[*]}") >>"$f"
        grep '^freq_' "$out" | sed "s/^/$k-$pol /" >>"$RAW/eviction-freq.txt" || true
        log "eviction hits round $round $pol $k: hit ratio ${v[0]}, ${v[2]} keys, ${v[5]} µs CPU/request"
      done
    done
  done
  # The references, at every key count a server held (per round: its seed).
  printf 'round\tkeys\tlru\tzipf_lru\tbelady\tzipf_belady\n' >"$RAW/eviction-ref.tsv"
  for round in $(seq "$EVICT_HIT_ROUNDS"); do
    local ks
    ks=$(awk -F'\t' -v r="$round" 'NR > 1 && $1 == r { print $6 }' "$f" | sort -un | paste -sd,)
    note_cmd eviction build/bench/hit-ratio --seed ROUND --simulate KEYS,...
    "$tool" --seed "$round" --simulate "$ks" | awk -F= -v r="$round" '
      { split($1, a, "_"); n = a[length(a)]; name = $1; sub("_" n "$", "", name); v[n, name] = $2; keys[n] = 1 }
      END { for (n in keys) printf "%s\t%s\t%s\t%s\t%s\t%s\n", r, n, v[n, "lru"], v[n, "zipf_lru"], v[n, "belady"], v[n, "zipf_belady"] }' \
      >>"$RAW/eviction-ref.tsv"
  done
}

# No throughput cliff: SET -P 16 of new keys while every write evicts
# (allkeys-lru, maxmemory 32mb, full), and the same run without maxmemory,
# both servers in the same state, the order rotating each round.
evict_cliff() {
  local f=$RAW/eviction-cliff.tsv round i k mode hz kinds=(lawnkv redis) modes=(evict nolimit)
  hz=$(getconf CLK_TCK)
  rm -f "$f"
  printf 'round\tmode\tserver\trps\tp50_ms\tp99_ms\tcpu_ticks\tclk_tck\trequests\tevicted\tdbsize\tuser_ticks\n' >"$f"
  local bench=(-n "$N" -r 100000000 -d 100 -c 50 -P 16 -t set)
  for round in $(seq "$EVICT_ROUNDS"); do
    for mode in "${modes[@]}"; do
      for i in 0 1; do
        k=${kinds[$(((i + round - 1) % 2))]}
        start_server "$k" eviction
        if [ "$mode" = evict ]; then
          note_cmd eviction redis-cli -p PORT config set maxmemory 32mb maxmemory-policy allkeys-lru
          redis-cli -p "$SRV_PORT" config set maxmemory 32mb maxmemory-policy allkeys-lru >/dev/null
        fi
        # The fill: past 32 MB in both servers, so every later write of a new key evicts.
        note_cmd eviction redis-benchmark -p PORT -n 500000 -r 100000000 -d 100 -c 50 -P 16 -t set -q
        redis-benchmark -p "$SRV_PORT" -n 500000 -r 100000000 -d 100 -c 50 -P 16 -t set -q >/dev/null
        local e0 e1 u0 s0 u1 s1 csv rps p50 p99
        e0=$(info_field "$SRV_PORT" stats evicted_keys)
        note_cmd eviction redis-benchmark -p PORT "${bench[@]}" --csv
        read -r u0 s0 <<<"$(cpu_ticks "$SRV_PID")"
        csv=$(redis-benchmark -p "$SRV_PORT" "${bench[@]}" --csv | tail -1)
        read -r u1 s1 <<<"$(cpu_ticks "$SRV_PID")"
        e1=$(info_field "$SRV_PORT" stats evicted_keys)
        IFS=, read -r _ rps _ _ p50 _ p99 _ <<<"${csv//\"/}"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$k" "$rps" "$p50" "$p99" \
          "$((u1 + s1 - u0 - s0))" "$hz" "$N" "$((e1 - e0))" "$(redis-cli -p "$SRV_PORT" dbsize)" "$((u1 - u0))" >>"$f"
        log "eviction cliff round $round $mode $k: $rps ops/s, $((e1 - e0)) evicted"
        stop_server "$SRV_PID"
      done
    done
  done
}

# The cliff's runs under callgrind: user-space instructions per SET while
# every SET evicts (maxmemory 16mb, allkeys-lru, full) and without a limit,
# a count that does not move with the machine's load.
evict_instr() {
  command -v valgrind >/dev/null || { log "eviction instr: valgrind not installed; skipped"; return 0; }
  local f=$RAW/eviction-instr.tsv k mode n=${BENCH_PROFILE_N:-$((N / 10))}
  printf 'mode\tserver\trequests\tinstructions\tevicted\n' >"$f"
  for mode in evict nolimit; do
    for k in lawnkv redis; do
      start_callgrind "$k" eviction
      if [ "$mode" = evict ]; then
        note_cmd eviction redis-cli -p PORT config set maxmemory 16mb maxmemory-policy allkeys-lru
        redis-cli -p "$CG_PORT" config set maxmemory 16mb maxmemory-policy allkeys-lru >/dev/null
      fi
      note_cmd eviction redis-benchmark -p PORT -n 200000 -r 100000000 -d 100 -c 50 -P 16 -t set -q
      redis-benchmark -p "$CG_PORT" -n 200000 -r 100000000 -d 100 -c 50 -P 16 -t set -q >/dev/null
      local e0 e1 dump
      e0=$(info_field "$CG_PORT" stats evicted_keys)
      callgrind_control -z "$CG_PID" >/dev/null 2>&1
      note_cmd eviction redis-benchmark -p PORT -n "$n" -r 100000000 -d 100 -c 50 -P 16 -t set -q
      redis-benchmark -p "$CG_PORT" -n "$n" -r 100000000 -d 100 -c 50 -P 16 -t set -q >/dev/null
      dump=$(callgrind_dump "$k" "$CG_PID")
      e1=$(info_field "$CG_PORT" stats evicted_keys)
      printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "$k" "$n" "$(awk '/^summary:/ { print $2 }' "$dump")" "$((e1 - e0))" >>"$f"
      log "eviction instr $mode $k: $(tail -1 "$f" | cut -f4) instructions for $n SETs, $((e1 - e0)) evicted"
      stop_server "$CG_PID"
    done
  done
  grep -qxF "callgrind_control -z PID (before each run), callgrind_control -d PID (after it)" "$RAW/eviction.cmds" ||
    echo "callgrind_control -z PID (before each run), callgrind_control -d PID (after it)" >>"$RAW/eviction.cmds"
}

# Probe latency while 3/4 of EVICT_FILL_MB is evicted at once
# (bench/eviction/evict_probe.cpp).
evict_probe() {
  local tool=$ROOT/build/bench/evict-probe round i k kinds=(lawnkv redis)
  build_tool "$tool" bench/eviction/evict_probe.cpp -lhiredis -lpthread
  rm -f "$RAW"/eviction-probe-*
  for round in $(seq "$EVICT_PROBE_ROUNDS"); do
    for i in 0 1; do
      k=${kinds[$(((i + round - 1) % 2))]}
      start_server "$k" eviction
      local args=(--fill-mb "$EVICT_FILL_MB" --value 100 --fraction 0.25 --policy allkeys-random --probe-us 1000
                  --poll-ms 2 --seed "$round")
      note_cmd eviction build/bench/evict-probe --port PORT "${args[@]}" --series eviction-probe-SERVER-ROUND.dat
      if ! "$tool" --port "$SRV_PORT" "${args[@]}" --series "$RAW/eviction-probe-$k-$round.dat" \
          >"$RAW/eviction-probe-$k-$round.txt"; then
        log "eviction probe $k round $round: did not get under the limit (see $RAW/eviction-probe-$k-$round.txt)"
      fi
      log "eviction probe $k round $round: $(grep -E '^(keys|drain_ms|probe_p99_us|probe_max_us)=' \
        "$RAW/eviction-probe-$k-$round.txt" | tr '\n' ' ')"
      stop_server "$SRV_PID"
    done
  done
}

# ----------------------------------------------------------------- scripting
# Lua scripts beside Redis (bench/scripting/README.md says what each does).
SCRIPT_FILES="lock_release release_only rate_limit job_step incr_loop"

script_sha() { sha1sum <"bench/scripting/$1.lua" | cut -c1-40; }

part_scripting() {
  local step
  [ "$SCRIPT_STEPS" != "throughput loop memory instr" ] || rm -f "$RAW"/scripting-* "$RAW/scripting.cmds"
  for step in $SCRIPT_STEPS; do
    case $step in
      throughput|loop|memory|instr) "script_$step" ;;
      *) echo "bench: unknown scripting step '$step' (throughput loop memory instr)" >&2; exit 2 ;;
    esac
  done
}

# The keyspace of an EVALSHA test: FLUSHALL, the scripts loaded (each
# file's bytes, so the sha1 is the file's), the job queue's meta hash.
scripting_fill() {  # scripting_fill PART PORT [TEST]
  local part=$1 port=$2 f sha
  note_cmd "$part" redis-cli -p PORT flushall
  redis-cli -p "$port" flushall >/dev/null
  for f in $SCRIPT_FILES; do
    note_line "$part" "redis-cli -p PORT -x script load < bench/scripting/$f.lua"
    sha=$(redis-cli -p "$port" -x script load <"bench/scripting/$f.lua")
    [ "$sha" = "$(script_sha "$f")" ] || { echo "bench: SCRIPT LOAD of $f answered '$sha'" >&2; exit 1; }
  done
  note_cmd "$part" redis-cli -p PORT hset q:meta concurrency 10
  redis-cli -p "$port" hset q:meta concurrency 10 >/dev/null
}

script_throughput() {
  throughput_rounds "$RAW/scripting-throughput.tsv" scripting 16 "$SCRIPT_TESTS" scripting_fill lawnkv redis
}

# One EVALSHA of incr_loop.lua (SCRIPT_LOOP INCRs of one key) per server and
# round, alternated: wall time around redis-cli and the server's CPU time.
# busy-reply-threshold 60000 on both: lawnkv stops a script past it.
script_loop() {
  local f=$RAW/scripting-loop.tsv round i k kinds=(lawnkv redis) hz sha
  hz=$(getconf CLK_TCK)
  sha=$(script_sha incr_loop)
  printf 'round\tserver\tincrs\twall_s\tcpu_ticks\tclk_tck\treply\n' >"$f"
  for round in $(seq "$ROUNDS"); do
    for i in 0 1; do
      k=${kinds[$(((i + round - 1) % 2))]}
      start_server "$k" scripting --busy-reply-threshold 60000
      scripting_fill scripting "$SRV_PORT"
      local u0 s0 u1 s1 w0 w1 reply
      note_cmd scripting redis-cli -p PORT evalsha "$sha" 1 counter "$SCRIPT_LOOP"
      read -r u0 s0 <<<"$(cpu_ticks "$SRV_PID")"
      w0=$(date +%s.%N)
      reply=$(redis-cli -p "$SRV_PORT" evalsha "$sha" 1 counter "$SCRIPT_LOOP")
      w1=$(date +%s.%N)
      read -r u1 s1 <<<"$(cpu_ticks "$SRV_PID")"
      [ "$reply" = "$SCRIPT_LOOP" ] || log "scripting loop $k: the script answered '$reply'"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$k" "$SCRIPT_LOOP" \
        "$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')" "$((u1 + s1 - u0 - s0))" "$hz" "$reply" >>"$f"
      log "scripting loop round $round $k: $(tail -1 "$f" | cut -f4) s"
      stop_server "$SRV_PID"
    done
  done
}

# SCRIPT_CACHE distinct scripts (the release with its own number in the else
# branch) as RESP for redis-cli --pipe.
gen_scripts() {  # gen_scripts COUNT FILE
  awk -v n="$1" -v q="'" 'BEGIN {
    for (i = 0; i < n; i++) {
      body = sprintf("if redis.call(%sget%s,KEYS[1]) == ARGV[1] then return redis.call(%sdel%s,KEYS[1]) else return %d end",
                     q, q, q, q, i + 1000000)
      printf "*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$%d\r\n%s\r\n", length(body), body
    } }' >"$2"
}

# INFO memory and RSS of a fresh server before and after loading the scripts.
script_memory() {
  local f=$RAW/scripting-memory.tsv k
  gen_scripts "$SCRIPT_CACHE" "$WORK/scripts.resp"
  note_line scripting "# scripts.resp: $SCRIPT_CACHE x SCRIPT LOAD of \"if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return N end\", N = 1000000 + i (gen_scripts in scripts/bench.sh)"
  printf 'server\tscripts\trss_empty_kb\trss_full_kb\tused_empty\tused_full\tlua_empty\tlua_full\tscripts_bytes\tcached\n' >"$f"
  for k in lawnkv redis; do
    start_server "$k" scripting
    sleep 0.5
    local r0 u0 l0 r1 u1 l1 n sb
    r0=$(rss_kb "$SRV_PID")
    u0=$(info_field "$SRV_PORT" memory used_memory)
    l0=$(info_field "$SRV_PORT" memory used_memory_lua)
    note_line scripting "redis-cli -p PORT --pipe < scripts.resp"
    redis-cli -p "$SRV_PORT" --pipe <"$WORK/scripts.resp" >"$WORK/pipe.out"
    n=$(info_field "$SRV_PORT" memory number_of_cached_scripts)
    [ "$n" = "$SCRIPT_CACHE" ] || { echo "bench: $k caches $n scripts, not $SCRIPT_CACHE" >&2; cat "$WORK/pipe.out" >&2; exit 1; }
    sleep 1
    r1=$(rss_kb "$SRV_PID")
    u1=$(info_field "$SRV_PORT" memory used_memory)
    l1=$(info_field "$SRV_PORT" memory used_memory_lua)
    sb=$(info_field "$SRV_PORT" memory used_memory_scripts_eval)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$SCRIPT_CACHE" "$r0" "$r1" "$u0" "$u1" "$l0" "$l1" "$sb" "$n" >>"$f"
    log "scripting memory $k: RSS $r0 -> $r1 kB, used_memory $u0 -> $u1, used_memory_lua $l0 -> $l1"
    stop_server "$SRV_PID"
  done
}

# Instructions per call of the EVALSHA tests under callgrind (user space),
# each server filled as for the timed runs; then per INCR of the INCR loop
# (busy-reply-threshold 0 there: under callgrind the loop runs past 5 s).
script_instr() {
  command -v valgrind >/dev/null || { log "scripting instr: valgrind not installed; skipped"; return 0; }
  local f=$RAW/scripting-instr.tsv k t n=${BENCH_PROFILE_N:-$((N / 20))}
  printf 'server\ttest\trequests\tinstructions\n' >"$f"
  for k in lawnkv redis; do
    start_callgrind "$k" scripting
    for t in $SCRIPT_TESTS; do
      local args dump
      # shellcheck disable=SC2207
      args=($(bench_args "$t"))
      scripting_fill scripting "$CG_PORT"
      callgrind_control -z "$CG_PID" >/dev/null 2>&1
      note_cmd scripting redis-benchmark -p PORT -n "$n" -c 50 -P 16 -q "${args[@]}"
      redis-benchmark -p "$CG_PORT" -n "$n" -c 50 -P 16 -q "${args[@]}" >/dev/null
      dump=$(callgrind_dump "$k" "$CG_PID")
      printf '%s\t%s\t%s\t%s\n' "$k" "$t" "$n" "$(awk '/^summary:/ { print $2 }' "$dump")" >>"$f"
      log "scripting instr $k $t: $(tail -1 "$f" | cut -f4) instructions for $n calls"
    done
    # The INCR loop: one call of SCRIPT_LOOP INCRs, "requests" counting the INCRs.
    local sha dump
    sha=$(script_sha incr_loop)
    redis-cli -p "$CG_PORT" config set busy-reply-threshold 0 >/dev/null
    callgrind_control -z "$CG_PID" >/dev/null 2>&1
    note_cmd scripting redis-cli -p PORT evalsha "$sha" 1 counter "$SCRIPT_LOOP"
    redis-cli -p "$CG_PORT" evalsha "$sha" 1 counter "$SCRIPT_LOOP" >/dev/null
    dump=$(callgrind_dump "$k" "$CG_PID")
    printf '%s\t%s\t%s\t%s\n' "$k" loop "$SCRIPT_LOOP" "$(awk '/^summary:/ { print $2 }' "$dump")" >>"$f"
    log "scripting instr $k loop: $(tail -1 "$f" | cut -f4) instructions for $SCRIPT_LOOP INCRs"
    stop_server "$CG_PID"
  done
  note_line scripting "callgrind_control -z PID (before each run), callgrind_control -d PID (after it)"
}

# --------------------------------------------------------------------- index
part_index() {
  local bin=${BENCH_EXPIRY_BIN:-build/bench-expiry} args=()
  rm -f "$RAW/index.txt" "$RAW/index.json" "$RAW/index.cmds"
  if [ ! -x "$bin" ]; then
    log "index: $bin not built (make $bin); skipped"
    echo "skipped: $bin not built" >"$RAW/index.txt"
    return 0
  fi
  [ "$QUICK" = 1 ] && args+=(--benchmark_filter='mix:0|ttls:1/')
  # shellcheck disable=SC2206
  args+=(${BENCH_INDEX_ARGS:-})
  note_cmd index "$bin" "${args[@]}" --benchmark_out=index.json --benchmark_out_format=json
  "$bin" "${args[@]}" --benchmark_out="$RAW/index.json" --benchmark_out_format=json >"$RAW/index.txt" 2>&1
  log "index: done"
}

# ------------------------------------------------------------------- profile
# Not in the default parts (slow): each server runs under valgrind's callgrind,
# which counts the instructions it executes in user space (the kernel's share,
# syscalls and TCP, is not counted). The counters are zeroed before and dumped
# after each redis-benchmark run (callgrind_control), so a figure is the
# instructions of exactly those requests. Unlike time, the count does not
# depend on what else the machine is doing.
# Starts a server of KIND (lawnkv|baseline|redis) under valgrind's callgrind
# on a free port and waits for PING. Sets CG_PID and CG_PORT.
start_callgrind() {  # start_callgrind KIND PART
  local kind=$1 part=$2 cport cmd i attempt
  for attempt in 1 2 3 4 5; do
    cport=$(free_port)
    case $kind in
      lawnkv) cmd=("$LAWNKV_BIN" --port "$cport" --bind 127.0.0.1 --save '' --appendonly no
                   --logfile "$WORK/cg-lawnkv.log") ;;
      baseline) cmd=("$BASELINE_BIN" --port "$cport" --bind 127.0.0.1 --save '' --appendonly no
                     --logfile "$WORK/cg-baseline.log") ;;
      redis) cmd=("$REDIS_BIN" --port "$cport" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK"
                  --logfile "$WORK/cg-redis.log") ;;
    esac
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg-$kind.%p" "${cmd[@]}" >/dev/null 2>"$WORK/cg-$kind.err" &
    CG_PID=$!
    CG_PORT=$cport
    STARTED+=("$CG_PID")
    for i in $(seq 300); do
      if [ "$(redis-cli -p "$cport" ping 2>/dev/null)" = PONG ]; then
        note_cmd "$part" valgrind --tool=callgrind "${cmd[@]/$cport/PORT}"
        return 0
      fi
      kill -0 "$CG_PID" 2>/dev/null || break
      sleep 0.1
    done
    log "$kind under callgrind did not start on port $cport; retrying"
    stop_server "$CG_PID"
  done
  cat "$WORK/cg-$kind.err" "$WORK/cg-$kind.log" >&2 2>/dev/null || true
  echo "bench: cannot start $kind under callgrind" >&2
  exit 1
}

# Dumps a callgrind server's counters (zeroed before with callgrind_control
# -z) and prints the dump's path.
callgrind_dump() {  # callgrind_dump KIND PID
  callgrind_control -d "$2" >/dev/null 2>&1
  # shellcheck disable=SC2012  # the newest dump; names are ours
  ls -t "$WORK/cg-$1.$2".* | head -1
}

# Instructions per request of KINDS under callgrind at PIPELINES, into FILE
# (with each run's callgrind_annotate listing beside it when PREFIX is set).
profile_kinds() {  # profile_kinds FILE PART PREFIX "PIPELINES" KINDS...
  local f=$1 part=$2 prefix=$3 pipelines=$4 kind t p n=${BENCH_PROFILE_N:-$((N / 10))}
  shift 4
  printf 'server\tpipeline\ttest\trequests\tinstructions\n' >"$f"
  for kind in "$@"; do
    local cport pid
    start_callgrind "$kind" "$part"
    cport=$CG_PORT pid=$CG_PID
    note_cmd "$part" redis-benchmark -p PORT -n "$n" -r 1000000 -d 16 -c 50 -P 16 -t set -q
    redis-benchmark -p "$cport" -n "$n" -r 1000000 -d 16 -c 50 -P 16 -t set -q >/dev/null
    for p in $pipelines; do
      for t in $TESTS; do
        local args dump
        # shellcheck disable=SC2207
        args=($(bench_args "$t"))
        callgrind_control -z "$pid" >/dev/null 2>&1
        note_cmd "$part" redis-benchmark -p PORT -n "$n" -c 50 -P "$p" -q "${args[@]}"
        redis-benchmark -p "$cport" -n "$n" -c 50 -P "$p" -q "${args[@]}" >/dev/null
        dump=$(callgrind_dump "$kind" "$pid")
        printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$p" "$t" "$n" "$(awk '/^summary:/ { print $2 }' "$dump")" >>"$f"
        [ -z "$prefix" ] ||
          callgrind_annotate --threshold=100 --auto=no "$dump" 2>/dev/null | head -60 >"$RAW/$prefix-$kind-$t-P$p.txt" || true
        log "$part $kind -P $p $t: $(tail -1 "$f" | cut -f5) instructions for $n requests"
      done
    done
    stop_server "$pid"
  done
  echo "callgrind_control -z PID (before each run), callgrind_control -d PID (after it)" >>"$RAW/$part.cmds"
}

part_profile() {
  command -v valgrind >/dev/null || { log "profile: valgrind not installed; skipped"; return 0; }
  rm -f "$RAW"/profile-* "$RAW/profile.tsv" "$RAW/profile.cmds"
  profile_kinds "$RAW/profile.tsv" profile profile "$PIPELINES" lawnkv redis
}

# ------------------------------------------------------------------ baseline
# This lawnkv against an earlier build of it (LAWNKV_BASELINE), measured the
# same way in the same run: did a change cost throughput or instructions?
part_baseline() {
  rm -f "$RAW"/baseline-* "$RAW/baseline.cmds"
  [ -n "$BASELINE_BIN" ] || { echo "bench: the baseline part needs LAWNKV_BASELINE=binary" >&2; exit 2; }
  echo "baseline=$("$BASELINE_BIN" --version) ($LAWNKV_BASELINE)" >"$RAW/baseline-which.txt"
  throughput_rounds "$RAW/baseline-throughput.tsv" baseline "$BASELINE_PIPELINES" "$TESTS" throughput_fill lawnkv baseline
  if command -v valgrind >/dev/null; then
    profile_kinds "$RAW/baseline-profile.tsv" baseline "" "$BASELINE_PIPELINES" lawnkv baseline
  else
    log "baseline: valgrind not installed; no instruction counts"
  fi
}

# ---------------------------------------------------- notify, dehydrator
# Benches owned by other rooms, run if their script is in the tree. The
# contract: the script reads LAWNKV_SERVER (the copied binary), REDIS_SERVER,
# BENCH_QUICK and BENCH_RAW (a directory it may write charts/data to) from the
# environment, starts and stops its own servers on free ports, and prints a
# markdown section on stdout; a non-zero exit is reported, not fatal.
run_external() {  # run_external PART CANDIDATE...
  local part=$1 script="" c
  shift
  rm -f "$RAW/$part.md" "$RAW/$part.cmds"
  for c in "$@"; do
    case $c in
      *.sh) [ -f "$c" ] && script="bash $c" ;;
      *.py) [ -f "$c" ] && script="python3 $c" ;;
      *) [ -x "$c" ] && script=$c ;;
    esac
    [ -n "$script" ] && break
  done
  if [ -z "$script" ]; then
    log "$part: none of $* in this tree; skipped"
    echo "skipped: none of $* in this tree" >"$RAW/$part.md"
    return 0
  fi
  # shellcheck disable=SC2086  # "bash file": two words
  note_cmd "$part" $script
  if ! LAWNKV_SERVER=$LAWNKV_BIN REDIS_SERVER=$REDIS_BIN BENCH_QUICK=$QUICK BENCH_RAW=$RAW \
      $script >"$RAW/$part.md" 2>"$WORK/$part.err"; then  # word-split on purpose: "bash file"
    log "$part: $script failed"
    { echo; echo "($script failed:)"; echo '```'; tail -20 "$WORK/$part.err"; echo '```'; } >>"$RAW/$part.md"
  fi
}

part_notify() { run_external notify bench/notify_lag.sh bench/notify_lag.py build/bench-notify-lag; }
part_tracking() { run_external tracking bench/tracking_lag.sh; }
part_dehydrator() { run_external dehydrator bench/dehydrator/run.sh; }
part_iothreads() { run_external iothreads bench/iothreads/run.sh; }

# ---------------------------------------------------------------------- main
machine_info
log "parts: $PARTS (quick=$QUICK, rounds=$ROUNDS, n=$N); raw results in $RAW"
for part in $PARTS; do
  case $part in
    throughput|memory|types|streams|expiry|fields|aof|eviction|scripting|index|notify|tracking|dehydrator|iothreads|monitor|profile|baseline)
      log "== $part"
      {
        date -u '+%Y-%m-%d %H:%M UTC'
        echo "source=$(awk -F= '$1 == "source" { print $2 }' "$RAW/machine.txt")"
        echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
        echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
      } >"$RAW/$part.when"
      "part_$part"
      echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW/$part.when"
      ;;
    *) echo "bench: unknown part '$part' (throughput memory types streams expiry fields aof eviction scripting index notify tracking dehydrator iothreads monitor profile baseline)" >&2; exit 2 ;;
  esac
done
python3 bench/server/report.py --raw "$RAW" --out "$OUT"
log "wrote $OUT/latest.md"
