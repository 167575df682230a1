#!/usr/bin/env bash
# ioredis against lawnkv, over RESP2 and (ioredis 6) RESP3: SET EX/PX, GET,
# MGET, INCR, EXPIRE/TTL/PTTL, DEL, MULTI/EXEC, WATCH, a 1,000-command
# pipeline, scanStream over 2,000 keys, the expired keyspace event of a PX 50
# key, exact error texts, REDE.PUSH/POLL on DEBUG ADVANCE-TIME, QUIT.
# The client program is tests/tools/clients/ioredis.mjs; the library is
# installed by tests/tools/clients/install-node-clients.sh under build/.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

NODE_CLIENTS_DIR=$(tests/tools/clients/install-node-clients.sh) || fail "installing the node clients"
export NODE_CLIENTS_DIR LAWNKV_REFERENCE=$reference

for protocol in 2 3; do
  start_server --notify-keyspace-events Ex --enable-debug-command yes
  echo "server on port $port (pid ${pids[-1]}), ioredis RESP$protocol"
  timeout 60 node tests/tools/clients/ioredis.mjs "$port" "$protocol" ||
    fail "ioredis RESP$protocol (see the FAIL lines above)"
done
echo "ioredis: all checks passed"
