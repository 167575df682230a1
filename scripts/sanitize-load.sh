#!/usr/bin/env bash
# scripts/sanitize-load.sh SERVER: a short mixed load against a sanitizer
# build of the server (build-asan/lawnkv-server): redis-benchmark with 50
# clients pipelining 16 requests each, over plain writes and reads, keys
# that expire while the load runs (PX 20: the expiry cycle reaps them under
# load), TTL changes, and dehydrator pushes and polls. Then the server is
# stopped with SIGTERM. Fails if the server exits non-zero (a sanitizer
# report stops it; leaks are reported at exit) or its log holds a report.
# The log is build-asan/test-logs/load-<port>.log. Takes about 10-20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
server=${1:?usage: $0 SERVER}
log_dir=$(dirname "$server")/test-logs
mkdir -p "$log_dir"

# A port no one listens on may still be taken (an outgoing connection's
# local port): a server that exits during start-up is started again on
# another port, five times at most.
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    echo "$p"
    return 0
  done
  echo "no free port" >&2
  exit 1
}
pid=
stop() { [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true; }
trap stop EXIT
up=no
for _ in 1 2 3 4 5; do
  port=$(free_port)
  log=$log_dir/load-$port.log
  "$server" --port "$port" --bind 127.0.0.1 --save "" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && { up=yes; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  [ "$up" = yes ] && break
  kill -0 "$pid" 2>/dev/null && break
  echo "server exited during start-up on port $port; another port"
  cat "$log"
done
[ "$up" = yes ] || { echo "server did not start"; cat "$log"; exit 1; }

status=0
bench() {
  local out
  if ! out=$(timeout 120 redis-benchmark -p "$port" -q -P 16 -c 50 -r 20000 "$@" 2>&1 | tr '\r' '\n'); then
    echo "redis-benchmark $* failed:"; printf '%s\n' "$out" | tail -5; status=1; return
  fi
  printf '%s\n' "$out" | grep 'requests per second' | tail -n 5 | sed 's/^/  /'
  if printf '%s\n' "$out" | grep -qiE 'error|refused|closed|timeout'; then
    echo "redis-benchmark $*: errors:"; printf '%s\n' "$out" | grep -iE 'error|refused|closed|timeout' | head -5
    status=1
  fi
}
start=$SECONDS
bench -t ping,set,get,incr,mset -n 100000
bench -n 100000 set key:__rand_int__ v PX 20
bench -n 50000 set key:__rand_int__ 0123456789abcdef0123456789abcdef0123456789abcdef EX 100
bench -n 50000 getex key:__rand_int__ PX 30
bench -n 50000 expire key:__rand_int__ 1 GT
bench -n 50000 append key:__rand_int__ xy
bench -n 50000 rede.gidpush q:__rand_int__ 5 element
bench -n 50000 rede.poll q:__rand_int__
bench -n 20000 del key:__rand_int__ q:__rand_int__
redis-cli -p "$port" info keyspace | tr -d '\r' | grep '^db' | sed 's/^/  /' || true
echo "  load took $((SECONDS - start)) s"

kill -TERM "$pid"
trap - EXIT
set +e
wait "$pid"
exit_status=$?
set -e
if [ "$exit_status" -ne 0 ]; then
  echo "server exited with status $exit_status"
  status=1
fi
scripts/sanitizer-reports.sh "$log" || status=1
[ "$status" -eq 0 ] && echo "sanitize load: no sanitizer report"
exit $status
