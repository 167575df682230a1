"""What the Python client programs share (as check.mjs for the node ones):
each check is a step, named by its docstring; a failed step is recorded and
the run goes on; finish() prints the summary and exits 1 when any failed."""

import sys
import time
import traceback

failures = []


def step(fn):
    """Runs fn as one named step (its docstring); a failure is recorded and
    the run goes on."""
    name = fn.__doc__
    started = time.monotonic()
    try:
        fn()
        print(f"ok   {name} ({(time.monotonic() - started) * 1000:.0f} ms)", flush=True)
    except Exception:
        failures.append(name)
        print(f"FAIL {name}: {traceback.format_exc()}", flush=True)
    return fn


def eq(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def finish(label):
    if failures:
        print(f"{label}: {len(failures)} failed: {', '.join(failures)}")
        sys.exit(1)
    print(f"{label}: all checks passed")
