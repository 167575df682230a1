#!/usr/bin/env bash
# redis-benchmark against lawnkv: -t set,get,incr,mset, and SET with EX over
# random keys (-r). Fails on any error or warning line and on zero
# throughput. Starts build/lawnkv-server (LAWNKV_SERVER overrides) on a free
# port, stops it by PID on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/tools/lib/server.bash

# Runs redis-benchmark -q with the given arguments and checks its output:
# one "requests per second" line per expected test name, each above zero,
# and no line mentioning an error or a warning.
bench() {
  local names=$1; shift
  local out
  out=$(timeout 60 redis-benchmark -p "$port" -q "$@" 2>&1 | tr '\r' '\n') ||
    fail "redis-benchmark $* exited non-zero:\n$out"
  local bad
  bad=$(printf '%s\n' "$out" | grep -iE 'error|warning|refused|closed|timeout' || true)
  [ -z "$bad" ] || fail "redis-benchmark $*:\n$bad"
  local name line rps
  IFS=, read -ra wanted <<<"$names"
  for name in "${wanted[@]}"; do
    line=$(printf '%s\n' "$out" | grep -F "$name: " | grep 'requests per second' | tail -n 1)
    [ -n "$line" ] || fail "redis-benchmark $*: no result for $name in:\n$out"
    rps=$(printf '%s\n' "$line" | sed -E 's/.*: ([0-9.]+) requests per second.*/\1/')
    awk -v r="$rps" 'BEGIN { exit !(r > 0) }' || fail "redis-benchmark $*: zero throughput: $line"
    echo "  $line"
  done
}

start_server
echo "lawnkv on port $port (pid ${pids[-1]})"

bench "SET,GET,INCR,MSET (10 keys)" -t set,get,incr,mset -n 20000
bench "set key:__rand_int__ v EX 100" -n 20000 -r 10000 set key:__rand_int__ v EX 100

keys=$(redis-cli -p "$port" dbsize)
{ [ "$keys" -gt 1 ] && [ "$keys" -le 10003 ]; } || fail "dbsize after the benchmarks: '$keys'"
some_key=$(redis-cli -p "$port" --scan --pattern 'key:0*' | awk 'NR == 1')
[ -n "$some_key" ] || fail "no key:0* key after set key:__rand_int__"
ttl=$(redis-cli -p "$port" ttl "$some_key")
{ [ "$ttl" -gt 0 ] && [ "$ttl" -le 100 ]; } || fail "ttl $some_key = '$ttl', want 1..100"

echo "redis-benchmark: all checks passed"
