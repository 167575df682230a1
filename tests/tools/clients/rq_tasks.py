"""The job functions of tests/tools/clients/rq_jobs.py: RQ's worker imports
them by their dotted name (rq_tasks.add), so they live in a module of their
own, importable from this folder."""

from rq import get_current_job


def add(a, b):
    return a + b


def describe(name, *, times):
    """A result that is not a plain number: RQ pickles it into the result
    stream."""
    return {"name": name, "greeting": ("hi " * times).strip()}


def divide(a, b):
    return a / b


def flaky(counter_key):
    """Fails on its first run and succeeds on the next: the run count is an
    INCR on the job's own connection."""
    runs = get_current_job().connection.incr(counter_key)
    if runs < 2:
        raise RuntimeError(f"run {runs} fails")
    return f"succeeded on run {runs}"


def set_meta():
    """Writes job.meta from inside the job, as RQ documents for progress."""
    job = get_current_job()
    job.meta["progress"] = 100
    job.save_meta()
    return job.id


def record_success(job, connection, result, *args, **kwargs):
    """An on_success callback: RQ calls it in the work horse with the job's
    connection."""
    connection.set(f"rq-test:success:{job.id}", str(result))


def mark(key):
    """A job whose run leaves a trace: a canceled one must leave none."""
    from rq import get_current_job
    get_current_job().connection.set(key, "ran")
    return key
