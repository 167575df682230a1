#!/usr/bin/env bash
# BullMQ (npm) against lawnkv, on ioredis (RESP2) and on one node-redis client
# (RESP3) through BullMQ's node-redis adapter, with its documented API: a Queue
# adds plain jobs, prioritized jobs, a delayed job, a job with attempts and a
# fixed backoff that fails twice then succeeds, and one that always fails; a
# Worker runs them; QueueEvents (XREAD BLOCK on the queue's event stream)
# reports completed, failed and progress events. Return values, processing
# order, states, attempts, failure reasons and job counts are checked, and
# a flow (parent and children), promote, LIFO, deduplication, remove,
# retryJobs, getJobs, clean, a job scheduler, a rate-limited worker with
# metrics and getWorkers (CLIENT LIST), and a stalled job (its worker
# closed by force, its lock expired) taken by another worker run on queues
# of their own; obliterate leaves no key. BullMQ runs on Lua scripts
# (EVALSHA) and streams.
# The client program is tests/tools/clients/bullmq.mjs; the library is
# installed by tests/tools/clients/install-node-clients.sh under build/.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

NODE_CLIENTS_DIR=$(tests/tools/clients/install-node-clients.sh) || fail "installing the node clients"
export NODE_CLIENTS_DIR

for driver in ioredis node-redis; do
  start_server
  echo "server on port $port (pid ${pids[-1]}), BullMQ on $driver"
  timeout 90 node tests/tools/clients/bullmq.mjs "$port" "$driver" ||
    fail "BullMQ on $driver (see the FAIL lines above)"
done
echo "BullMQ: all checks passed"
