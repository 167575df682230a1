#!/usr/bin/env bash
# Full resynchronisation of a redis-server 7.0.15 replica, from a lawnkv
# primary and from a redis-server primary holding the same dataset (N keys
# written by redis-benchmark SET, 16-byte values): the time from the
# replica's start to master_link_status:up.
#   bench/replication-sync.sh [N]        (default 200000)
set -euo pipefail
N=${1:-200000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LAWNKV=${LAWNKV_SERVER:-$ROOT/build/lawnkv-server}
WORK=$(mktemp -d)
trap 'redis-cli -p 7801 shutdown nosave >/dev/null 2>&1 || true; redis-cli -p 7802 shutdown nosave >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

now_ms() { date +%s%3N; }
wait_up() {  # port
  for _ in $(seq 1 3000); do
    redis-cli -p "$1" info replication 2>/dev/null | grep -q "master_link_status:up" && return 0
    sleep 0.01
  done
  echo "replica on $1 never came up" >&2; return 1
}
run() {  # name, primary command... (its options after the name)
  local name=$1; shift
  mkdir -p "$WORK/$name/p" "$WORK/$name/r"
  local bin=$1; shift
  (cd "$WORK/$name/p" && "$bin" --port 7801 --save '' --dir "$WORK/$name/p" "$@" > "$WORK/$name/p.log" 2>&1 &)
  for _ in $(seq 1 500); do redis-cli -p 7801 ping >/dev/null 2>&1 && break; sleep 0.01; done
  redis-benchmark -p 7801 -t set -n "$N" -r "$N" -d 16 -P 64 -q > /dev/null
  local keys; keys=$(redis-cli -p 7801 dbsize)
  local t0; t0=$(now_ms)
  redis-server --port 7802 --replicaof 127.0.0.1 7801 --save '' --dir "$WORK/$name/r" --daemonize yes \
    --logfile "$WORK/$name/r.log"
  wait_up 7802
  local t1; t1=$(now_ms)
  echo "$name: $keys keys, full sync $((t1 - t0)) ms, replica dbsize $(redis-cli -p 7802 dbsize)"
  redis-cli -p 7802 shutdown nosave >/dev/null 2>&1 || true
  redis-cli -p 7801 shutdown nosave >/dev/null 2>&1 || true
  sleep 0.2
}
run lawnkv "$LAWNKV"
# Redis 7.0 defaults to diskless sync after a 5 s delay; lawnkv's sync is
# disk-based, so Redis is compared with its disk-based sync.
run redis redis-server --repl-diskless-sync no
