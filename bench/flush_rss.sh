#!/usr/bin/env bash
# RSS around FLUSHALL, lawnkv beside redis-server, measured the same way.
#
#   bench/flush_rss.sh [KEYS] [VALUE_BYTES]      (default 2000000 keys, 64 B)
#
# For each server: RSS (VmRSS of /proc/PID/status) at start, after filling
# KEYS keys of 16-byte names ("key:" + 12 digits) with redis-benchmark -P 16,
# right after FLUSHALL returns, 1 s later, and after MEMORY PURGE; and how
# long FLUSHALL took (redis-cli --latency is not used: one timed call).
# Environment: LAWNKV_SERVER=build/lawnkv-server  REDIS_SERVER=redis-server
#              FLUSH_CMD=flushall (or flushdb)  FLUSH_SERVERS="lawnkv redis"
# Servers listen on free loopback ports (never 6379), keep no files, and are
# stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

KEYS=${1:-2000000}
VALUE=${2:-64}
LAWNKV_BIN=${LAWNKV_SERVER:-build/lawnkv-server}
REDIS_BIN=${REDIS_SERVER:-redis-server}
FLUSH=${FLUSH_CMD:-flushall}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

run() {  # run KIND BINARY
  local kind=$1 bin=$2 port pid
  while :; do
    port=$((20000 + RANDOM % 40000))
    port_free "$port" && break
  done
  "$bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >"$WORK/$kind.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.05
  done
  local start filled flushed later purged t0 t1
  start=$(rss_mb "$pid")
  redis-benchmark -p "$port" -t set -n "$KEYS" -r "$KEYS" -d "$VALUE" -P 16 -q >/dev/null
  local dbsize
  dbsize=$(redis-cli -p "$port" dbsize)
  filled=$(rss_mb "$pid")
  t0=$(date +%s%N)
  redis-cli -p "$port" "$FLUSH" >/dev/null
  t1=$(date +%s%N)
  flushed=$(rss_mb "$pid")
  sleep 1
  later=$(rss_mb "$pid")
  redis-cli -p "$port" memory purge >/dev/null
  purged=$(rss_mb "$pid")
  printf '%-7s keys %8s  RSS MB: start %6s  filled %7s  after %s %7s (%4d ms)  +1 s %7s  after PURGE %7s\n' \
    "$kind" "$dbsize" "$start" "$filled" "$FLUSH" "$flushed" $(((t1 - t0) / 1000000)) "$later" "$purged"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
}

echo "$KEYS keys (16-byte names, $VALUE-byte values), redis-benchmark -t set -r $KEYS -P 16, then $FLUSH"
for kind in ${FLUSH_SERVERS:-lawnkv redis}; do
  case $kind in
    lawnkv) run lawnkv "$LAWNKV_BIN" ;;
    redis) run redis "$REDIS_BIN" ;;
  esac
done
