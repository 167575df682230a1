#!/usr/bin/env bash
# Writes the seed corpus of the append-only file loader's harness,
# tests/fuzz/corpus/aof_load/: increments written by lawnkv
# (build/lawnkv-server, appendonly yes) for small workloads of every type
# (absolute deadlines, MULTI/EXEC, SELECT, field TTLs, dehydrators, pops),
# each with a flag byte in front (aof_load_fuzz.cpp: bit 0 is
# aof-load-truncated), whole and cut short.
# The server runs on a free port in a temporary directory, stopped by PID.
#   tests/fuzz/make_aof_seeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus/aof_load
mkdir -p "$out"
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')

workload() {  # workload <name>
  local c="redis-cli -p $port"
  case $1 in
    strings) $c set s hello ex 1000; $c incrbyfloat f 1.5; $c expire s 50; $c getex s persist
             $c append s x; $c setrange s 2 yz; $c incr n; $c del n ;;
    hashes) $c hset h a 1 b 2; $c hexpire h 1000 fields 1 a; $c hincrbyfloat h b 0.5
            $c hsetex h px 5000 fields 1 c 3; $c hgetex h persist fields 1 a; $c hdel h b ;;
    sets_zsets) $c sadd s a b c 1 2; $c spop s; $c smove s t a; $c zadd z 1 a 2 b 3 c; $c zincrby z 2 a
                $c zpopmin z; $c zrem z c ;;
    lists) $c rpush l a b c d; $c lpop l 2; $c lmove l m right left; $c linsert m before d x; $c ltrim m 0 0 ;;
    txn_db) $c select 3 >/dev/null; printf 'MULTI\nSET a 1\nINCR a\nSELECT 5\nSET b 2\nEXEC\n' | $c
            $c swapdb 0 3; $c flushdb ;;
    dehydrator) $c rede.push d 1000 e1 id1; $c rede.push d 0 e2 id2; $c rede.poll d; $c rede.pull d id1 ;;
  esac >/dev/null
}

for name in strings hashes sets_zsets lists txn_db dehydrator; do
  dir=$work/$name
  mkdir -p "$dir"
  build/lawnkv-server --port "$port" --bind 127.0.0.1 --save '' --appendonly yes --dir "$dir" >"$dir/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  workload "$name"
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  incr=$dir/appendonlydir/appendonly.aof.1.incr.aof
  { printf '\x01'; cat "$incr"; } >"$out/seed-$name"
  size=$(stat -c %s "$incr")
  { printf '\x01'; head -c $((size - 7)) "$incr"; } >"$out/seed-$name-cut"
  { printf '\x00'; head -c $((size - 7)) "$incr"; } >"$out/seed-$name-cut-strict"
done
echo "wrote $(ls "$out" | wc -l) seeds to $out"
