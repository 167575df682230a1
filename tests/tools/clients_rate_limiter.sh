#!/usr/bin/env bash
# rate-limiter-flexible (npm) against lawnkv, its RateLimiterRedis on ioredis
# (the Lua script as an ioredis defineCommand: EVALSHA, then EVAL on NOSCRIPT)
# and on node-redis over RESP3 (EVAL): consume within the limit (consumed and
# remaining points, isFirstInDuration, msBeforeNext, the key's PTTL) and
# beyond it (the rejection's remainingPoints 0 and msBeforeNext), get,
# penalty, reward, delete, block and blockDuration (refused beyond the window,
# for the block), a window that ends (whole budget again), and duration 0 (no
# expiry).
# The client program is tests/tools/clients/rate_limiter.mjs; the library is
# installed by tests/tools/clients/install-node-clients.sh under build/.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

NODE_CLIENTS_DIR=$(tests/tools/clients/install-node-clients.sh) || fail "installing the node clients"
export NODE_CLIENTS_DIR

start_server
echo "server on port $port (pid ${pids[-1]})"
for client in ioredis node-redis; do
  timeout 60 node tests/tools/clients/rate_limiter.mjs "$port" "$client" ||
    fail "rate-limiter-flexible on $client (see the FAIL lines above)"
done
echo "rate-limiter-flexible: all checks passed"
