#!/usr/bin/env python3
"""Turns the raw results of scripts/bench.sh into latest.md and PNG charts.

    python3 bench/server/report.py --raw bench/results/raw --out bench/results

Reads whatever parts are present in --raw (throughput.tsv, memory.tsv,
expiry-*.txt/.dat, index.txt, notify.md, each with its .cmds and .when) and
writes --out/latest.md plus throughput.png, cpu.png, memory.png and
expiry-drain.png (gnuplot). Ratios are lawnkv/Redis. For throughput, each
round's ratio pairs the two servers' runs of that round (they ran back to
back), and the table gives the median ratio and its range over rounds.
Standard library only.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

TEST_NAMES = {"set": "SET", "get": "GET", "setex": "SET … EX 100"}
SERVER_NAMES = {"lawnkv": "lawnkv", "redis": "Redis", "ceiling": "ceiling"}


def read_kv(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    out[k] = v
    return out


def read_tsv(path):
    with open(path) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    head = lines[0]
    return [dict(zip(head, row)) for row in lines[1:]]


def read_text(path, default=""):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return f.read()


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def rng(xs):
    return (min(xs), max(xs)) if xs else (float("nan"), float("nan"))


def kops(x):
    return f"{x / 1000:.0f}k" if x >= 10000 else f"{x / 1000:.1f}k"


def fmt_ratio(xs):
    lo, hi = rng(xs)
    if len(xs) == 1:
        return f"{xs[0]:.2f}"
    return f"**{med(xs):.2f}** ({lo:.2f}–{hi:.2f})"


def verdict(xs, target, at_least):
    """'met', 'not met' or 'unclear' for a median ratio against a target;
    unclear when the range over rounds straddles the target."""
    if not xs:
        return "–"
    ok = (lambda x: x >= target) if at_least else (lambda x: x <= target)
    if all(ok(x) for x in xs):
        return "met"
    if not any(ok(x) for x in xs):
        return "not met"
    return "met (median)" if ok(med(xs)) else "not met (median)"


def cmds_block(raw, part):
    text = read_text(os.path.join(raw, part + ".cmds")).strip()
    if not text:
        return ""
    return "Commands (PORT is a free loopback port chosen at run time):\n\n```\n" + text + "\n```\n"


def when(raw, part):
    """' — measured DATE' for a section's heading, then (a paragraph below it)
    the lawnkv build and the load average while the part ran."""
    lines = read_text(os.path.join(raw, part + ".when")).strip().splitlines()
    if not lines:
        return ""
    kv = {k: v for k, _, v in (l.partition("=") for l in lines[1:])}
    note = []
    if kv.get("source"):
        note.append(f"lawnkv built from {kv['source']}")
    if kv.get("load_start"):
        note.append(f"load average (1/5/15 min) {kv['load_start']} at the start, "
                    f"{kv.get('load_end', '?')} at the end")
    return f" — measured {lines[0]}" + (f"\n\n_{'; '.join(note)}._" if note else "")


def gnuplot(script, cwd):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd, check=True,
                       capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print(f"report: gnuplot failed: {err.strip()}", file=sys.stderr)
        return False


# ------------------------------------------------------------------ throughput
def throughput(raw, out, md):
    path = os.path.join(raw, "throughput.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    servers = [s for s in ("lawnkv", "redis", "ceiling") if any(r["server"] == s for r in rows)]
    configs = []
    for r in rows:
        c = (int(r["pipeline"]), r["test"])
        if c not in configs:
            configs.append(c)
    configs.sort(key=lambda c: (c[0], ["set", "get", "setex"].index(c[1]) if c[1] in TEST_NAMES else 9))
    rounds = sorted({int(r["round"]) for r in rows})
    by = {}
    for r in rows:
        cpu_s = int(r["cpu_ticks"]) / int(r["clk_tck"])
        r["cpu_us"] = cpu_s / int(r["requests"]) * 1e6
        if r.get("user_ticks"):  # older results have the sum only
            r["user_us"] = int(r["user_ticks"]) / int(r["clk_tck"]) / int(r["requests"]) * 1e6
        by[(int(r["pipeline"]), r["test"], r["server"], int(r["round"]))] = r

    def series(c, s, field):
        return [float(by[(c[0], c[1], s, k)][field]) for k in rounds if (c[0], c[1], s, k) in by]

    def ratios(c, a, b, field):
        xs = []
        for k in rounds:
            ra, rb = by.get((c[0], c[1], a, k)), by.get((c[0], c[1], b, k))
            if ra and rb and float(rb[field]) > 0:
                xs.append(float(ra[field]) / float(rb[field]))
        return xs

    n = rows[0]["requests"]
    md.append(f"## Throughput{when(raw, 'throughput')}\n")
    md.append(f"redis-benchmark, {n} requests a run, `-r 1000000 -d 16 -c 50`, {len(rounds)} round(s); "
              "the servers run one after the other in each round, the order rotating; before each run, "
              "FLUSHALL and the same SET fill (`-P 16 -t set`, no TTL) give every run the same keyspace. "
              "Cells: median over rounds (min–max). Ratios pair the runs of the same round.\n")
    head = "| test | -P | " + " | ".join(f"{SERVER_NAMES[s]} ops/s" for s in servers) + \
           " | lawnkv/Redis | target | " + ("lawnkv/ceiling |" if "ceiling" in servers else "")
    md.append(head)
    md.append("|" + "---|" * (head.count("|") - 1))
    chart = []
    for c in configs:
        cells = []
        for s in servers:
            xs = series(c, s, "rps")
            lo, hi = rng(xs)
            cells.append("–" if not xs else kops(xs[0]) if len(xs) == 1 else
                         f"{kops(med(xs))} ({kops(lo)}–{kops(hi)})")
        rl = ratios(c, "lawnkv", "redis", "rps")
        if c[0] == 1:
            target, tv = "client-bound: see CPU", "–"
        elif c[1] == "setex":
            target, tv = "≥ 1.8", verdict(rl, 1.8, True)
        else:
            target, tv = "≥ 1.4", verdict(rl, 1.4, True)
        goal = target if tv == "–" else f"{target}: {tv}"
        line = f"| {TEST_NAMES.get(c[1], c[1])} | {c[0]} | " + " | ".join(cells) + f" | {fmt_ratio(rl)} | {goal} |"
        if "ceiling" in servers:
            rc = ratios(c, "lawnkv", "ceiling", "rps")
            extra = f" ≥ 0.95: {verdict(rc, 0.95, True)}" if c[0] == 1 else ""
            line += f" {fmt_ratio(rc)}{extra} |"
        md.append(line)
        chart.append((c, {s: series(c, s, "rps") for s in servers}, {s: series(c, s, "cpu_us") for s in servers}))
    md.append("")

    md.append("Latency as redis-benchmark reports it (ms; median over rounds), and lawnkv/Redis "
              "p99 (target ≤ 1 in every configuration):\n")
    head = "| test | -P | " + " | ".join(f"{SERVER_NAMES[s]} p50 / p99" for s in servers) + \
           " | p99 lawnkv/Redis | target ≤ 1 |"
    md.append(head)
    md.append("|" + "---|" * (head.count("|") - 1))
    for c in configs:
        cells = []
        for s in servers:
            p50, p99 = series(c, s, "p50_ms"), series(c, s, "p99_ms")
            cells.append(f"{med(p50):.3f} / {med(p99):.3f}" if p50 else "–")
        rl = ratios(c, "lawnkv", "redis", "p99_ms")
        md.append(f"| {TEST_NAMES.get(c[1], c[1])} | {c[0]} | " + " | ".join(cells) +
                  f" | {fmt_ratio(rl)} | {verdict(rl, 1.0, False)} |")
    md.append("")

    md.append("Server CPU time per request (utime + stime from /proc/PID/stat around each run, "
              "divided by the requests; µs): at -P 1 the client is the limit, and this is what tells "
              "the servers apart (target lawnkv/Redis ≤ 0.7).\n")
    head = "| test | -P | " + " | ".join(f"{SERVER_NAMES[s]} µs/req" for s in servers) + \
           " | lawnkv/Redis | target ≤ 0.7 |" + (" ceiling/Redis (the floor) |" if "ceiling" in servers else "")
    md.append(head)
    md.append("|" + "---|" * (head.count("|") - 1))
    for c in configs:
        cells = []
        for s in servers:
            xs = series(c, s, "cpu_us")
            lo, hi = rng(xs)
            cells.append("–" if not xs else f"{xs[0]:.2f}" if len(xs) == 1 else
                         f"{med(xs):.2f} ({lo:.2f}–{hi:.2f})")
        rl = ratios(c, "lawnkv", "redis", "cpu_us")
        floor = f" {fmt_ratio(ratios(c, 'ceiling', 'redis', 'cpu_us'))} |" if "ceiling" in servers else ""
        md.append(f"| {TEST_NAMES.get(c[1], c[1])} | {c[0]} | " + " | ".join(cells) +
                  f" | {fmt_ratio(rl)} | {verdict(rl, 0.7, False)} |" + floor)
    md.append("")

    if all("user_us" in r for r in rows):
        md.append("The user-space part of that CPU time (utime alone; the rest is the kernel's: "
                  "read, write, epoll and loopback TCP, which a server that stores nothing pays too):\n")
        head = "| test | -P | " + " | ".join(f"{SERVER_NAMES[s]} user µs/req" for s in servers) + \
               " | lawnkv/Redis, user time |"
        md.append(head)
        md.append("|" + "---|" * (head.count("|") - 1))
        for c in configs:
            cells = []
            for s in servers:
                xs = series(c, s, "user_us")
                cells.append("–" if not xs else f"{med(xs):.2f}")
            md.append(f"| {TEST_NAMES.get(c[1], c[1])} | {c[0]} | " + " | ".join(cells) +
                      f" | {fmt_ratio(ratios(c, 'lawnkv', 'redis', 'user_us'))} |")
        md.append("")

    # Charts: one row per configuration, median and range per server.
    dat = os.path.join(raw, "chart-throughput.dat")
    rel = os.path.relpath(raw, out)
    with open(dat, "w") as f:
        f.write("# config " + " ".join(f"{s}_med {s}_min {s}_max {s}_cpu_med {s}_cpu_min {s}_cpu_max"
                                       for s in servers) + "\n")
        for c, rps, cpu in chart:
            label = f'"{TEST_NAMES.get(c[1], c[1]).replace("…", "...")} -P{c[0]}"'
            cols = []
            for s in servers:
                a, b = rps[s] or [0], cpu[s] or [0]
                cols += [med(a), min(a), max(a), med(b), min(b), max(b)]
            f.write(label + " " + " ".join(f"{x:.4f}" for x in cols) + "\n")
    colors = {"lawnkv": "#2a9d3a", "redis": "#c0392b", "ceiling": "#7f8c8d"}
    def bars(col_of, title, ylabel, logscale, rows_sel):
        plots = []
        for i, s in enumerate(servers):
            base = 2 + 6 * i + col_of
            plots.append(f"'{rel}/chart-throughput.dat' every ::{rows_sel[0]}::{rows_sel[1]} using "
                         f"{base}:{base + 1}:{base + 2}:xtic(1) title '{SERVER_NAMES[s]}' lc rgb '{colors[s]}'")
        return (f"set title '{title}'\nset ylabel '{ylabel}'\n" + ("set logscale y\n" if logscale else "unset logscale y\n") +
                "plot " + ", ".join(plots) + "\n")
    n1 = sum(1 for c, _, _ in chart if c[0] == 1)
    sel1, sel2 = (0, n1 - 1), (n1, len(chart) - 1)
    common = ("set terminal pngcairo size 1200,500 font 'sans,10'\nset style data histogram\n"
              "set style histogram errorbars gap 2 lw 1\nset style fill solid 0.8 border -1\n"
              "set key top left\nset grid ytics\nset yrange [0:*]\nset datafile commentschars '#'\n"
              "set format y '%.1s%c'\n")
    script = common + "set output 'throughput.png'\nset multiplot layout 1,2\n"
    script += bars(0, "redis-benchmark -P 1 (median, min-max over rounds)", "ops/s", False, sel1)
    if sel2[1] >= sel2[0]:
        script += bars(0, "redis-benchmark -P 16", "ops/s", False, sel2)
    script += "unset multiplot\n"
    script += "set output 'cpu.png'\nset multiplot layout 1,2\n"
    script += bars(3, "server CPU per request, -P 1", "microseconds", False, sel1)
    if sel2[1] >= sel2[0]:
        script += bars(3, "server CPU per request, -P 16", "microseconds", False, sel2)
    script += "unset multiplot\n"
    if gnuplot(script, out):
        md.append("![throughput](throughput.png)\n\n![CPU per request](cpu.png)\n")
    md.append(cmds_block(raw, "throughput"))


# ---------------------------------------------------------------------- memory
def memory(raw, out, md):
    path = os.path.join(raw, "memory.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    keys = int(rows[0]["keys"])
    res = {}
    for r in rows:
        rss = (int(r["rss_full_kb"]) - int(r["rss_empty_kb"])) * 1024 / int(r["keys"])
        used = (int(r["used_full"]) - int(r["used_empty"])) / int(r["keys"])
        res[(r["server"], r["ttl"])] = (rss, used, r)
    md.append(f"## Memory{when(raw, 'memory')}\n")
    md.append(f"{keys:,} keys, 16-byte names and 16-byte values, loaded with `redis-cli --pipe` into a fresh "
              "server; bytes per key = (after − empty server) / keys. RSS is VmRSS from /proc/PID/status, "
              "used_memory is each server's own INFO figure.\n")
    md.append("| keys | lawnkv RSS B/key | Redis RSS B/key | lawnkv/Redis | target | "
              "lawnkv used_memory B/key | Redis used_memory B/key |")
    md.append("|---|---|---|---|---|---|---|")
    chart = []
    for ttl, label, target in (("0", "no TTL", 56), ("1", "with TTL (EX 100000)", 64)):
        l, r = res.get(("lawnkv", ttl)), res.get(("redis", ttl))
        if not l or not r:
            continue
        v = "met" if l[0] <= target else "not met"
        md.append(f"| {label} | {l[0]:.0f} | {r[0]:.0f} | {l[0] / r[0]:.2f} | ≤ {target}: {v} | "
                  f"{l[1]:.0f} | {r[1]:.0f} |")
        chart.append((label, l, r))
    md.append("")
    rel = os.path.relpath(raw, out)
    with open(os.path.join(raw, "chart-memory.dat"), "w") as f:
        f.write("# case lawnkv_rss redis_rss lawnkv_used redis_used\n")
        for label, l, r in chart:
            f.write(f'"{label}" {l[0]:.1f} {r[0]:.1f} {l[1]:.1f} {r[1]:.1f}\n')
    script = ("set terminal pngcairo size 800,450 font 'sans,10'\nset output 'memory.png'\n"
              "set style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
              "set title 'bytes per key (16-byte names and values)'\nset ylabel 'bytes'\nset yrange [0:*]\n"
              "set grid ytics\nset key top left\n"
              f"plot '{rel}/chart-memory.dat' using 2:xtic(1) title 'lawnkv RSS' lc rgb '#2a9d3a', "
              "'' using 3 title 'Redis RSS' lc rgb '#c0392b', "
              "'' using 4 title 'lawnkv used\\_memory' lc rgb '#8fd19e', "
              "'' using 5 title 'Redis used\\_memory' lc rgb '#f1948a'\n")
    if chart and gnuplot(script, out):
        md.append("![memory per key](memory.png)\n")
    md.append(cmds_block(raw, "memory"))


# ---------------------------------------------------------------------- expiry
def expiry(raw, out, md):
    runs = {}
    for path in sorted(glob.glob(os.path.join(raw, "expiry-*-*.txt"))):
        name = os.path.basename(path)[len("expiry-"):-len(".txt")]
        server, rnd = name.rsplit("-", 1)
        kv = read_kv(path)
        if "drain_ms" in kv:
            runs.setdefault(server, {})[int(rnd)] = kv
    if "lawnkv" not in runs or "redis" not in runs:
        return
    any_run = next(iter(runs["lawnkv"].values()))
    md.append(f"## Expiry: 1 second of deadlines{when(raw, 'expiry')}\n")
    md.append(f"{int(any_run['keys']):,} keys (16-byte names and values) loaded with `SET key value PXAT t`, "
              f"t uniform over {any_run['spread_ms']} ms; DBSIZE polled every {any_run['poll_ms']} ms; "
              f"a probe client sends GET every {int(any_run['probe_us']) / 1000:g} ms. "
              "*Drain* = first DBSIZE reply of 0 minus the last deadline (an upper bound). "
              "*Left* = keys still there at the last deadline. Probe latencies are of the GETs sent "
              "between the first deadline and the drain's end. Median over rounds (min–max); "
              "each round uses a fresh server.\n")
    fields = [("drain_ms", "drain ms", 1.0, "≤ 50"), ("left_at_last", "left at last deadline", 1.0, ""),
              ("probe_p99_us", "probe p99 ms", 1e-3, "≤ 1"), ("probe_p999_us", "probe p99.9 ms", 1e-3, "≤ 2"),
              ("probe_max_us", "probe max ms", 1e-3, "≤ 5"), ("probe_p50_us", "probe p50 ms", 1e-3, ""),
              ("base_probe_p99_us", "probe p99 ms before the deadlines", 1e-3, ""),
              ("probe_n", "probe GETs measured", 1.0, "")]
    md.append("| | lawnkv | Redis | lawnkv/Redis | target (lawnkv) |")
    md.append("|---|---|---|---|---|")

    def vals(server, field):
        out_ = []
        for rnd in sorted(runs[server]):
            v = float(runs[server][rnd][field])
            if field == "drain_ms" and v < 0:
                v = float("inf")
            if v >= 0:  # -1: no probe in the window
                out_.append(v)
        return out_

    def cell(xs, scale):
        if not xs:
            return "–"
        if any(x == float("inf") for x in xs):
            return "did not drain in " + str(len([x for x in xs if x == float("inf")])) + " run(s)"
        m, (lo, hi) = med(xs) * scale, rng([x * scale for x in xs])
        fmt = (lambda x: f"{x:.0f}") if scale == 1.0 else (lambda x: f"{x:.2f}")
        return fmt(m) if len(xs) == 1 else f"{fmt(m)} ({fmt(lo)}–{fmt(hi)})"

    for field, label, scale, target in fields:
        l, r = vals("lawnkv", field), vals("redis", field)
        ratios = [a / b for a, b in zip(l, r) if b > 0 and b != float("inf") and a != float("inf")] \
            if len(l) == len(r) else []
        ratio = fmt_ratio(ratios) if ratios else "–"
        t = ""
        if target and l:
            lim = float(target.split()[-1])
            ok = med(l) * scale <= lim
            t = f"{target}: {'met' if ok else 'not met'}"
        md.append(f"| {label} | {cell(l, scale)} | {cell(r, scale)} | {ratio} | {t} |")
    md.append("")

    # Chart: the median round (by drain time) of each server.
    def median_round(server):
        order = sorted(runs[server], key=lambda k: float(runs[server][k]["drain_ms"])
                       if float(runs[server][k]["drain_ms"]) >= 0 else 1e18)
        return order[len(order) // 2]
    lr, rr = median_round("lawnkv"), median_round("redis")
    last = int(any_run["last_deadline"]) - int(any_run["first_deadline"])
    rel = os.path.relpath(raw, out)
    script = ("set terminal pngcairo size 1000,500 font 'sans,10'\nset output 'expiry-drain.png'\n"
              f"set title 'keys remaining; deadlines uniform over {any_run['spread_ms']} ms from 0'\n"
              "set xlabel 'ms since the first deadline'\nset ylabel 'keys (DBSIZE)'\nset grid\n"
              f"set arrow from {last},graph 0 to {last},graph 1 nohead dt 2 lc rgb 'black'\n"
              f"set label 'last deadline' at {last},graph 0.95 offset 0.5,0\n"
              f"set arrow from 0,{int(any_run['keys'])} to {last},0 nohead dt 3 lc rgb 'gray40'\n"
              f"set label 'every key reaped at its deadline' at {last * 0.55:.0f},{int(any_run['keys']) * 0.5:.0f} "
              "tc rgb 'gray40'\n"
              "set key top right\nset xrange [-100:*]\nset format y '%.0s%c'\n"
              f"plot '{rel}/expiry-lawnkv-{lr}.dat' using 1:2 with steps lw 2 lc rgb '#2a9d3a' title 'lawnkv', "
              f"'{rel}/expiry-redis-{rr}.dat' using 1:2 with steps lw 2 lc rgb '#c0392b' title 'Redis 7.0'\n")
    if gnuplot(script, out):
        md.append(f"![keys remaining against time](expiry-drain.png)\n\n(The chart shows each server's "
                  f"median round: lawnkv round {lr}, Redis round {rr}.)\n")
    md.append(cmds_block(raw, "expiry"))


# ----------------------------------------------------------------------- index
def index(raw, out, md):
    text = read_text(os.path.join(raw, "index.txt"))
    if not text:
        return
    md.append(f"## Expiry index microbenchmark{when(raw, 'index')}\n")
    md.append("build/bench-expiry (bench/expiry_bench.cpp: the Lawn-on-a-wheel index against a binary "
              "min-heap, 1,000,000 timers, three TTL mixes; see the file's header for each row). "
              "Time per operation is thread CPU time.\n")
    md.append("```\n" + text.rstrip() + "\n```\n")
    md.append(cmds_block(raw, "index"))


# --------------------------------------------------------------------- profile
def top_functions(path, count):
    """The functions with the most instructions of their own, from a
    callgrind_annotate listing: 'share  file:function' lines, paths cut."""
    out = {}
    for line in read_text(path).splitlines():
        line = line.strip()
        if "%)" not in line or "PROGRAM TOTALS" in line or "(100.0%)" in line:
            continue
        ir, rest = line.split("(", 1)
        share, where = rest.split(")", 1)
        where = where.strip().split(" [")[0]
        func = where.split(":", 1)[1] if ":" in where and not where.startswith("???") else where
        func = func.replace("std::basic_string_view<char, std::char_traits<char> >", "string_view")
        if len(func) > 110:
            func = func[:107] + "..."
        # One function inlined from several files shows once per file: add up.
        out[func] = out.get(func, 0.0) + float(share.strip().rstrip("%"))
    top = sorted(out.items(), key=lambda kv: -kv[1])[:count]
    return [f"{share:6.2f}%  {func}" for func, share in top]


def profile(raw, out, md):
    path = os.path.join(raw, "profile.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    per = {(r["server"], int(r["pipeline"]), r["test"]): int(r["instructions"]) / int(r["requests"])
           for r in rows if r["instructions"]}
    configs = sorted({(p, t) for (_, p, t) in per},
                     key=lambda c: (c[0], ["set", "get", "setex"].index(c[1]) if c[1] in TEST_NAMES else 9))
    md.append(f"## Instructions per request (callgrind){when(raw, 'profile')}\n")
    md.append(f"Each server under valgrind --tool=callgrind, counters zeroed before and dumped after each "
              f"redis-benchmark run of {rows[0]['requests']} requests: user-space instructions per request "
              "(the kernel's work, syscalls and loopback TCP, is not counted). A count, not a time: it does "
              "not move with the machine's load.\n")
    md.append("| test | -P | lawnkv instr/req | Redis instr/req | lawnkv/Redis |")
    md.append("|---|---|---|---|---|")
    for p, t in configs:
        l, r = per.get(("lawnkv", p, t)), per.get(("redis", p, t))
        if l is None or r is None:
            continue
        md.append(f"| {TEST_NAMES.get(t, t)} | {p} | {l:,.0f} | {r:,.0f} | {l / r:.2f} |")
    md.append("")
    for p, t in configs:
        top = top_functions(os.path.join(raw, f"profile-lawnkv-{t}-P{p}.txt"), 12)
        if top and p == max(c[0] for c in configs):
            md.append(f"lawnkv, {TEST_NAMES.get(t, t)} -P {p}: functions with the most instructions of their own "
                      "(share of the run):\n\n```\n" + "\n".join(top) + "\n```\n")
    md.append(cmds_block(raw, "profile"))


def external(part, title):
    def section(raw, out, md):
        text = read_text(os.path.join(raw, part + ".md"))
        if not text:
            return
        if text.lstrip().startswith("#"):  # the script wrote its own title
            lines = text.lstrip().split("\n", 1)
            md.append("## " + lines[0].lstrip("# ") + when(raw, part) + "\n")
            text = lines[1] if len(lines) > 1 else ""
        else:
            md.append(f"## {title}{when(raw, part)}\n")
        # Its sections become subsections of this one.
        text = "\n".join("#" + l if l.startswith("## ") else l for l in text.strip().splitlines())
        md.append(text + "\n")
        md.append(cmds_block(raw, part))
    return section


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    m = read_kv(os.path.join(a.raw, "machine.txt"))
    md = ["# lawnkv against Redis: latest `make bench`\n",
          "Written by scripts/bench.sh (bench/server/report.py). lawnkv and redis-server run on the same "
          "machine in the same run with the same settings (loopback, `--save '' --appendonly no`); "
          "ratios are lawnkv/Redis. The machine is shared: each section gives the load average while "
          "it ran, and the ranges show the noise.\n",
          "| | |", "|---|---|",
          f"| last run | {m.get('date', '?')} (each section says when it was measured, and how busy "
          "the machine was) |",
          f"| machine | {m.get('nproc', '?')} CPUs, {m.get('cpu', '?')}, {m.get('memory', '?')} |",
          f"| kernel | {m.get('kernel', '?')} |",
          f"| lawnkv | {m.get('lawnkv', '?')} |",
          f"| Redis | {m.get('redis', '?')} |",
          f"| client | {m.get('redis_benchmark', '?')} |",
          f"| mode | {'BENCH_QUICK=1 (smoke run: not for comparison)' if m.get('quick') == '1' else 'full'} |",
          ""]
    for part in (throughput, memory, expiry, index, profile, external("notify", "Keyspace-notification lag"),
                 external("dehydrator", "Dehydrator")):
        part(a.raw, a.out, md)
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write("\n".join(md).rstrip() + "\n")


if __name__ == "__main__":
    main()
