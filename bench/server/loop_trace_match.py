#!/usr/bin/env python3
"""Lines up a probe's slow replies with the server's loop trace.

    loop_trace_match.py TRACE SLOW [--from NS --to NS] [--sched FTRACE]

TRACE: the file LAWNKV_LOOP_TRACE named (server/loop_trace.hpp): "phase
start_ns dur_ns" a line, CLOCK_MONOTONIC. SLOW: expiry-drain's --slow-file:
"sent_ns received_ns latency_us ms_from_last_deadline" a line.

For each slow reply, what the server did between the probe's send and its
receipt: the longest top-level phase that overlapped (expiry, io, prepare,
release, cron, aging, evict), the longest nested one (a reap chunk, a read),
the time spent waiting in poll, and the time no phase covered (the server's
thread did not run, or ran libuv's own few instructions: the machine's).
A reply is put down to lawnkv when a phase it waited behind ran over 1.2 ms
(the expiry budget, 1 ms, and its overshoot) or lawnkv's phases filled over
1.5 ms of it; else to the machine (the server waited in poll, or did not run).
--sched: ftrace's scheduler events (expiry_stall_run.sh SCHED_TRACE=1) in
each slow reply's window: what ran on CPU 1, when lawnkv was woken.

Then, over the trace between the first and last slow reply's window (or
--from/--to): each phase's maximum and how many ran over 1 ms, and the
uncovered gaps over 1 ms (the loop thread not running though it had not
gone to sleep in poll).
"""
import sys
from bisect import bisect_left

TOP = {"cron", "expiry", "release", "evict", "prepare", "io", "aging"}
NESTED = {"chunk", "flush", "read"}
LAWNKV_NS = 1_000_000
# A reply is lawnkv's when one phase it waited behind ran past the expiry
# budget's overshoot (1.2 ms), or lawnkv's phases filled over 1.5 ms of it.
PHASE_NS = 1_200_000
BUSY_NS = 1_500_000


def load_sched(path):
    """ftrace text (trace_clock mono): (ns, cpu, event text) of the events on
    CPU 1 (the server's) and of the wake-ups of lawnkv and the bench."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            try:
                head, rest = line.split(": ", 1)
                cpu = head[head.index("[") + 1:head.index("]")]
                ts = int(round(float(head.split()[-1]) * 1e9))
            except ValueError:
                continue
            if cpu.endswith("1") or "lawnkv" in rest or "expiry-drain" in rest:
                out.append((ts, int(cpu), " ".join(rest.split())))
    out.sort()
    return out


def load_trace(path):
    events = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            phase, start, dur = parts[0], int(parts[1]), int(parts[2])
            cpu = int(parts[3]) if len(parts) > 3 and int(parts[3]) >= 0 else None
            events.append((start, start + dur, phase, cpu))
    events.sort()
    return events


def overlap(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


def covered(intervals, t0, t1):
    """Length of [t0, t1) covered by the union of intervals (sorted by start)."""
    total, cur0, cur1 = 0, None, None
    for s, e in intervals:
        s, e = max(s, t0), min(e, t1)
        if e <= s:
            continue
        if cur1 is None or s > cur1:
            if cur1 is not None:
                total += cur1 - cur0
            cur0, cur1 = s, e
        else:
            cur1 = max(cur1, e)
    if cur1 is not None:
        total += cur1 - cur0
    return total


def own(e):
    """A phase's own time: its CPU time where measured, else its wall time."""
    return e[1] - e[0] if e[3] is None else e[3]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    events = load_trace(argv[1])
    starts = [e[0] for e in events]
    longest = max((e[1] - e[0] for e in events), default=0)
    slow = []
    last_deadline = None
    with open(argv[2]) as f:
        for line in f:
            p = line.split()
            if line.startswith("# last_deadline_mono_ns"):
                last_deadline = float(p[2])
                continue
            if len(p) >= 4:
                slow.append((int(p[0]), int(p[1]), float(p[2]), p[3]))
    lo = int(argv[argv.index("--from") + 1]) if "--from" in argv else None
    hi = int(argv[argv.index("--to") + 1]) if "--to" in argv else None

    sched = load_sched(argv[argv.index("--sched") + 1]) if "--sched" in argv else None
    lawnkv = machine = 0
    print("latency_us at_ms verdict busy_us wait_us uncovered_us longest_top longest_nested")
    for t0, t1, lat, at in slow:
        i = bisect_left(starts, t0 - longest)
        near = []
        while i < len(events) and events[i][0] < t1:
            if events[i][1] > t0:
                near.append(events[i])
            i += 1
        top = [e for e in near if e[2] in TOP]
        nested = [e for e in near if e[2] in NESTED]
        wait = [e for e in near if e[2] == "wait"]
        big_top = max(top, key=lambda e: e[1] - e[0], default=None)
        big_nested = max(nested, key=lambda e: e[1] - e[0], default=None)
        busy = covered(sorted((s, e) for s, e, *_ in top), t0, t1)
        waited = covered(sorted((s, e) for s, e, *_ in wait), t0, t1)
        uncovered = (t1 - t0) - covered(sorted((s, e) for s, e, *_ in top + wait), t0, t1)
        # A phase counts by the loop thread's CPU time in it where measured:
        # wall time it did not run is the machine's.
        # A reap call ("chunk") has no CPU time of its own: its cycle's counts.
        longest_phase = max([own(e) for e in top if e[2] != "io"] +
                            [own(e) for e in nested if e[3] is not None], default=0)
        busy_cpu = sum(own(e) * overlap(e[0], e[1], t0, t1) / max(1, e[1] - e[0]) for e in top)
        is_lawnkv = longest_phase > PHASE_NS or busy_cpu > BUSY_NS
        lawnkv += is_lawnkv
        machine += not is_lawnkv

        def fmt(e):
            if e is None:
                return "-"
            return f"{e[2]}:{(e[1] - e[0]) / 1000:.0f}" + ("" if e[3] is None else f"(cpu {e[3] / 1000:.0f})")

        print(f"{lat:.0f} {at} {'lawnkv' if is_lawnkv else 'machine'} {busy / 1000:.0f} {waited / 1000:.0f} "
              f"{uncovered / 1000:.0f} {fmt(big_top)} {fmt(big_nested)}")
        if sched is not None:
            for ts, cpu, text in sched:
                if t0 - 200_000 <= ts <= t1:
                    print(f"    {(ts - t0) / 1000:+8.0f}us [{cpu}] {text}")
    print(f"slow_replies={len(slow)} lawnkv={lawnkv} machine={machine}")

    if lo is None and last_deadline is not None:
        lo, hi = int(last_deadline) - 1_300_000_000, int(last_deadline) + 300_000_000
    elif lo is None and slow:
        lo, hi = min(s[0] for s in slow) - 50_000_000, max(s[1] for s in slow) + 50_000_000
    if lo is None:
        return
    window = [e for e in events if e[1] > lo and e[0] < hi]
    stats = {}
    for s, e, ph, _ in window:
        d = e - s
        mx, n = stats.get(ph, (0, 0))
        stats[ph] = (max(mx, d), n + (d > LAWNKV_NS))
    # Phases over 1.2 ms of wall time, with their CPU time: lawnkv's when the
    # CPU time is as long, the machine's when the thread did not run.
    long_ones = [(s, e, ph, c) for s, e, ph, c in window if ph in TOP and ph != "io" and e - s > PHASE_NS]
    print("long_phases (phase:wall_us/cpu_us@ms) " + " ".join(
        f"{ph}:{(e - s) / 1000:.0f}/{'?' if c is None else round(c / 1000)}"
        + ("" if last_deadline is None else f"@{(s - last_deadline) / 1e6:+.1f}") for s, e, ph, c in long_ones))
    if sched is not None:
        for s0, e0, ph, c in long_ones:
            print(f"  {ph} {(e0 - s0) / 1000:.0f} us: CPU 1 meanwhile")
            for ts, cpu, text in sched:
                if s0 - 100_000 <= ts <= e0 and cpu == 1:
                    print(f"    {(ts - s0) / 1000:+8.0f}us {text}")
    print("phase_max_us " + " ".join(f"{ph}={mx / 1000:.0f}" for ph, (mx, _) in sorted(stats.items())))
    print("phases_over_1ms " + " ".join(f"{ph}={n}" for ph, (_, n) in sorted(stats.items()) if n))
    # Gaps: stretches covered by no top-level phase and no wait.
    spans = sorted((s, e) for s, e, ph, _ in window if ph in TOP or ph == "wait")
    gaps = []
    end = None
    for s, e in spans:
        if end is not None and s - end > LAWNKV_NS:
            gaps.append((end, s - end))
        end = e if end is None else max(end, e)
    if last_deadline is not None:
        # In the flood a key falls due every ms or so: a wait in poll over
        # 1.5 ms there is a wake-up that came late (the timer was armed for
        # the next ms), the loop thread not running: the machine's.
        flood = [(s, e) for s, e, ph, _ in events
                 if ph == "wait" and last_deadline - 1e9 < e <= last_deadline and e - s > 1_500_000]
        print(f"late_wakeups_in_flood={len(flood)} " +
              " ".join(f"{(e - s) / 1000:.0f}@{(e - last_deadline) / 1e6:+.1f}" for s, e in flood[:10]))
    late = [(s, e) for s, e, ph, _ in events if ph == "late"]
    if late:
        def at(ns):
            return "?" if last_deadline is None else f"{(ns - last_deadline) / 1e6:+.1f}"
        print("late_keys (lag_ms@ms_from_last_deadline of the reap) " +
              " ".join(f"{(e - s) / 1e6:.0f}@{at(e)}" for s, e in late))
    print(f"gaps_over_1ms={len(gaps)} " + " ".join(f"{g / 1000:.0f}" for _, g in sorted(gaps, key=lambda x: -x[1])[:10]))


if __name__ == "__main__":
    main(sys.argv)
