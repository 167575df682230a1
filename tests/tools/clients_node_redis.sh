#!/usr/bin/env bash
# node-redis (the `redis` package) against lawnkv, over RESP2 and RESP3 (its
# default): the HELLO/CLIENT SETINFO handshake, SET EX/PX/NX/GET/KEEPTTL, GET,
# MGET, INCR, EXPIRE/TTL/PTTL, DEL, MULTI/EXEC, WATCH, a 1,000-command
# pipeline, scanIterator over 2,000 keys, the expired keyspace event of a
# PX 50 key, exact error texts, REDE.PUSH/POLL on DEBUG ADVANCE-TIME, the
# client-side cache (clientSideCache, RESP3: CLIENT TRACKING), close().
# The client program is tests/tools/clients/node_redis.mjs; the library is
# installed by tests/tools/clients/install-node-clients.sh under build/.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

NODE_CLIENTS_DIR=$(tests/tools/clients/install-node-clients.sh) || fail "installing the node clients"
export NODE_CLIENTS_DIR LAWNKV_REFERENCE=$reference

for resp in 2 3; do
  start_server --notify-keyspace-events Ex --enable-debug-command yes
  echo "server on port $port (pid ${pids[-1]}), node-redis RESP$resp"
  timeout 60 node tests/tools/clients/node_redis.mjs "$port" "$resp" ||
    fail "node-redis RESP$resp (see the FAIL lines above)"
done
echo "node-redis: all checks passed"
