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
# Authentication as operators run it: the data servers require a password
# of their clients (requirepass; the driver logs in with it), Sentinel logs
# in as an ACL user with the rules Redis's Sentinel docs give it (sentinel
# auth-user/auth-pass), and replicas as a user that may only replicate
# (masteruser/masterauth, on every server: each may become a replica). At
# the end no server's ACL LOG holds an entry: nothing Sentinel or a replica
# sent was refused. (tests/tools/sentinel_clients.sh covers requirepass
# with sentinel auth-pass alone.)
# down-after-milliseconds is 2000, not less: Sentinel PINGs a server it
# starts watching (the new primary, after +switch-master) at most once a
# second, and at 1000 a reply held up on a loaded machine makes it
# subjectively down at once; a second failover then follows the first.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash
source tests/tools/lib/sentinel.bash

python=/usr/bin/python3
"$python" -c 'import redis.sentinel' 2>/dev/null ||
  fail "$python cannot import redis.sentinel: install python3-redis (scripts/install-deps.sh test)"

export LAWNKV_REFERENCE=$reference
tmp=$(mktemp -d)
restarted="$tmp/restarted.pid"
cleanup() {
  [ -f "$restarted" ] && pids+=("$(cat "$restarted")")
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT

client_pass=clientpw sentinel_pass=sentinelpw replica_pass=replicapw
auth=(requirepass "$client_pass"
  user "sentinel-user on >$sentinel_pass allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill"
  user "replica-user on >$replica_pass +psync +replconf +ping"
  masteruser replica-user masterauth "$replica_pass")
start_node primary "${auth[@]}"
primary_port=$port primary_pid=${pids[-1]}
# replica1 may never be promoted (replica-priority 0, read by Sentinel from
# INFO); replica2 gives its address itself (REPLCONF ip-address).
start_node replica1 "${auth[@]}" replicaof "127.0.0.1 $primary_port" replica-priority 0
start_node replica2 "${auth[@]}" replicaof "127.0.0.1 $primary_port" replica-announce-ip 127.0.0.1
# Quorum 2 of the three.
sentinel_conf=("sentinel down-after-milliseconds m 2000" "sentinel failover-timeout m 3000"
  "sentinel parallel-syncs m 1" "sentinel auth-user m sentinel-user" "sentinel auth-pass m $sentinel_pass")
for n in 1 2 3; do start_sentinel "sentinel$n" "$primary_port" 2 "${sentinel_conf[@]}"; done
echo "$(basename "$server"): primary $primary_port (pid $primary_pid), replicas ${ports[1]} ${ports[2]}," \
  "sentinels ${ports[3]} ${ports[4]} ${ports[5]}"

# The driver kills the primary by its pid and restarts it with the same
# command line, writing the new pid to $restarted.
timeout 90 "$python" tests/tools/clients/sentinel_failover.py \
  --sentinels "${ports[3]},${ports[4]},${ports[5]}" --primary "$primary_port" --primary-pid "$primary_pid" \
  --replicas "${ports[1]},${ports[2]}" --promotable "${ports[2]}" --restart "$server $tmp/primary.conf" \
  --restart-log "$log_dir/tools-sentinel-primary-restarted-$primary_port.log" --restarted-pid-file "$restarted" \
  --password "$client_pass" ||
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

# Nothing Sentinel or a replica sent any server was refused by its ACL (a
# refused command or a failed AUTH leaves an entry).
for p in "${ports[@]:0:3}"; do
  entries=$(redis-cli -p "$p" --user default --pass "$client_pass" --no-auth-warning acl log)
  [ -z "$entries" ] || fail "the ACL LOG of the server on port $p:\n$entries"
done
echo "sentinel: all checks passed"
