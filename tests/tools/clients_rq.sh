#!/usr/bin/env bash
# RQ (Debian's python3-rq, on python3-redis) against lawnkv: jobs enqueued
# (plain, keyword arguments, failing, Retry(max=2) failing once, writing
# job.meta, depending on another job) and run by a burst worker
# (Worker(...).work(burst=True), a forked work horse per job); then each job's
# status (finished, failed, deferred before its parent ran), result and
# return_value (RQ's result stream: XADD, XREVRANGE), the failed job's
# exception in the failed registry, the retried job's second run, the
# finished and started registries, and a job's deletion; then enqueue_many
# with positions (LPOS), a job enqueued at a past time run by a burst worker
# with the scheduler, an on_success callback, result_ttl's TTL, and a
# canceled job that never runs; a failed job requeued and run again (two
# results in its stream, newest first: XREVRANGE).
# The client program is tests/tools/clients/rq_jobs.py, its job functions
# tests/tools/clients/rq_tasks.py, run by Debian's /usr/bin/python3.
cd "$(dirname "$0")/../.."
source tests/tools/lib/server.bash

python=/usr/bin/python3
"$python" -c 'import rq' 2>/dev/null ||
  fail "$python cannot import rq: install python3-rq (scripts/install-deps.sh test)"

start_server
echo "server on port $port (pid ${pids[-1]})"
timeout 60 "$python" tests/tools/clients/rq_jobs.py "$port" ||
  fail "RQ (see the FAIL lines above)"
echo "RQ: all checks passed"
