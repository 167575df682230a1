#!/usr/bin/env bash
# The node clients' own Sentinel support through a failover, with password
# authentication as the simplest deployments run it: the data servers
# require a password (requirepass, and masterauth on each: either may become
# a replica), the sentinel logs in with `sentinel auth-pass`. One primary,
# one replica, one sentinel (quorum 1). The client program,
# tests/tools/clients/sentinel_clients.mjs, connects ioredis
# (new Redis({sentinels, name})) and node-redis (createSentinel) through the
# sentinel, writes, asks for SENTINEL FAILOVER m (no down-after wait), and
# checks that each client finds the new primary and carries on. Neither
# server's ACL LOG holds an entry afterwards (no refused AUTH or command).
# LAWNKV_SERVER=redis-server runs it with redis-server in lawnkv's places.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash
source tests/tools/lib/sentinel.bash

NODE_CLIENTS_DIR=$(tests/tools/clients/install-node-clients.sh) || fail "installing the node clients"
export NODE_CLIENTS_DIR LAWNKV_REFERENCE=$reference
tmp=$(mktemp -d)
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT

pass=clientpw
start_node primary requirepass "$pass" masterauth "$pass"
primary_port=$port
start_node replica requirepass "$pass" masterauth "$pass" replicaof "127.0.0.1 $primary_port"
replica_port=$port
start_sentinel sentinel "$primary_port" 1 "sentinel down-after-milliseconds m 2000" \
  "sentinel failover-timeout m 3000" "sentinel auth-pass m $pass"
sentinel_port=$port
echo "$(basename "$server"): primary $primary_port, replica $replica_port, sentinel $sentinel_port"

timeout 60 node tests/tools/clients/sentinel_clients.mjs "$sentinel_port" "$primary_port" "$replica_port" "$pass" ||
  fail "clients through Sentinel (see the FAIL lines above; logs in $log_dir/tools-sentinel_clients-*)"

for p in "$primary_port" "$replica_port"; do
  entries=$(redis-cli -p "$p" --pass "$pass" --no-auth-warning acl log)
  [ -z "$entries" ] || fail "the ACL LOG of the server on port $p:\n$entries"
done
echo "sentinel_clients: all checks passed"
