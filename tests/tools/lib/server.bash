# shellcheck shell=bash
# Sourced by every tests/tools/*.sh, from the
# repository root. The conventions of tests/tools/redis_cli.sh, for several
# processes: each is started on a free loopback port, recorded by PID, and
# stopped by that PID when the script exits.
#
#   server          the binary under test: build/lawnkv-server, or LAWNKV_SERVER
#                   (LAWNKV_SERVER=redis-server proves a test against Redis 7.0)
#   reference       1 when server is redis-server; lawnkv-only checks skip then
#   start_server    starts one more server; sets port, appends to ports and pids
#   free_port       prints a port nothing listens on (20000..59999)
#   fail msg        prints FAIL: msg and the tail of the last log, exits 1
set -euo pipefail

server=${LAWNKV_SERVER:-build/lawnkv-server}
reference=0
[ "$(basename "$server")" = redis-server ] && reference=1
log_dir=build/test-logs
mkdir -p "$log_dir"
pids=()
ports=()
log=

fail() {
  printf 'FAIL: %b\n' "$*" >&2
  [ -n "${log:-}" ] && [ -f "$log" ] && { echo "--- last lines of $log" >&2; tail -n 20 "$log" >&2; }
  exit 1
}

# Stops every process this script started, by PID: TERM, up to 5 s, then KILL.
stop_all() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}
trap stop_all EXIT

free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    echo "$p"
    return 0
  done
  fail "no free port found"
}

# start_server [directive value ...]: starts $server on a free port with the
# given extra directives; retries on another port if it exits during start-up
# (the port was taken meanwhile). Polls PING, with a 10 s deadline.
start_server() {
  local extra=() pid
  # No save rules for either server (lawnkv's default has some, as Redis's).
  extra=(--save "")
  [ "$reference" = 1 ] && extra=(--save "" --appendonly no)
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    log="$log_dir/tools-$(basename "$0" .sh)-$port.log"
    "$server" --port "$port" --bind 127.0.0.1 "${extra[@]}" "$@" >"$log" 2>&1 &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      # PONG, or NOAUTH from a server started with requirepass: it answers
      case "$(redis-cli -p "$port" ping 2>/dev/null)" in PONG | NOAUTH*) ports+=("$port"); return 0 ;; esac
      sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "$server did not answer PING on port $port within 10 s"
    wait "$pid" 2>/dev/null || true
    unset 'pids[-1]'
  done
  fail "$server did not start (see $log)"
}
