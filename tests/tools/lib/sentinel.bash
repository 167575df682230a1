# shellcheck shell=bash
# Sourced after server.bash by the Sentinel tests (tests/tools/sentinel*.sh):
# data servers and sentinels (Debian's redis-server 7.0.15 run with
# --sentinel) started from config files under $tmp, which the caller makes
# and removes. Each on a free loopback port, recorded in pids and ports.
#
#   start_node name [directive value ...]      a data server ($server)
#   start_sentinel name primary_port quorum [config line ...]
#                                              a sentinel monitoring "m"

sentinel_server=/usr/bin/redis-server
[ -x "$sentinel_server" ] || fail "redis-server is not installed (scripts/install-deps.sh test)"

# started PID WHAT: polls PING on $port (10 s at most) until the process
# PID answers; records it in pids and ports. Fails if it keeps running
# without answering; returns 1 if it exited (the port was taken: retry).
started() {
  local pid=$1 what=$2
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    # PONG, or NOAUTH from a data server with requirepass: it answers
    case "$(redis-cli -p "$port" ping 2>/dev/null)" in
      PONG | NOAUTH*) pids+=("$pid"); ports+=("$port"); return 0 ;;
    esac
    sleep 0.05
  done
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "$what did not answer PING on port $port"; }
  wait "$pid" 2>/dev/null || true
  return 1
}

# start_node name [directive value ...]: a data server from its own config
# file on a free port (the config file is what CONFIG REWRITE rewrites).
start_node() {
  local name=$1 i
  shift
  local directives=("$@")
  mkdir -p "$tmp/$name"
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    {
      echo "port $port"
      echo "bind 127.0.0.1"
      echo "dir $tmp/$name"
      echo 'save ""'
      [ "$reference" = 1 ] && echo "appendonly no"
      echo "repl-diskless-sync-delay 0"
      for ((i = 0; i + 1 < ${#directives[@]}; i += 2)); do echo "${directives[i]} ${directives[i + 1]}"; done
    } >"$tmp/$name.conf"
    log="$log_dir/tools-$(basename "$0" .sh)-$name-$port.log"
    "$server" "$tmp/$name.conf" >"$log" 2>&1 &
    started $! "$server" && return 0
  done
  fail "$server did not start (see $log)"
}

# start_sentinel name primary_port quorum [config line ...]: a sentinel on a
# free port watching the primary as "m", with the given lines added.
start_sentinel() {
  local name=$1 primary=$2 quorum=$3
  shift 3
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    {
      echo "port $port"
      echo "bind 127.0.0.1"
      echo "dir $tmp"
      echo "sentinel monitor m 127.0.0.1 $primary $quorum"
      printf '%s\n' "$@"
    } >"$tmp/$name.conf"
    log="$log_dir/tools-$(basename "$0" .sh)-$name-$port.log"
    "$sentinel_server" "$tmp/$name.conf" --sentinel >"$log" 2>&1 &
    started $! sentinel && return 0
  done
  fail "sentinel did not start (see $log)"
}
