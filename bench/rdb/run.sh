#!/usr/bin/env bash
# SAVE and BGSAVE of N keys (default 1,000,000: "key:<n>" -> a 16-byte value,
# a tenth with a TTL), lawnkv beside redis-server 7.0.15 in the same
# configuration: wall time of SAVE, time until a BGSAVE's child is reaped,
# the file's size, the worst PING latency seen while the BGSAVE runs, and
# the start-up time of a second server loading the file (until it answers
# DBSIZE with every key).
# Servers run on free ports in a temporary directory, stopped by PID.
#   bench/rdb/run.sh [N]         LAWNKV_SERVER=build/lawnkv-server REDIS_SERVER=redis-server
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
LAWNKV=${LAWNKV_SERVER:-build/lawnkv-server}
REDIS=${REDIS_SERVER:-redis-server}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

python3 - "$N" >"$work/fill.resp" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
for i in range(n):
    k = b"key:%d" % i
    v = b"v%015d" % i
    if i % 10 == 0:
        out.write(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\n%s\r\n$2\r\nEX\r\n$5\r\n86400\r\n" % (len(k), k, v))
    else:
        out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\n%s\r\n" % (len(k), k, v))
PY

ms() { date +%s%3N; }
printf "%-8s %10s %12s %12s %14s %10s\n" server keys save_ms bgsave_ms file_bytes load_ms
for name in lawnkv redis; do
  bin=$LAWNKV; [ $name = redis ] && bin=$REDIS
  dir=$work/$name; mkdir -p "$dir"
  port=$(free_port)
  "$bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  redis-cli -p "$port" --pipe <"$work/fill.resp" >/dev/null
  keys=$(redis-cli -p "$port" dbsize)
  t0=$(ms); redis-cli -p "$port" save >/dev/null; t1=$(ms)
  size=$(stat -c %s "$dir/dump.rdb")
  before=$(redis-cli -p "$port" info persistence | tr -d '\r' | awk -F: '/^rdb_saves:/{print $2}')
  t2=$(ms); redis-cli -p "$port" bgsave >/dev/null
  worst=0
  while [ "$(redis-cli -p "$port" info persistence | tr -d '\r' | awk -F: '/^rdb_bgsave_in_progress:/{print $2}')" = 1 ]; do
    p0=$(ms); redis-cli -p "$port" ping >/dev/null; p1=$(ms)
    [ $((p1 - p0)) -gt "$worst" ] && worst=$((p1 - p0))
  done
  t3=$(ms)
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  port2=$(free_port)
  t4=$(ms)
  "$bin" --port "$port2" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/log2" 2>&1 &
  pids+=($!)
  until [ "$(redis-cli -p "$port2" dbsize 2>/dev/null)" = "$keys" ]; do sleep 0.01; done
  t5=$(ms)
  printf "%-8s %10s %12s %12s %14s %10s   (worst PING during BGSAVE incl. redis-cli start: %s ms)\n" \
    $name "$keys" $((t1 - t0)) $((t3 - t2)) "$size" $((t5 - t4)) "$worst"
  redis-cli -p "$port2" shutdown nosave >/dev/null 2>&1 || true
done
