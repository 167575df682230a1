#!/usr/bin/env bash
# redis-benchmark against lawnkv: -t set,get,incr,mset, and SET with EX over
# random keys (-r). Fails on any error or warning line and on zero
# throughput. Starts build/lawnkv-server (LAWNKV_SERVER overrides) on a free
# port, stops it by PID on exit.
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
echo "lawnkv on port $port (pid $pid)"

bench "SET,GET,INCR,MSET (10 keys)" -t set,get,incr,mset -n 20000
bench "set key:__rand_int__ v EX 100" -n 20000 -r 10000 set key:__rand_int__ v EX 100

keys=$(redis-cli -p "$port" dbsize)
{ [ "$keys" -gt 1 ] && [ "$keys" -le 10003 ]; } || fail "dbsize after the benchmarks: '$keys'"
some_key=$(redis-cli -p "$port" --scan --pattern 'key:0*' | awk 'NR == 1')
[ -n "$some_key" ] || fail "no key:0* key after set key:__rand_int__"
ttl=$(redis-cli -p "$port" ttl "$some_key")
{ [ "$ttl" -gt 0 ] && [ "$ttl" -le 100 ]; } || fail "ttl $some_key = '$ttl', want 1..100"

echo "redis-benchmark: all checks passed"
