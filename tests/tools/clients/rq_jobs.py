"""RQ (Debian's python3-rq, on python3-redis) against a running server, as a
job-queue user drives it: enqueue jobs, run a burst worker, read statuses,
results and registries back.

    /usr/bin/python3 rq_jobs.py <port>

RQ keeps each job in a hash, its queue in a list, its registries in sorted
sets, and (RQ >= 1.12 on Redis >= 5) its results in a stream per job
(XADD, XREVRANGE); the worker's completion is a MULTI/EXEC pipeline. The
worker forks a work horse per job and imports the job functions from
rq_tasks.py beside this file.
Prints "ok <step>" or "FAIL <step>: <why>" per step; exits 1 if any failed.
"""

import sys
import time
from datetime import datetime, timedelta, timezone

# No __pycache__ beside the sources from importing rq_tasks and check.
sys.dont_write_bytecode = True

import redis
import rq
from rq import Queue, Retry, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import (CanceledJobRegistry, FailedJobRegistry, FinishedJobRegistry,
                         ScheduledJobRegistry, StartedJobRegistry)
from rq.results import Result

import rq_tasks
from check import check, eq, finish, step

port = int(sys.argv[1])
label = f"RQ {rq.__version__} on redis-py {redis.__version__}"








# RQ pickles job data and results: the connection answers bytes.
conn = redis.Redis(host="127.0.0.1", port=port, socket_timeout=30, socket_connect_timeout=10)
queue = Queue("lawnkv", connection=conn)
jobs = {}


@step
def enqueue():
    """enqueue: plain, keyword, failing, retried, meta and dependent jobs wait queued"""
    eq(queue.count, 0, "jobs in a new queue")
    jobs["adds"] = [queue.enqueue(rq_tasks.add, i, 100) for i in range(10)]
    jobs["describe"] = queue.enqueue(rq_tasks.describe, "lawnkv", times=3)
    jobs["divide"] = queue.enqueue(rq_tasks.divide, 1, 0)
    jobs["flaky"] = queue.enqueue(rq_tasks.flaky, "rq-test:flaky-runs", retry=Retry(max=2))
    jobs["meta"] = queue.enqueue(rq_tasks.set_meta)
    jobs["child"] = queue.enqueue(rq_tasks.add, 1, 1, depends_on=jobs["adds"][0])
    eq(queue.count, 14, "jobs queued (the dependent one is deferred)")
    eq(jobs["adds"][3].get_status(), "queued", "status of a queued job")
    eq(jobs["child"].get_status(), "deferred", "status of a job whose parent has not run")
    eq(Job.fetch(jobs["adds"][3].id, connection=conn).args, (3, 100), "args read back")


@step
def burst_worker():
    """a burst worker runs every job and returns once the queue is empty"""
    worker = Worker([queue], connection=conn)
    print("     (the worker logs the tracebacks of divide and of flaky's first run: expected)", flush=True)
    eq(worker.work(burst=True, logging_level="WARNING"), True, "work(burst=True) did work")
    eq(queue.count, 0, "jobs left queued")
    eq(Worker.all(connection=conn), [], "workers registered after the burst")


@step
def results():
    """finished jobs: status finished, result, return_value, the result stream"""
    for i, job in enumerate(jobs["adds"]):
        job.refresh()
        eq(job.get_status(), "finished", f"status of add({i}, 100)")
        eq(job.result, i + 100, f"result of add({i}, 100)")
        eq(job.return_value(), i + 100, f"return_value of add({i}, 100)")
        check(job.ended_at >= job.started_at, f"ended_at {job.ended_at} before started_at {job.started_at}")
    latest = jobs["adds"][0].latest_result()
    eq(latest.type, Result.Type.SUCCESSFUL, "latest_result type")
    eq(latest.return_value, 100, "latest_result return_value")
    key = f"rq:results:{jobs['adds'][0].id}"
    eq(conn.type(key), b"stream", f"TYPE of {key}")
    eq(conn.xlen(key), 1, f"XLEN of {key}")
    eq(jobs["describe"].return_value(), {"name": "lawnkv", "greeting": "hi hi hi"},
       "result of a keyword-argument job")


@step
def failed():
    """a failing job: status failed, in the failed registry, its exception kept"""
    job = jobs["divide"]
    job.refresh()
    eq(job.get_status(), "failed", "status")
    registry = FailedJobRegistry(queue=queue)
    eq(registry.get_job_ids(), [job.id], "the failed registry's jobs")
    eq(registry.count, 1, "failed registry count")
    check("ZeroDivisionError" in (job.exc_info or ""), f"exc_info names the exception: {job.exc_info!r}")
    eq(job.latest_result().type, Result.Type.FAILED, "latest_result type")


@step
def retried():
    """a job with Retry(max=2) that fails once finishes on its second run"""
    job = jobs["flaky"]
    job.refresh()
    eq(job.get_status(), "finished", "status")
    eq(job.return_value(), "succeeded on run 2", "result")
    eq(job.retries_left, 1, "retries left")
    eq(conn.get("rq-test:flaky-runs"), b"2", "runs counted by the job")
    check(job.id not in FailedJobRegistry(queue=queue).get_job_ids(), "the retried job is not in the failed registry")


@step
def meta_and_dependency():
    """job.meta saved from inside a job; a dependent job runs after its parent"""
    job = jobs["meta"]
    job.refresh()
    eq(job.meta.get("progress"), 100, "meta written by the job")
    eq(job.return_value(), job.id, "the job saw its own id")
    child = jobs["child"]
    child.refresh()
    eq(child.get_status(), "finished", "status of the dependent job")
    eq(child.return_value(), 2, "result of the dependent job")
    check(child.started_at >= jobs["adds"][0].ended_at, "the dependent job started after its parent ended")


@step
def registries():
    """registries at the end: 14 finished, none started"""
    eq(FinishedJobRegistry(queue=queue).count, 14, "finished registry count")
    eq(StartedJobRegistry(queue=queue).count, 0, "started registry count")
    finished = set(FinishedJobRegistry(queue=queue).get_job_ids())
    want = {j.id for j in jobs["adds"]} | {jobs[n].id for n in ("describe", "flaky", "meta", "child")}
    eq(finished, want, "jobs in the finished registry")


@step
def delete():
    """deleting a job removes its hash and its registry entry"""
    job = jobs["adds"][1]
    job.delete()
    eq(conn.exists(job.key), 0, "the hash of a deleted job")
    try:
        Job.fetch(job.id, connection=conn)
        raise AssertionError("Job.fetch of a deleted job found it")
    except NoSuchJobError:
        pass
    eq(FinishedJobRegistry(queue=queue).count, 13, "finished registry count after the delete")


extras = Queue("lawnkv-extras", connection=conn)


@step
def extras_enqueue():
    """enqueue_many, positions, enqueue_at (due), on_success, result_ttl, cancel"""
    prepared = [Queue.prepare_data(rq_tasks.add, (i, i), result_ttl=100) for i in range(3)]
    jobs["many"] = extras.enqueue_many(prepared)
    eq([extras.get_job_position(j) for j in jobs["many"]], [0, 1, 2], "positions in the queue (LPOS)")
    jobs["callback"] = extras.enqueue(rq_tasks.add, 20, 22, on_success=rq_tasks.record_success)
    jobs["cancel"] = extras.enqueue(rq_tasks.mark, "rq-test:canceled-ran")
    jobs["cancel"].cancel()
    eq(jobs["cancel"].get_status(), "canceled", "status of a canceled job")
    eq(CanceledJobRegistry(queue=extras).get_job_ids(), [jobs["cancel"].id], "the canceled registry")
    jobs["requeue"] = extras.enqueue(rq_tasks.flaky, "rq-test:requeue-runs")
    jobs["at"] = extras.enqueue_at(datetime.now(timezone.utc) - timedelta(seconds=1), rq_tasks.add, 5, 5)
    eq(jobs["at"].get_status(), "scheduled", "status of a job enqueued at a time")
    eq(ScheduledJobRegistry(queue=extras).get_job_ids(), [jobs["at"].id], "the scheduled registry")
    eq(extras.count, 5, "jobs queued (not the canceled one, not the scheduled one)")


@step
def extras_work():
    """a burst worker with the scheduler runs the due scheduled job and the rest"""
    worker = Worker([extras], connection=conn)
    print("     (the worker logs the traceback of the first run of the job to requeue: expected)", flush=True)
    eq(worker.work(burst=True, with_scheduler=True, logging_level="WARNING"), True, "work did work")
    eq(extras.count, 0, "jobs left queued")
    eq(ScheduledJobRegistry(queue=extras).count, 0, "scheduled registry after the burst")
    at = jobs["at"]
    at.refresh()
    eq((at.get_status(), at.return_value()), ("finished", 10), "status and result of the scheduled job")
    for i, job in enumerate(jobs["many"]):
        job.refresh()
        eq(job.return_value(), 2 * i, f"result of enqueue_many job {i}")
        ttl = conn.ttl(job.key)
        check(0 < ttl <= 100, f"TTL of a job with result_ttl=100: {ttl}")
    eq(jobs["callback"].return_value(), 42, "result of the job with a callback")
    eq(conn.get(f"rq-test:success:{jobs['callback'].id}"), b"42", "what on_success wrote")
    eq(jobs["cancel"].get_status(), "canceled", "status of the canceled job after the burst")
    eq(conn.exists("rq-test:canceled-ran"), 0, "the canceled job never ran")



@step
def requeue():
    """a failed job requeued runs again: two results, newest first (XREVRANGE)"""
    job = jobs["requeue"]
    eq(job.get_status(), "failed", "status after its first run")
    FailedJobRegistry(queue=extras).requeue(job.id)
    eq(job.get_status(), "queued", "status after requeue")
    eq(Worker([extras], connection=conn).work(burst=True, logging_level="WARNING"), True, "work did work")
    job.refresh()
    eq((job.get_status(), job.return_value()), ("finished", "succeeded on run 2"), "status and result")
    eq([r.type for r in job.results()], [Result.Type.SUCCESSFUL, Result.Type.FAILED], "results, newest first")
    eq(job.latest_result().type, Result.Type.SUCCESSFUL, "latest_result type")
    eq(conn.xlen(f"rq:results:{job.id}"), 2, "entries in the job's result stream")


conn.close()
finish(label)
