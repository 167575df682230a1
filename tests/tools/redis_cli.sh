#!/usr/bin/env bash
# redis-cli against lawnkv: --pipe mass insertion of 100,000 SET ... EX,
# DBSIZE, --scan --pattern, and the plain set/ttl/get of the README.
# Starts build/lawnkv-server (LAWNKV_SERVER overrides) on a free port, stops
# it by PID on exit. Exits non-zero on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/tools/lib/server.bash

cli() { redis-cli -p "$port" "$@"; }

expect() {  # expect <wanted> <command...>
  local want=$1; shift
  local got
  got=$(cli "$@" 2>&1) || fail "redis-cli $* exited non-zero: $got"
  [ "$got" = "$want" ] || fail "redis-cli $*: got '$got', want '$want'"
}

start_server
echo "lawnkv on port $port (pid ${pids[-1]})"

# --pipe: 100,000 SET key:i val EX 1000 as raw RESP
pipe_out=$(awk 'BEGIN {
  for (i = 0; i < 100000; i++) {
    k = "key:" i
    printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nval\r\n$2\r\nEX\r\n$4\r\n1000\r\n", length(k), k
  }
}' | timeout 60 redis-cli -p "$port" --pipe 2>&1) || fail "redis-cli --pipe failed: $pipe_out"
echo "$pipe_out" | grep -q "errors: 0, replies: 100000" || fail "redis-cli --pipe: $pipe_out"
echo "--pipe: 100000 replies, no errors"

expect 100000 dbsize
expect val get key:4242
ttl=$(cli ttl key:4242)
{ [ "$ttl" -ge 990 ] && [ "$ttl" -le 1000 ]; } || fail "ttl key:4242 = '$ttl', want 990..1000"

# --scan --pattern: key:1, key:10..19, key:100..199, ... = 11111 keys
scanned=$(timeout 60 redis-cli -p "$port" --scan --pattern 'key:1*') || fail "redis-cli --scan failed"
distinct=$(printf '%s\n' "$scanned" | sort -u | grep -c '^key:1' || true)
[ "$distinct" -eq 11111 ] || fail "--scan --pattern 'key:1*' found $distinct distinct keys, want 11111"
outside=$(printf '%s\n' "$scanned" | grep -vc '^key:1' || true)
[ "$outside" -eq 0 ] || fail "--scan --pattern 'key:1*' returned $outside keys outside the pattern"
echo "--scan --pattern 'key:1*': 11111 keys"

# the README's first steps
expect OK set k v EX 10
expect 10 ttl k
expect v get k
expect 1 del k
expect "" get k

echo "redis-cli: all checks passed"
