#!/usr/bin/env bash
# redis-cli against lawnkv: --pipe mass insertion of 100,000 SET ... EX,
# DBSIZE, --scan --pattern, and the plain set/ttl/get of the README.
# Starts build/lawnkv-server (LAWNKV_SERVER overrides) on a free port, stops
# it by PID on exit. Exits non-zero on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/../.."

server=${LAWNKV_SERVER:-build/lawnkv-server}
log_dir=build/test-logs
mkdir -p "$log_dir"
pid=

fail() {
  printf 'FAIL: %b\n' "$*" >&2
  [ -n "${log:-}" ] && [ -f "$log" ] && { echo "--- last lines of $log" >&2; tail -n 20 "$log" >&2; }
  exit 1
}

stop_server() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
}
trap stop_server EXIT

# Starts the server on a port nothing listens on; retries on another port if
# it exits during start-up (the port was taken meanwhile). Polls PING, with a
# 10 s deadline, until it answers.
start_server() {
  local extra=()
  [ "$(basename "$server")" = redis-server ] && extra=(--save "" --appendonly no)
  for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    log="$log_dir/tools-$(basename "$0" .sh)-$port.log"
    "$server" --port "$port" --bind 127.0.0.1 "${extra[@]}" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
      sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "$server did not answer PING on port $port within 10 s"
    wait "$pid" 2>/dev/null || true
    pid=
  done
  fail "$server did not start (see $log)"
}

cli() { redis-cli -p "$port" "$@"; }

expect() {  # expect <wanted> <command...>
  local want=$1; shift
  local got
  got=$(cli "$@" 2>&1) || fail "redis-cli $* exited non-zero: $got"
  [ "$got" = "$want" ] || fail "redis-cli $*: got '$got', want '$want'"
}

start_server
echo "lawnkv on port $port (pid $pid)"

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
