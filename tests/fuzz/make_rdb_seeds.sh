#!/usr/bin/env bash
# Writes the seed corpus of the RDB loader's harness,
# tests/fuzz/corpus/rdb_load/: dump.rdb files written by redis-server 7.0.15
# and by lawnkv (build/lawnkv-server) for small datasets of every encoding
# they have (int and LZF strings, listpack/hashtable hashes, intsets and
# hashtable sets, quicklists, listpack and skiplist sorted sets, expiries,
# several dbs; lawnkv: field TTLs, dehydrators).
# Servers run on free ports in a temporary directory and are stopped by PID.
#   tests/fuzz/make_rdb_seeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus/rdb_load
mkdir -p "$out"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

start() {  # start <binary> <dir>: sets port
  port=$(free_port)
  "$1" --port "$port" --bind 127.0.0.1 --save '' --dir "$2" >"$2/log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server did not start" >&2; exit 1
}

dataset() {  # dataset <port> <name>: one small dataset per name
  local c="redis-cli -p $1"
  case $2 in
    strings) $c set s hello; $c set n 12345; $c set neg -70000; $c set big 9999999999
             $c set z "$(printf 'a%.0s' $(seq 1 200))"; $c set e ""; $c set t v px 99999999999 ;;
    hashes) $c hset h a 1 b two; for i in $(seq 1 20); do $c hset lh "f$i" "$i"; done
            $c hset long f "$(printf 'x%.0s' $(seq 1 80))" ;;
    sets) $c sadd i 1 2 -3 70000 5000000000; $c sadd s a b c; $c select 2; $c sadd other 1 x ;;
    lists_zsets) $c rpush l a 1 -2 ""; for i in $(seq 1 30); do $c rpush ll "e$i"; done
                 $c zadd z 1 a 2.5 b -inf c; for i in $(seq 1 140); do $c zadd zl $i "m$i"; done ;;
    lawnkv_only) $c hset h f v g w; $c hpexpire h 99999999 fields 1 f
                 $c rede.push d 1000 el1 id1; $c rede.push d 5 el2 id2 ;;
  esac >/dev/null
}

for server in redis lawnkv; do
  bin=redis-server
  [ $server = lawnkv ] && bin=build/lawnkv-server
  for name in strings hashes sets lists_zsets lawnkv_only; do
    [ $server = redis ] && [ $name = lawnkv_only ] && continue
    dir=$work/$server-$name
    mkdir -p "$dir"
    start "$bin" "$dir"
    dataset "$port" "$name"
    redis-cli -p "$port" save >/dev/null
    cp "$dir/dump.rdb" "$out/$server-$name.rdb"
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
done
ls -l "$out"
