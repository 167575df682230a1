# Shared by bench/notify_lag.sh and bench/tracking_lag.sh: build the lag
# tool (bench/notify_lag.cpp), run each server alone on a free loopback port
# (never 6379), one lag run against it, and the markdown table of the runs.
#
# The sourcing script sets ROOT, LAWNKV, REDIS, RAW, KEYS, WAIT_MS, SEED and
# LAG_PREFIX (the name of its raw files and of its messages), then calls
# lag_runs with the servers' extra arguments and the tool's.

CXX=${CXX:-g++}
BIN=$ROOT/build/bench/notify-lag

mkdir -p "$RAW" "$(dirname "$BIN")"
if [ ! -x "$BIN" ] || [ bench/notify_lag.cpp -nt "$BIN" ]; then
  "$CXX" -O2 -g -std=c++20 -Wall -Wextra -o "$BIN" bench/notify_lag.cpp -lpthread >&2
fi

PID=""
stop_server() {
  if [ -n "$PID" ]; then
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=""
  fi
}
trap stop_server EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_server NAME [SERVER ARGS...] -> sets PORT and PID
start_server() {
  local name=$1 i
  shift
  PORT=$(free_port)
  case $name in
    lawnkv) "$LAWNKV" --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no "$@" \
              >"$RAW/$LAG_PREFIX-$name.log" 2>&1 & ;;
    redis)  "$REDIS" --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no "$@" \
              >"$RAW/$LAG_PREFIX-$name.log" 2>&1 & ;;
  esac
  PID=$!
  for i in $(seq 1 200); do
    redis-cli -p "$PORT" PING >/dev/null 2>&1 && return 0
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05  # waiting for the server to listen, not a measurement
  done
  echo "$LAG_PREFIX: $name did not start on port $PORT (see $RAW/$LAG_PREFIX-$name.log)" >&2
  exit 1
}

# lag_runs BACKGROUND "SERVER ARGS" "TOOL ARGS": lawnkv then redis, with 0
# and BACKGROUND other keys; a line of results per run in
# $RAW/$LAG_PREFIX-results.txt, raw lags in $RAW/$LAG_PREFIX-NAME-BG.lags.
# Sets LOAD_BEFORE and LOAD_AFTER.
lag_runs() {
  local background=$1 server_args=$2 tool_args=$3 bg name line
  : >"$RAW/$LAG_PREFIX-results.txt"
  LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
  for bg in 0 "$background"; do
    for name in lawnkv redis; do
      echo "$LAG_PREFIX: $name, $KEYS keys, $bg background keys" >&2
      # shellcheck disable=SC2086  # the argument lists split on purpose
      start_server "$name" $server_args
      # shellcheck disable=SC2086
      line=$("$BIN" --port "$PORT" $tool_args --keys "$KEYS" --min-ms 100 --max-ms 2000 --background "$bg" \
               --wait-ms "$WAIT_MS" --seed "$SEED" --out "$RAW/$LAG_PREFIX-$name-$bg.lags")
      stop_server
      echo "$name $bg $line" | tee -a "$RAW/$LAG_PREFIX-results.txt" >&2
    done
  done
  LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
}

# lag_table WHAT: the markdown table of the runs (WHAT names the column of
# counts: "events", "invalidations").
lag_table() {
  echo "| server | other keys (TTL 1 h) | $1 received | p50 ms | p99 ms | max ms | mean ms |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  local name bg fields kv
  while read -r name bg fields; do
    declare -A f=()
    for kv in $fields; do f[${kv%%=*}]=${kv#*=}; done
    printf '| %s | %s | %s / %s | %s | %s | %s | %s |\n' "$name" "$bg" "${f[received]}" "${f[keys]}" \
      "${f[p50]}" "${f[p99]}" "${f[max]}" "${f[mean]}"
  done <"$RAW/$LAG_PREFIX-results.txt"
}
