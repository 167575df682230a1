#!/usr/bin/env bash
# Failover by Redis Sentinel (Debian's redis-server 7.0.15 run with
# --sentinel): three sentinels (quorum 2, down-after-milliseconds 2000,
# failover-timeout 3000) watch a primary with two replicas, each started
# from a config file (Sentinel's failover sends CONFIG REWRITE inside its
# MULTI). The driver, tests/tools/clients/sentinel_failover.py (redis-py's
# redis.sentinel.Sentinel, Debian's python3-redis), writes through
# master_for with `WAIT 1 100` after each write, kills the primary with
# SIGKILL, and checks: the replica Sentinel may promote (the other has
# replica-priority 0) is promoted, the other follows it, the
# client carries on, every write that a replica acknowledged is on the new
# primary, and the old primary, restarted, rejoins as a replica of the new
# one. It prints the failover figures. LAWNKV_SERVER=redis-server runs the
# same test with redis-server in lawnkv's places.
# down-after-milliseconds is 2000, not less: Sentinel PINGs a server it
# starts watching (the new primary, after +switch-master) at most once a
# second, and at 1000 a reply held up on a loaded machine makes it
# subjectively down at once; a second failover then follows the first.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

python=/usr/bin/python3
sentinel_server=/usr/bin/redis-server
"$python" -c 'import redis.sentinel' 2>/dev/null ||
  fail "$python cannot import redis.sentinel: install python3-redis (scripts/install-deps.sh test)"
[ -x "$sentinel_server" ] || fail "redis-server is not installed (scripts/install-deps.sh test)"

export LAWNKV_REFERENCE=$reference
tmp=$(mktemp -d)
restarted="$tmp/restarted.pid"
cleanup() {
  [ -f "$restarted" ] && pids+=("$(cat "$restarted")")
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT

# started PID WHAT: polls PING on $port (10 s at most) until the process
# PID answers; records it in pids and ports. Fails if it keeps running
# without answering; returns 1 if it exited (the port was taken: retry).
started() {
  local pid=$1 what=$2
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && { pids+=("$pid"); ports+=("$port"); return 0; }
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
    log="$log_dir/tools-sentinel-$name-$port.log"
    "$server" "$tmp/$name.conf" >"$log" 2>&1 &
    started $! "$server" && return 0
  done
  fail "$server did not start (see $log)"
}

# start_sentinel name primary_port: a sentinel on a free port.
start_sentinel() {
  local name=$1 primary=$2
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    cat >"$tmp/$name.conf" <<CONF
port $port
bind 127.0.0.1
dir $tmp
sentinel monitor m 127.0.0.1 $primary 2
sentinel down-after-milliseconds m 2000
sentinel failover-timeout m 3000
sentinel parallel-syncs m 1
CONF
    log="$log_dir/tools-sentinel-$name-$port.log"
    "$sentinel_server" "$tmp/$name.conf" --sentinel >"$log" 2>&1 &
    started $! sentinel && return 0
  done
  fail "sentinel did not start (see $log)"
}

start_node primary
primary_port=$port primary_pid=${pids[-1]}
# replica1 may never be promoted (replica-priority 0, read by Sentinel from
# INFO); replica2 gives its address itself (REPLCONF ip-address).
start_node replica1 replicaof "127.0.0.1 $primary_port" replica-priority 0
start_node replica2 replicaof "127.0.0.1 $primary_port" replica-announce-ip 127.0.0.1
start_sentinel sentinel1 "$primary_port"
start_sentinel sentinel2 "$primary_port"
start_sentinel sentinel3 "$primary_port"
echo "$(basename "$server"): primary $primary_port (pid $primary_pid), replicas ${ports[1]} ${ports[2]}," \
  "sentinels ${ports[3]} ${ports[4]} ${ports[5]}"

# The driver kills the primary by its pid and restarts it with the same
# command line, writing the new pid to $restarted.
timeout 90 "$python" tests/tools/clients/sentinel_failover.py \
  --sentinels "${ports[3]},${ports[4]},${ports[5]}" --primary "$primary_port" --primary-pid "$primary_pid" \
  --replicas "${ports[1]},${ports[2]}" --promotable "${ports[2]}" --restart "$server $tmp/primary.conf" \
  --restart-log "$log_dir/tools-sentinel-primary-restarted-$primary_port.log" --restarted-pid-file "$restarted" ||
  fail "Sentinel failover (see the FAIL lines above; logs in $log_dir/tools-sentinel-*)"

# Sentinel's CONFIG REWRITE reached the config files: the promoted replica
# lost its replicaof, the other follows the new primary.
new_primary=$(redis-cli -p "${ports[3]}" sentinel get-master-addr-by-name m | tail -n 1)
for n in 1 2; do
  conf="$tmp/replica$n.conf"
  if [ "${ports[$n]}" = "$new_primary" ]; then
    grep -qi '^replicaof\|^slaveof' "$conf" && fail "the promoted replica's config still has replicaof:\n$(cat "$conf")"
  else
    grep -qi "^replicaof 127.0.0.1 $new_primary\$" "$conf" ||
      fail "the other replica's config does not follow $new_primary:\n$(cat "$conf")"
  fi
done
echo "sentinel: all checks passed"
