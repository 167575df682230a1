#!/usr/bin/env python3
"""Markdown report of bench/dehydrator/run.sh's raw results (stdout).

    python3 bench/dehydrator/report.py --raw bench/results/raw/dehydrator

Reads <part>.txt (one "key=value ..." line per round), <part>.cmds (the exact
command lines) and machine.txt; a part without results is left out. Every
figure is the median over the rounds, with the range [min-max] beside it.
"""

import argparse
import os
import statistics

REDE_POLL_MS = 267  # issue 5: ReDe in Redis 7.0.15, one POLL of 1,000,000 due
REDE_EMPTY_US = 20.8  # ReDe: empty POLL / TTN with 10,000 distinct TTLs
REDE_XPOLL_MS = 960  # ReDe: XPOLL of 40,000 due elements
TARGET_POLL_MS = 100
TARGET_EMPTY_US = 1.0
TARGET_XPOLL_MS = 10


def rows(raw, part):
    path = os.path.join(raw, part + ".txt")
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            kv = dict(tok.split("=", 1) for tok in line.split() if "=" in tok)
            if kv:
                out.append(kv)
    return out


def read(raw, name):
    path = os.path.join(raw, name)
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read().strip()


def nums(rs, key):
    return [float(r[key]) for r in rs if key in r]


def med(rs, key, fmt="{:,.1f}", scale=1.0):
    v = [x * scale for x in nums(rs, key)]
    if not v:
        return "n/a"
    m = statistics.median(v)
    if len(v) == 1:
        return fmt.format(m)
    return f"{fmt.format(m)} [{fmt.format(min(v))}-{fmt.format(max(v))}]"


def median(rs, key, scale=1.0):
    v = [x * scale for x in nums(rs, key)]
    return statistics.median(v) if v else float("nan")


def commands(raw, part):
    lines = []
    when = read(raw, part + ".when").splitlines()
    if when:
        lines += ["", f"Measured {when[0]}" + (f" ({when[2]})" if len(when) > 2 else "")
                  + (f" on {when[1]}." if len(when) > 1 else ".")]
    text = read(raw, part + ".cmds")
    if text:
        lines += ["", "```", text, "```"]
    return lines


def verdict(value, target):
    if value != value:  # NaN
        return "n/a"
    return "meets" if value <= target else f"**misses** ({value / target:.1f}x)"


def section_throughput(raw):
    rs = rows(raw, "throughput")
    if not rs:
        return []
    lines = [
        "## 1. PUSH and GIDPUSH throughput (redis-benchmark, -c 50, beside SET ... PX)",
        "",
        "| command | -P | ops/s | vs SET PX | p50 ms | server on-CPU ns/request |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    names = {"push": "REDE.PUSH (unique ids)", "gidpush": "REDE.GIDPUSH", "set": "SET key PX 60000"}
    for p in sorted({r["pipeline"] for r in rs}, key=int):
        set_rps = median([r for r in rs if r["pipeline"] == p and r["test"] == "set"], "rps")
        for t in ("push", "gidpush", "set"):
            sel = [r for r in rs if r["pipeline"] == p and r["test"] == t]
            if not sel:
                continue
            ratio = median(sel, "rps") / set_rps if set_rps == set_rps and set_rps else float("nan")
            lines.append(
                f"| {names[t]} | {p} | {med(sel, 'rps', '{:,.0f}')} | {ratio:.2f} | {med(sel, 'p50_ms', '{:.3f}')} "
                f"| {med(sel, 'cpu_ns_per_req', '{:,.0f}')} |"
            )
    lines += commands(raw, "throughput")
    return lines


def section_drain(raw):
    rs = rows(raw, "drain")
    if not rs:
        return []
    n = int(rs[0]["elements"])
    cpu = median(rs, "poll_server_cpu_ms")
    lines = [
        f"## 2. One REDE.POLL draining {n:,} due elements over {rs[0]['ttls']} TTLs",
        "",
        "| measure | median [range] | target | ReDe |",
        "|---|---:|---:|---:|",
        f"| client wall time, send to last byte (ms) | {med(rs, 'poll_client_ms')} | {TARGET_POLL_MS} | {REDE_POLL_MS} |",
        f"| INFO commandstats usec of rede.poll (ms) | {med(rs, 'poll_server_usec', scale=1e-3)} | {TARGET_POLL_MS} | |",
        f"| server on-CPU time during the call (ms) | {med(rs, 'poll_server_cpu_ms')} | {TARGET_POLL_MS} | |",
        f"| server waiting for a core meanwhile (ms) | {med(rs, 'poll_server_wait_ms')} | | |",
        f"| elements out of the expected order | {med(rs, 'order_errors', '{:,.0f}')} | 0 | |",
        f"| pushing them, pipelined 10,000 a batch (ms) | {med(rs, 'push_ms', '{:,.0f}')} | | |",
        "",
        f"On-CPU time against the target: {verdict(cpu, TARGET_POLL_MS)}. The wall-clock figures include the"
        " time the server waited for one of the 2 shared cores (the run-queue row).",
    ]
    lines += commands(raw, "drain")
    return lines


def section_memory(raw):
    rs = rows(raw, "drain")
    if not rs:
        return []
    n = int(rs[0]["elements"])
    mb = 1 / (1024 * 1024)

    def per_el(key_hi, key_lo):
        v = [(float(r[key_hi]) - float(r[key_lo])) / n for r in rs]
        return f"{statistics.median(v):,.1f} [{min(v):,.1f}-{max(v):,.1f}]"

    lines = [
        f"## 5. Memory of {n:,} elements (ids `id:NNNNNNN`, values `val:NNNNNNN`: 10 and 11 bytes)",
        "",
        "| state | INFO used_memory (MB) | RSS (MB) | MEMORY USAGE dq (MB) |",
        "|---|---:|---:|---:|",
        f"| before (empty server) | {med(rs, 'mem_before', '{:,.2f}', mb)} | {med(rs, 'rss_kb_before', '{:,.2f}', 1 / 1024)} | |",
        f"| an emptied dehydrator (1 element pushed and polled) | {med(rs, 'mem_empty_dehydrator', '{:,.2f}', mb)} | "
        f"| {med(rs, 'usage_empty', '{:,.3f}', mb)} |",
        f"| {n:,} elements pushed | {med(rs, 'mem_pushed', '{:,.2f}', mb)} | {med(rs, 'rss_kb_pushed', '{:,.2f}', 1 / 1024)} "
        f"| {med(rs, 'usage_pushed', '{:,.2f}', mb)} |",
        f"| all polled (the key stays, TTN -1) | {med(rs, 'mem_polled', '{:,.2f}', mb)} | {med(rs, 'rss_kb_polled', '{:,.2f}', 1 / 1024)} "
        f"| {med(rs, 'usage_polled', '{:,.2f}', mb)} |",
        f"| DEL of the key | {med(rs, 'mem_deleted', '{:,.2f}', mb)} | {med(rs, 'rss_kb_deleted', '{:,.2f}', 1 / 1024)} | |",
        f"| MEMORY PURGE (malloc_trim) | {med(rs, 'mem_purged', '{:,.2f}', mb)} | {med(rs, 'rss_kb_purged', '{:,.2f}', 1 / 1024)} | |",
        "",
        f"- Bytes per element (used_memory, pushed - emptied dehydrator): {per_el('mem_pushed', 'mem_empty_dehydrator')};"
        f" MEMORY USAGE says {per_el('usage_pushed', 'usage_empty')}.",
        f"- Kept by the emptied dehydrator after polling everything, per element it held:"
        f" {per_el('mem_polled', 'mem_empty_dehydrator')} bytes (freed by DEL).",
        f"- After DEL, used_memory minus before: {per_el('mem_deleted', 'mem_before')} bytes per element"
        f" ({med(rs, 'mem_deleted', '{:,.0f}')} vs {med(rs, 'mem_before', '{:,.0f}')} bytes).",
    ]
    return lines


def section_empty(raw):
    rs = rows(raw, "empty")
    if not rs:
        return []
    descr = {
        "spread": "TTLs 1 s apart from 1 h (the issue's case), one element each",
        "clustered": "TTLs 1 ms apart from 1 h, one element each",
        "jittered": "100,000 elements, 10 per TTL, TTLs 1 ms apart from 10 min (600,000-609,999 ms)",
    }
    lines = [
        "## 3. Empty REDE.POLL and REDE.TTN with 10,000 distinct TTLs",
        "",
        "usec_per_call is INFO commandstats after CONFIG RESETSTAT; on-CPU is the server loop thread's"
        " time per call (schedstat), which includes reading, parsing and replying: PING's row is that floor."
        f" Target {TARGET_EMPTY_US} µs, ReDe {REDE_EMPTY_US} µs.",
        "",
        "| TTLs | calls | command | commandstats usec_per_call | on-CPU µs/call | on-CPU minus PING | verdict |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    probe = []
    for case in ("spread", "clustered", "jittered"):
        sel = [r for r in rs if r.get("case") == case]
        if not sel:
            continue
        ping = median(sel, "ping_server_cpu_us_per_call")
        for cmd in ("poll", "ttn", "ping"):
            over = median(sel, f"{cmd}_server_cpu_us_per_call") - ping
            v = (
                verdict(max(median(sel, f"{cmd}_usec_per_call"), over), TARGET_EMPTY_US)
                if cmd != "ping"
                else ""
            )
            lines.append(
                f"| {descr[case]} | {sel[0]['calls']} | {cmd.upper()} | {med(sel, f'{cmd}_usec_per_call', '{:.3f}')} "
                f"| {med(sel, f'{cmd}_server_cpu_us_per_call', '{:.2f}')} | {over:.2f} | {v} |"
            )
        if "waiter_ping_p50_us" in sel[0]:
            probe.append(
                f"| {descr[case]} | {med(sel, 'nowaiter_ping_p50_us')} | {med(sel, 'nowaiter_ping_p99_us')} "
                f"| {med(sel, 'waiter_ping_p50_us', '{:,.1f}')} | {med(sel, 'waiter_ping_p99_us', '{:,.1f}')} "
                f"| {med(sel, 'waiter_server_cpu_us_per_ping', '{:,.1f}')} |"
            )
    if probe:
        lines += [
            "",
            "PING round trips from a second client, alone and while a third client is blocked in"
            " `REDE.BPOLL eq 0` on the same dehydrator:",
            "",
            "| TTLs | p50 µs alone | p99 µs alone | p50 µs, BPOLL waiting | p99 µs, BPOLL waiting"
            " | server on-CPU µs per PING, BPOLL waiting |",
            "|---|---:|---:|---:|---:|---:|",
        ] + probe
    lines += commands(raw, "empty")
    return lines


def section_xpoll(raw):
    rs = rows(raw, "xpoll")
    if not rs:
        return []
    lines = [
        f"## 4. REDE.XPOLL of {int(rs[0]['elements']):,} due elements",
        "",
        f"Target {TARGET_XPOLL_MS} ms, ReDe {REDE_XPOLL_MS} ms. The first XPOLL moves the due elements from the"
        " index to the due list; the second only lists them.",
        "",
        "| TTLs | call | client wall ms | commandstats ms | server on-CPU ms | order errors | verdict (on-CPU) |",
        "|---:|---|---:|---:|---:|---:|---|",
    ]
    for ttls in sorted({r["ttls"] for r in rs}, key=int):
        sel = [r for r in rs if r["ttls"] == ttls]
        for call, k in (("first XPOLL", "xpoll1"), ("second XPOLL", "xpoll2")):
            lines.append(
                f"| {ttls} | {call} | {med(sel, k + '_client_ms', '{:.2f}')} | {med(sel, k + '_server_usec', '{:.2f}', 1e-3)} "
                f"| {med(sel, k + '_server_cpu_ms', '{:.2f}')} | {med(sel, 'order_errors', '{:,.0f}')} "
                f"| {verdict(median(sel, k + '_server_cpu_ms'), TARGET_XPOLL_MS)} |"
            )
        lines.append(
            f"| {ttls} | XACK of all, 1,000 ids a call | {med(sel, 'xack_all_client_ms', '{:.1f}')} "
            f"| {med(sel, 'xack_all_server_usec', '{:.1f}', 1e-3)} | {med(sel, 'xack_all_server_cpu_ms', '{:.1f}')} | | |"
        )
    lines += commands(raw, "xpoll")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", default="bench/results/raw/dehydrator")
    args = ap.parse_args()
    machine = read(args.raw, "machine.txt").replace("\n", "; ")
    when = sorted(
        filter(None, (read(args.raw, p + ".when").split("\n")[0] for p in ("throughput", "drain", "empty", "xpoll")))
    )
    out = [
        "# Dehydrator (REDE.*) benchmarks",
        "",
        "Generated by `bench/dehydrator/run.sh` (bench/dehydrator/report.py); do not edit by hand."
        " What the figures mean, the profiles and the fixes they point to: bench/dehydrator/NOTES.md.",
        f"Machine: {machine}." if machine else "",
        f"Runs: {when[0]} to {when[-1]}." if when else "",
        "Each figure: median of the rounds [min-max]. Each round runs on a fresh lawnkv on a loopback port;"
        " DEBUG ADVANCE-TIME moves its clock past the TTLs.",
        "",
    ]
    for section in (section_throughput, section_drain, section_empty, section_xpoll, section_memory):
        s = section(args.raw)
        if s:
            out += s + [""]
    print("\n".join(out).rstrip())


if __name__ == "__main__":
    main()
