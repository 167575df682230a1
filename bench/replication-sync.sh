#!/usr/bin/env bash
# Full resynchronisation of a replica from a lawnkv primary and from a
# redis-server primary holding the same dataset (N keys "key:<i>", 16-byte
# values, loaded by redis-cli --pipe), with the snapshot through the
# primary's disk (repl-diskless-sync no) and diskless (yes, delay 0):
#   - the time from the replica's start to master_link_status:up;
#   - the primary's memory overhead during it: its peak RSS (VmHWM, reset
#     through /proc/<pid>/clear_refs just before the replica starts) less
#     its RSS before. The fork's child is not counted (both fork one).
#   - for a lawnkv replica, its own peak RSS (VmHWM over its life) and its
#     RSS once synced: repl-diskless-load disabled (temp file, read whole,
#     then loaded) against on-empty-db (parsed as it arrives).
#   bench/replication-sync.sh [N] [runs]     (default 1000000 keys, 1 run)
# LAWNKV_SERVER picks the lawnkv binary (another build, to compare).
# Results: bench/results/replication.md.
set -euo pipefail
N=${1:-1000000}
RUNS=${2:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LAWNKV=${LAWNKV_SERVER:-$ROOT/build/lawnkv-server}
WORK=$(mktemp -d)
trap 'redis-cli -p 7801 shutdown nosave >/dev/null 2>&1 || true; redis-cli -p 7802 shutdown nosave >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

now_ms() { date +%s%3N; }
kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
wait_up() {  # port
  for _ in $(seq 1 6000); do
    redis-cli -p "$1" info replication 2>/dev/null | grep -q "master_link_status:up" && return 0
    sleep 0.01
  done
  echo "replica on $1 never came up" >&2; return 1
}
# run NAME PRIMARY_BIN REPLICA ("redis" or "lawnkv:<repl-diskless-load>") PRIMARY_OPTIONS...
run() {
  local name=$1 bin=$2 replica=$3
  shift 3
  rm -rf "$WORK/$name"
  mkdir -p "$WORK/$name/p" "$WORK/$name/r"
  "$bin" --port 7801 --save '' --dir "$WORK/$name/p" "$@" > "$WORK/$name/p.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 500); do redis-cli -p 7801 ping >/dev/null 2>&1 && break; sleep 0.01; done
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$16\r\nvvvvvvvvvvvvvvvv\r\n", length("key:" i), i }' |
    redis-cli -p 7801 --pipe > /dev/null
  local keys; keys=$(redis-cli -p 7801 dbsize)
  local before; before=$(kb "$pid" VmRSS)
  echo 5 > "/proc/$pid/clear_refs"
  local t0; t0=$(now_ms)
  local rpid=""
  if [ "$replica" = redis ]; then
    redis-server --port 7802 --replicaof 127.0.0.1 7801 --save '' --dir "$WORK/$name/r" --daemonize yes \
      --logfile "$WORK/$name/r.log"
  else
    "$LAWNKV" --port 7802 --replicaof 127.0.0.1 7801 --save '' --dir "$WORK/$name/r" \
      --repl-diskless-load "${replica#lawnkv:}" > "$WORK/$name/r.log" 2>&1 &
    rpid=$!
  fi
  wait_up 7802
  local t1; t1=$(now_ms)
  local peak; peak=$(kb "$pid" VmHWM)
  local rdb; rdb=$(stat -c %s "$WORK/$name/p/dump.rdb" 2>/dev/null || echo 0)
  local extra=""
  if [ -n "$rpid" ]; then
    extra=", replica peak RSS $(($(kb "$rpid" VmHWM) / 1024)) MB, after sync $(($(kb "$rpid" VmRSS) / 1024)) MB"
  fi
  echo "$name: $keys keys, rdb on disk $((rdb / 1024)) KB, full sync $((t1 - t0)) ms," \
    "primary RSS $((before / 1024)) MB before, peak +$(((peak - before) / 1024)) MB during," \
    "replica dbsize $(redis-cli -p 7802 dbsize)$extra"
  redis-cli -p 7802 shutdown nosave >/dev/null 2>&1 || true
  redis-cli -p 7801 shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  [ -n "$rpid" ] && { wait "$rpid" 2>/dev/null || true; }
  return 0
}
DISK=(--repl-diskless-sync no)
DISKLESS=(--repl-diskless-sync yes --repl-diskless-sync-delay 0)
for _ in $(seq 1 "$RUNS"); do
  # A redis-server replica of each primary, disk and diskless.
  run lawnkv-disk "$LAWNKV" redis "${DISK[@]}"
  run redis-disk redis-server redis "${DISK[@]}"
  run lawnkv-diskless "$LAWNKV" redis "${DISKLESS[@]}"
  run redis-diskless redis-server redis "${DISKLESS[@]}"
  # A lawnkv replica of a diskless lawnkv primary: the payload through a
  # temp file (read whole before it loads) or parsed as it arrives.
  run lawnkv-diskless-to-lawnkv-load-disabled "$LAWNKV" lawnkv:disabled "${DISKLESS[@]}"
  run lawnkv-diskless-to-lawnkv-load-on-empty-db "$LAWNKV" lawnkv:on-empty-db "${DISKLESS[@]}"
done
