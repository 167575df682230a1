# Sourced by the tests/tools scripts (bash; run from the repository root):
# one server under test on a free loopback port, stopped by PID on exit.
#   server          the binary: build/lawnkv-server, or $LAWNKV_SERVER
#   start_server [--directive value ...]   sets port, pid, log
#   fail <message>  prints the message and the log's tail, exits 1
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
  local extra=("$@")
  [ "$(basename "$server")" = redis-server ] && extra+=(--save "" --appendonly no)
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

