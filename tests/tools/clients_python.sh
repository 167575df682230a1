#!/usr/bin/env bash
# redis-py (Debian's python3-redis, 4.x, RESP2) against lawnkv: INFO parsing,
# SET EX/PX/NX/GET/KEEPTTL, SETEX, PSETEX, GET, MGET, INCR, EXPIRE/TTL/PTTL,
# DEL, pipeline(transaction=True) and WATCH, a 1,000-command pipeline,
# scan_iter over 2,000 keys, pubsub() receiving the expired event of a PX 50
# key, exact error texts, redis-py's Lock and register_script (Lua scripts),
# REDE.PUSH/POLL on DEBUG ADVANCE-TIME, close().
# The client program is tests/tools/clients/redis_py.py, run by Debian's
# /usr/bin/python3 (where python3-redis is installed).
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

python=/usr/bin/python3
"$python" -c 'import redis' 2>/dev/null ||
  fail "$python cannot import redis: install python3-redis (scripts/install-deps.sh test)"
export LAWNKV_REFERENCE=$reference

start_server --notify-keyspace-events Ex --enable-debug-command yes
echo "server on port $port (pid ${pids[-1]})"
timeout 60 "$python" tests/tools/clients/redis_py.py "$port" ||
  fail "redis-py (see the FAIL lines above)"
echo "redis-py: all checks passed"
