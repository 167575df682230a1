#!/usr/bin/env python3
"""Turns the raw results of scripts/bench.sh into latest.md and PNG charts.

    python3 bench/server/report.py --raw bench/results/raw --out bench/results

Reads whatever parts are present in --raw (throughput.tsv, memory.tsv,
types-*.tsv, streams-*.tsv, expiry-*.txt/.dat, fields-*.txt/.dat, eviction-*, scripting-* (report_scripting.py),
index.txt, profile.tsv, baseline-*, notify.md,
each with its .cmds and .when) and writes --out/latest.md plus
throughput.png, cpu.png, memory.png, expiry-drain.png and eviction-drain.png
(gnuplot). Ratios are lawnkv/Redis. For throughput, each
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

import report_scripting

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


def rounds_of(rows):
    """Rows of runs (test, server, round, requests, cpu_ticks, clk_tck, ...),
    each given cpu_us (server CPU per request): the tests in order, the
    rounds, series(test, server, field) over the rounds and ratios(test, a, b,
    field), a's over b's round by round."""
    tests = list(dict.fromkeys(r["test"] for r in rows))
    rounds = sorted({int(r["round"]) for r in rows})
    by = {}
    for r in rows:
        r["cpu_us"] = int(r["cpu_ticks"]) / int(r["clk_tck"]) / int(r["requests"]) * 1e6
        by[(r["test"], r["server"], int(r["round"]))] = r

    def series(t, s, field):
        return [float(by[(t, s, k)][field]) for k in rounds if (t, s, k) in by]

    def ratios(t, a, b, field):
        return [float(by[(t, a, k)][field]) / float(by[(t, b, k)][field]) for k in rounds
                if (t, a, k) in by and (t, b, k) in by and float(by[(t, b, k)][field]) > 0]

    return tests, rounds, series, ratios


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
    if kv.get("cpu"):
        note.append(f"on {kv['cpu']}")
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


# ----------------------------------------------------------------------- types
TYPE_NAMES = {"hash": "hash", "set": "set", "list": "list", "zset": "sorted set"}

# Test id -> (what the cell says, the fill before each run, whether the
# reply carries data: then the ceiling server, answering +OK, bounds
# nothing but the client).
TYPE_TESTS = {
    "hset": ("`-t hset` (one field)", "", False),
    "hget": ("`HGET myhash element:__rand_int__ -r 100000`", "HSET `-n 400000 -r 100000`: ~98k fields", True),
    "sadd": ("`-t sadd` (one member)", "", False),
    "sismember": ("`SISMEMBER myset element:__rand_int__ -r 200000`", "SADD `-n 400000 -r 100000`: ~98k members",
                  True),
    "spop": ("`-t spop`", "SADD `-n N -r 1000000000`: ~N members", True),
    "lpush": ("`-t lpush`", "", False),
    "rpop": ("`-t rpop`", "`-t lpush -n N`", True),
    "lrange_100": ("`-t lrange_100` (`LRANGE mylist 0 99`)", "`-t lpush -n N`", True),
    "zadd": ("`-t zadd -r 100000`", "", False),
    "zrangebyscore": ("`ZRANGEBYSCORE myzset 0 +inf LIMIT 0 10`", "`-t zadd -n 400000 -r 100000`: ~98k members",
                      True),
    "zpopmin": ("`-t zpopmin`", "`-t zadd -n N -r 1000000000`: ~N members", True),
    "pfadd": ("`PFADD hll element:__rand_int__ -r 100000000` (dense)",
              "PFADD `-n 100000 -r 100000000`: dense", False),
    "pfadd_sparse": ("`PFADD hll:__rand_int__ element:__rand_int__ -r 100000` (sparse)", "", False),
    "pfcount": ("`PFCOUNT hll` (cached count)", "PFADD `-n 100000 -r 100000000`: dense", True),
    "pfcount_union": ("`PFCOUNT hll hll` (a union: merged and counted each time)",
                      "PFADD `-n 100000 -r 100000000`: dense", True),
    "geosearch": ("`GEOSEARCH geo FROMLONLAT 13.5 38.5 BYRADIUS 1.5 km` (~70 members)",
                  "GEOADD of 100,000 points over 1° × 1°", True),
}


def types_memory(raw, md):
    path = os.path.join(raw, "types-memory.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    by = {(r["shape"], r["server"]): r for r in rows}
    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    md.append("### Memory per element\n")
    md.append("Each shape is loaded with `redis-cli --pipe` (RESP from bench/types/shapes.py: HSET, SADD and RPUSH "
              "of 1,000 elements, ZADD of 100 pairs) into a fresh server of each kind, both started with "
              "`--set-max-intset-entries 10000`; *B/element* = (INFO used_memory after − before, the empty "
              "server) / elements, keys included (names `key:000000`...). An element is a hash field (name and "
              "value), a set member, a list element, a sorted-set member. MEMORY USAGE is of `key:000000` "
              "(`SAMPLES 0`: the whole value), per element in brackets. Target lawnkv/Redis ≤ 1.\n")
    md.append("| type | shape | keys × elements | lawnkv B/element | Redis B/element | lawnkv/Redis | target ≤ 1 | "
              "lawnkv MEMORY USAGE | Redis MEMORY USAGE | encoding (lawnkv / Redis) |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for shape in shapes:
        l, r = by.get((shape, "lawnkv")), by.get((shape, "redis"))
        if not l or not r:
            continue
        n = int(l["keys"]) * int(l["per_key"])
        per = {k: (int(v["used_full"]) - int(v["used_empty"])) / n for k, v in (("l", l), ("r", r))}
        ratio = per["l"] / per["r"] if per["r"] > 0 else float("nan")
        usage = lambda v: f"{int(v['usage']):,} ({int(v['usage']) / int(v['per_key']):.1f})"
        enc = l["encoding"] if l["encoding"] == r["encoding"] else f"{l['encoding']} / {r['encoding']}"
        md.append(f"| {TYPE_NAMES.get(l['type'], l['type'])} | {l['description']} | "
                  f"{int(l['keys']):,} × {int(l['per_key']):,} | {per['l']:.1f} | {per['r']:.1f} | {ratio:.2f} | "
                  f"{'met' if ratio <= 1 else 'not met'} | {usage(l)} | {usage(r)} | {enc} |")
    md.append("")


def types_throughput(raw, md):
    path = os.path.join(raw, "types-throughput.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    servers = [s for s in ("lawnkv", "redis", "ceiling") if any(r["server"] == s for r in rows)]
    tests, rounds, series, ratios = rounds_of(rows)

    n = rows[0]["requests"]
    md.append("### Throughput, redis-benchmark -P 16\n")
    md.append(f"{n} requests a run, `-c 50 -P 16`, redis-benchmark's defaults otherwise (3-byte values; one key; "
              f"one field or member unless `-r` is given), {len(rounds)} round(s); in each round every test runs "
              "against each server in turn, the order rotating. Before each run: FLUSHALL and the fill the test "
              "needs, a redis-benchmark run of its own (*fill*; N = the timed run's requests, so a pop takes from a "
              "full structure; the exact commands are below). `-t lrange_100` is timed as `LRANGE mylist 0 99`, "
              "the command it sends, after the N LPUSHes it would send first in the same run, so the CPU figure is "
              "LRANGE's alone. Cells: median over rounds (min–max); ratios pair the runs of one round. CPU: the "
              "server's utime + stime (/proc/PID/stat) around the run, per request.\n")
    md.append("The ceiling server (bench/ceiling/) stores nothing and answers `+OK` to these commands: for the "
              "writes (the real reply is as short) its figure is what one redis-benchmark process and loopback "
              "TCP allow. For the reads and pops (†) the real reply carries data and the ceiling's does not, so "
              "its figure is only the client's limit with the smallest reply, not a rate a server could reach, "
              "and lawnkv/ceiling there is no share of an attainable maximum.\n")
    ceil = "ceiling" in servers
    head = ("| test | fill | " + " | ".join(f"{SERVER_NAMES[s]} ops/s" for s in servers) +
            " | lawnkv/Redis | target ≥ 1.4 | " + ("lawnkv/ceiling | " if ceil else "") +
            "lawnkv CPU µs/req | Redis CPU µs/req | CPU lawnkv/Redis |")
    md.append(head)
    md.append("|" + "---|" * (head.count("|") - 1))
    f2 = lambda x: f"{x:.2f}"
    for t in tests:
        label, fill, read = TYPE_TESTS.get(t, (t, "", False))
        cells = [cell_mr(series(t, s, "rps"), kops) for s in servers]
        rl = ratios(t, "lawnkv", "redis", "rps")
        line = (f"| {label}{' †' if read else ''} | {fill or '–'} | " + " | ".join(cells) +
                f" | {fmt_ratio(rl)} | {verdict(rl, 1.4, True)} |")
        if ceil:
            line += f" {fmt_ratio(ratios(t, 'lawnkv', 'ceiling', 'rps'))} |"
        line += (f" {cell_mr(series(t, 'lawnkv', 'cpu_us'), f2)} | {cell_mr(series(t, 'redis', 'cpu_us'), f2)} | "
                 f"{fmt_ratio(ratios(t, 'lawnkv', 'redis', 'cpu_us'))} |")
        md.append(line)
    md.append("")


def types(raw, out, md):
    if not any(os.path.exists(os.path.join(raw, f)) for f in ("types-memory.tsv", "types-throughput.tsv")):
        return
    md.append(f"## Data types: hashes, sets, lists, sorted sets, HyperLogLog{when(raw, 'types')}\n")
    types_memory(raw, md)
    types_throughput(raw, md)
    md.append(cmds_block(raw, "types"))


# --------------------------------------------------------------------- streams
STREAM_TESTS = {"xadd": "XADD s * f1 v f2 v", "xrange_10": "XRANGE s - + COUNT 10",
                "xreadgroup_ack": "XREADGROUP COUNT 10 + XACK of its 10 IDs",
                "xpending_10": "XPENDING s g - + 10 (all entries pending)",
                "xautoclaim_10": "XAUTOCLAIM s g c2 0 0-0 COUNT 10 (all entries pending)"}
STREAM_TARGETS = {"xadd", "xrange_10", "xreadgroup_ack"}


def streams(raw, out, md):
    mpath, cpath = os.path.join(raw, "streams-memory.tsv"), os.path.join(raw, "streams-cpu.tsv")
    if not os.path.exists(mpath) and not os.path.exists(cpath):
        return
    md.append(f"## Streams{when(raw, 'streams')}\n")
    if os.path.exists(mpath):
        rows = {r["server"]: r for r in read_tsv(mpath)}
        per = {k: (int(r["used_full"]) - int(r["used_empty"])) / int(r["entries"]) for k, r in rows.items()}
        rss = {k: (int(r["rss_full_kb"]) - int(r["rss_empty_kb"])) * 1024 / int(r["entries"]) for k, r in rows.items()}
        n = int(next(iter(rows.values()))["entries"])
        md.append("### Memory per entry\n")
        md.append(f"{n:,} entries `XADD s * f1 val0000001 f2 val0000002` (two fields of 10-byte values, IDs "
                  "generated) through `redis-cli --pipe`; INFO used_memory (and RSS) after − before, per entry.\n")
        md.append("| | lawnkv | Redis | lawnkv/Redis |")
        md.append("|---|---|---|---|")
        if "lawnkv" in per and "redis" in per:
            md.append(f"| used_memory B/entry | {per['lawnkv']:.1f} | {per['redis']:.1f} | "
                      f"{per['lawnkv'] / per['redis']:.2f} |")
            md.append(f"| RSS B/entry | {rss['lawnkv']:.1f} | {rss['redis']:.1f} | "
                      f"{rss['lawnkv'] / rss['redis']:.2f} |")
        md.append("")
    if os.path.exists(cpath):
        rows = read_tsv(cpath)
        rounds = sorted({int(r["round"]) for r in rows})
        by = {}
        for r in rows:
            r["cpu_us"] = int(r["cpu_ticks"]) / int(r["clk_tck"]) / int(r["requests"]) * 1e6
            by[(r["test"], r["server"], int(r["round"]))] = r
        series = lambda t, s: [by[(t, s, k)]["cpu_us"] for k in rounds if (t, s, k) in by]
        ratios = [lambda t: [by[(t, "lawnkv", k)]["cpu_us"] / by[(t, "redis", k)]["cpu_us"] for k in rounds
                             if (t, "lawnkv", k) in by and (t, "redis", k) in by and by[(t, "redis", k)]["cpu_us"] > 0]][0]
        md.append("### Server CPU per request, -P 16\n")
        md.append(f"{len(rounds)} round(s), the servers alternating; CPU: the server's utime + stime "
                  "(/proc/PID/stat) around the run, per request; cells: median over rounds (min–max). Each test "
                  "starts from FLUSHALL and the stream it needs (commands below). XREADGROUP + XACK counts both "
                  "requests (bench/streams/group_read.cpp sends 8 pairs per pipeline of 16). XPENDING and XAUTOCLAIM "
                  "run with every entry of the stream pending and return 10 entries a request: *per entry "
                  "returned* is the cost per request / 10.\n")
        md.append("| test | lawnkv µs/req | Redis µs/req | lawnkv/Redis | target ≤ 0.5 | "
                  "lawnkv µs/entry returned | Redis µs/entry returned |")
        md.append("|---|---|---|---|---|---|---|")
        f2 = lambda x: f"{x:.2f}"
        for t in dict.fromkeys(r["test"] for r in rows):
            per = int(next(r for r in rows if r["test"] == t)["per_request"])
            rl = ratios(t)
            md.append(f"| {STREAM_TESTS.get(t, t)} | {cell_mr(series(t, 'lawnkv'), f2)} | "
                      f"{cell_mr(series(t, 'redis'), f2)} | {fmt_ratio(rl)} | "
                      f"{verdict(rl, 0.5, False) if t in STREAM_TARGETS else '–'} | "
                      f"{cell_mr([x / per for x in series(t, 'lawnkv')], f2)} | "
                      f"{cell_mr([x / per for x in series(t, 'redis')], f2)} |")
        md.append("")
    md.append(cmds_block(raw, "streams"))


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
              f"between the first deadline and {any_run.get('tail_ms', '0')} ms after the drain's end "
              "(when the reaped keys' memory goes back to the system). Median over rounds (min–max); "
              "each round uses a fresh server.\n")
    fields = [("drain_ms", "drain ms", 1.0, "≤ 50"), ("left_at_last", "left at last deadline", 1.0, ""),
              ("probe_p99_us", "probe p99 ms", 1e-3, "≤ 1"), ("probe_p999_us", "probe p99.9 ms", 1e-3, "≤ 2"),
              ("probe_max_us", "probe max ms", 1e-3, "≤ 2"), ("probe_p50_us", "probe p50 ms", 1e-3, ""),
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
    md.append("The probe's five slowest GETs of each round (µs @ ms after the last deadline):\n")
    for server in ("lawnkv", "redis"):
        for rnd in sorted(runs[server]):
            if "probe_worst" in runs[server][rnd]:
                md.append(f"- {server} round {rnd}: {runs[server][rnd]['probe_worst'].replace(',', ', ')}")
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


# ---------------------------------------------------------------------- fields
def fields(raw, out, md):
    runs = {}
    for path in sorted(glob.glob(os.path.join(raw, "fields-*-*.txt"))):
        name = os.path.basename(path)[len("fields-"):-len(".txt")]
        server, rnd = name.rsplit("-", 1)
        kv = read_kv(path)
        if "drain_ms" in kv:
            runs.setdefault(server, {})[int(rnd)] = kv
    if "lawnkv" not in runs:
        return
    any_run = next(iter(runs["lawnkv"].values()))
    others = [s for s in ("redis74",) if s in runs]
    md.append(f"## Hash-field TTLs: 1 second of field deadlines{when(raw, 'fields')}\n")
    md.append(f"{int(any_run['keys']):,} fields in {int(any_run['hashes']):,} hashes, each loaded with "
              "`HSET h f v` and `HPEXPIREAT h t FIELDS 1 f`, t uniform over "
              f"{any_run['spread_ms']} ms. A hash goes with its last field, so *drain* (first DBSIZE reply "
              "of 0 minus the last deadline) is the time until every field is gone. Event lag, per field: "
              "receive time of the first `hexpired` event of its hash that arrives at least 1 ms after "
              "its deadline, minus the deadline (both servers publish one event per hash and reaping "
              "pass, naming no field; a field whose pass's event was still in flight when it fell due "
              "is credited to that event, so the figure can read low by one event's delivery time). "
              "Redis 7.0 has no field TTLs"
              + (", so Redis 7.4 (built from its source) runs beside lawnkv." if others else
                 "; lawnkv runs alone (set REDIS74_SERVER to add Redis 7.4).")
              + " Median over rounds (min–max), a fresh server each round.\n")
    rows = [("drain_ms", "drain ms", 1.0, "≤ 50"), ("left_at_last", "hashes left at last deadline", 1.0, ""),
            ("probe_p99_us", "probe p99 ms", 1e-3, "≤ 1"), ("probe_max_us", "probe max ms", 1e-3, ""),
            ("event_lag_p50_ms", "hexpired lag p50 ms", 1.0, ""),
            ("event_lag_p99_ms", "hexpired lag p99 ms", 1.0, "≤ 2"),
            ("events_received", "hexpired events received", 1.0, ""),
            ("fields_reported", "fields covered by an event", 1.0, ""),
            ("base_probe_p99_us", "probe p99 ms before the deadlines", 1e-3, "")]
    md.append("| | lawnkv | " + " | ".join("Redis 7.4" for _ in others) + (" | " if others else "")
              + "target (lawnkv) |")
    md.append("|---|---|" + "---|" * len(others) + "---|")

    def vals(server, field):
        xs = []
        for rnd in sorted(runs[server]):
            v = runs[server][rnd].get(field)
            if v is None:
                continue
            v = float(v)
            if field == "drain_ms" and v < 0:
                v = float("inf")
            if v >= 0:
                xs.append(v)
        return xs

    def cell(xs, scale, fmt_int):
        if not xs:
            return "–"
        if any(x == float("inf") for x in xs):
            return "did not drain"
        fmt = (lambda x: f"{x:,.0f}") if fmt_int else (lambda x: f"{x:.2f}")
        m, (lo, hi) = med(xs) * scale, rng([x * scale for x in xs])
        return fmt(m) if len(xs) == 1 else f"{fmt(m)} ({fmt(lo)}–{fmt(hi)})"

    for field, label, scale, target in rows:
        fmt_int = scale == 1.0 and not field.startswith("event_lag") and field != "drain_ms"
        l = vals("lawnkv", field)
        cells = [cell(l, scale, fmt_int)] + [cell(vals(o, field), scale, fmt_int) for o in others]
        t = ""
        if target and l and all(x != float("inf") for x in l):
            ok = med(l) * scale <= float(target.split()[-1])
            t = f"{target}: {'met' if ok else 'not met'}"
        md.append(f"| {label} | " + " | ".join(cells) + f" | {t} |")
    md.append("")
    md.append(cmds_block(raw, "fields"))


# ------------------------------------------------------------------------- aof
def aof(raw, out, md):
    path = os.path.join(raw, "aof.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    md.append(f"## SET with the append-only file{when(raw, 'aof')}\n")
    md.append("redis-benchmark SET (50 clients, -P 16) against each server started with `appendonly yes` and "
              "the fsync policy, in a fresh directory, servers alternated. Median over rounds (min–max). "
              "lawnkv writes an iteration's records once and, under `always`, syncs them with one fdatasync "
              "shared by every client of the iteration.\n")
    md.append("| appendfsync | lawnkv SET/s | Redis SET/s | lawnkv/Redis | target |")
    md.append("|---|---|---|---|---|")
    for policy in ("everysec", "always"):
        def vals(server):
            return [float(r["ops"]) for r in rows if r["policy"] == policy and r["server"] == server and r["ops"]]
        l, r = vals("lawnkv"), vals("redis")
        if not l or not r:
            continue
        ratios = [a / b for a, b in zip(l, r) if b > 0]
        cell = lambda xs: kops(med(xs)) if len(xs) == 1 else f"{kops(med(xs))} ({kops(min(xs))}–{kops(max(xs))})"
        md.append(f"| {policy} | {cell(l)} | {cell(r)} | {fmt_ratio(ratios)} | "
                  f"≥ 1.4: {'met' if med(ratios) >= 1.4 else 'not met'} |")
    md.append("")
    md.append(cmds_block(raw, "aof"))


# -------------------------------------------------------------------- eviction
def cell_mr(xs, fmt):
    """median (min–max) of a list, or the one value."""
    if not xs:
        return "–"
    if len(xs) == 1:
        return fmt(xs[0])
    lo, hi = rng(xs)
    return f"{fmt(med(xs))} ({fmt(lo)}–{fmt(hi)})"


def step_when(raw, step):
    """' — measured DATE, load average L at the start, M at the end' for an
    eviction step, from eviction-STEP.when."""
    lines = read_text(os.path.join(raw, f"eviction-{step}.when")).strip().splitlines()
    if not lines:
        return ""
    kv = {k: v for k, _, v in (l.partition("=") for l in lines[1:])}
    return (f" — measured {lines[0]}, load average {kv.get('load_start', '?')} at the start, "
            f"{kv.get('load_end', '?')} at the end")


def eviction_hits(raw, md):
    path = os.path.join(raw, "eviction-hits.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    refs = {}
    ref_path = os.path.join(raw, "eviction-ref.tsv")
    if os.path.exists(ref_path):
        for r in read_tsv(ref_path):
            refs[(int(r["round"]), int(r["keys"]))] = r
    policies = []
    for r in rows:
        if r["policy"] not in policies:
            policies.append(r["policy"])
    rounds = sorted({int(r["round"]) for r in rows})
    by = {(r["policy"], r["server"], int(r["round"])): r for r in rows}

    def vals(pol, srv, field):
        return [float(by[(pol, srv, k)][field]) for k in rounds if (pol, srv, k) in by]

    def ref(pol, srv, field):
        out_ = []
        for k in rounds:
            r = by.get((pol, srv, k))
            x = refs.get((k, int(r["dbsize"]))) if r else None
            if x:
                out_.append(float(x[field]))
        return out_

    f3 = lambda x: f"{x:.3f}"
    md.append(f"### Hit ratio per policy (trace replay){step_when(raw, 'hits')}\n")
    md.append("bench/eviction/hit_ratio.cpp: a read-through cache client (GET key; on a miss, SET key to a "
              "100-byte value) replays one synthetic trace: 2,000,000 requests over 200,000 keys with "
              "Zipf(0.99) popularity and, after every 100,000 of them, a one-time scan of 10,000 keys "
              "never seen before or since (2,200,000 requests, 9% scan keys). `maxmemory 8mb`; volatile-* "
              "runs SET with `EX 1000000`, so every key is volatile and those policies choose among all keys. "
              "The client pipelines: up to 128 requests with distinct keys, their GETs together, then the "
              "SETs of the misses; per key the order is the trace's (a key never appears twice in a batch). "
              "Hit ratio over all requests after the first 200,000 (warm-up); scan keys always miss. "
              "Each round replays the trace of seed = round against a fresh server of each kind (the "
              "rounds per policy are given beside its name); cells are the median over rounds (min–max). Exact LRU and "
              "Belady's optimum (MIN, which may decline to cache a key) run offline on the same trace at the "
              "key count each server held at the end (DBSIZE).\n")
    md.append("| policy | lawnkv | Redis | lawnkv − Redis | target | exact LRU at lawnkv's keys | "
              "exact LRU at Redis's keys | Belady at lawnkv's keys | Belady at Redis's keys |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for pol in policies:
        l, r = vals(pol, "lawnkv", "hit_ratio"), vals(pol, "redis", "hit_ratio")
        diff = [a - b for a, b in zip(l, r)]
        target = ""
        if pol in ("allkeys-lru", "allkeys-lfu") and diff:
            ok = [d >= 0.03 for d in diff]
            target = "≥ +0.03: " + ("met" if all(ok) else "not met" if not any(ok) else
                                    "met (median)" if med(diff) >= 0.03 else "not met (median)")
        md.append(f"| {pol} ({len(l)}) | {cell_mr(l, f3)} | {cell_mr(r, f3)} | "
                  f"{cell_mr(diff, lambda x: f'{x:+.3f}')} | {target} | "
                  f"{cell_mr(ref(pol, 'lawnkv', 'lru'), f3)} | {cell_mr(ref(pol, 'redis', 'lru'), f3)} | "
                  f"{cell_mr(ref(pol, 'lawnkv', 'belady'), f3)} | {cell_mr(ref(pol, 'redis', 'belady'), f3)} |")
    md.append("")
    md.append("Keys held at the end (DBSIZE), the hit ratio of the Zipf requests alone, and server CPU per "
              "trace request (its GET and its SET if any; utime + stime from /proc/PID/stat around the "
              "replay, on a busy machine):\n")
    md.append("| policy | lawnkv keys | Redis keys | lawnkv Zipf-only | Redis Zipf-only | "
              "lawnkv CPU µs/req | Redis CPU µs/req | replay s lawnkv / Redis |")
    md.append("|---|---|---|---|---|---|---|---|")
    f0 = lambda x: f"{x:,.0f}"
    f2 = lambda x: f"{x:.2f}"
    for pol in policies:
        md.append(f"| {pol} | {cell_mr(vals(pol, 'lawnkv', 'dbsize'), f0)} | "
                  f"{cell_mr(vals(pol, 'redis', 'dbsize'), f0)} | "
                  f"{cell_mr(vals(pol, 'lawnkv', 'zipf_hit_ratio'), f3)} | "
                  f"{cell_mr(vals(pol, 'redis', 'zipf_hit_ratio'), f3)} | "
                  f"{cell_mr(vals(pol, 'lawnkv', 'cpu_us_per_req'), f2)} | "
                  f"{cell_mr(vals(pol, 'redis', 'cpu_us_per_req'), f2)} | "
                  f"{med(vals(pol, 'lawnkv', 'wall_s')):.0f} / {med(vals(pol, 'redis', 'wall_s')):.0f} |")
    md.append("")
    md.append("Redis's approximations depend on time as well as on the trace: its LRU clock ticks once a "
              "second and its LFU counters decay by one a minute (lfu-decay-time 1), so a replay at another "
              "speed gives Redis a slightly different hit ratio; lawnkv's use counters move with accesses and "
              "the clock hand only.\n")
    # LFU counters at the end (round 1).
    freq = read_text(os.path.join(raw, "eviction-freq.txt")).splitlines()
    hist = {}
    for line in freq:
        who, kv = line.split(" ", 1)
        k, v = kv.split("=")
        if k.startswith("freq_hist_"):
            hist.setdefault(who, {})[int(k[len("freq_hist_"):])] = int(v)
    for who in sorted(hist):
        h = hist[who]
        total = sum(h.values())
        if who.startswith("redis"):
            buckets = [(0, 4), (5, 5), (6, 6), (7, 7), (8, 9), (10, 15), (16, 31), (32, 255)]
            parts = [f"{a}{'' if a == b else '–' + str(b)}: {sum(v for c, v in h.items() if a <= c <= b):,}"
                     for a, b in buckets]
        else:
            parts = [f"{c}: {h[c]:,}" for c in sorted(h)]
        md.append(f"OBJECT FREQ over the Zipf keys held at the end, {who} (round 1, {total:,} keys): "
                  + ", ".join(parts) + "\n")


def eviction_cliff(raw, md):
    path = os.path.join(raw, "eviction-cliff.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    rounds = sorted({int(r["round"]) for r in rows})
    by = {(r["mode"], r["server"], int(r["round"])): r for r in rows}

    def vals(mode, srv, fn):
        return [fn(by[(mode, srv, k)]) for k in rounds if (mode, srv, k) in by]

    rps = lambda r: float(r["rps"])
    cpu = lambda r: int(r["cpu_ticks"]) / int(r["clk_tck"]) / int(r["requests"]) * 1e6
    ev = lambda r: int(r["evicted"]) / int(r["requests"])
    n = rows[0]["requests"]
    md.append(f"### SET while every write evicts{step_when(raw, 'cliff')}\n")
    md.append(f"redis-benchmark `-t set -P 16 -c 50 -d 100 -r 100000000 -n {n}` (new keys, 100-byte values). "
              "*evict*: `maxmemory 32mb`, `allkeys-lru`, memory already full from a 500,000-SET fill, so "
              "nearly every SET evicts a key; *no limit*: the same fill and run without maxmemory. A fresh "
              f"server per run, the order rotating; {len(rounds)} round(s), median (min–max); the ratio "
              "pairs the two servers' runs of a round.\n")
    md.append("| | lawnkv ops/s | Redis ops/s | lawnkv/Redis | target | lawnkv CPU µs/req | Redis CPU µs/req | "
              "evictions per SET lawnkv / Redis | p99 ms lawnkv / Redis |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for mode, label in (("evict", "evict"), ("nolimit", "no limit")):
        l, r = vals(mode, "lawnkv", rps), vals(mode, "redis", rps)
        ratio = [a / b for a, b in zip(l, r) if b > 0]
        target = f"≥ 1.4: {verdict(ratio, 1.4, True)}" if mode == "evict" else ""
        p99l, p99r = vals(mode, "lawnkv", lambda x: float(x["p99_ms"])), vals(mode, "redis", lambda x: float(x["p99_ms"]))
        md.append(f"| {label} | {cell_mr(l, kops)} | {cell_mr(r, kops)} | {fmt_ratio(ratio)} | {target} | "
                  f"{cell_mr(vals(mode, 'lawnkv', cpu), lambda x: f'{x:.2f}')} | "
                  f"{cell_mr(vals(mode, 'redis', cpu), lambda x: f'{x:.2f}')} | "
                  f"{med(vals(mode, 'lawnkv', ev)):.2f} / {med(vals(mode, 'redis', ev)):.2f} | "
                  f"{med(p99l):.2f} / {med(p99r):.2f} |")
    md.append("")
    cpu_ratio = [a / b for a, b in zip(vals("evict", "lawnkv", cpu), vals("evict", "redis", cpu)) if b > 0]
    md.append(f"Server CPU per SET while evicting, lawnkv/Redis per round: {fmt_ratio(cpu_ratio)} "
              f"(Redis/lawnkv: {fmt_ratio([1 / x for x in cpu_ratio])}).\n")
    if all(r.get("user_ticks") for r in rows):
        user = lambda r: int(r["user_ticks"]) / int(r["clk_tck"]) / int(r["requests"]) * 1e6
        kern = lambda r: cpu(r) - user(r)
        f2 = lambda x: f"{x:.2f}"
        md.append("That CPU split into user space and the kernel (read, write, epoll, loopback TCP: work that "
                  "both servers do alike and that no data structure changes), µs per SET:\n")
        md.append("| | lawnkv user | Redis user | Redis/lawnkv user | lawnkv kernel | Redis kernel |")
        md.append("|---|---|---|---|---|---|")
        for mode, label in (("evict", "evict"), ("nolimit", "no limit")):
            lu, ru = vals(mode, "lawnkv", user), vals(mode, "redis", user)
            md.append(f"| {label} | {cell_mr(lu, f2)} | {cell_mr(ru, f2)} | "
                      f"{fmt_ratio([b / a for a, b in zip(lu, ru) if a > 0])} | "
                      f"{cell_mr(vals(mode, 'lawnkv', kern), f2)} | {cell_mr(vals(mode, 'redis', kern), f2)} |")
        md.append("")
    instr = os.path.join(raw, "eviction-instr.tsv")
    if os.path.exists(instr):
        per = {(r["mode"], r["server"]): (int(r["instructions"]) / int(r["requests"]),
                                           int(r["evicted"]) / int(r["requests"]))
               for r in read_tsv(instr) if r["instructions"]}
        if all((m, k) in per for m in ("evict", "nolimit") for k in ("lawnkv", "redis")):
            md.append(f"The same SETs under callgrind{step_when(raw, 'instr')} (user-space instructions per SET; "
                      "`maxmemory 16mb` and a 200,000-SET fill for *evict*): a count, not a time, so the machine's "
                      "load does not move it.\n")
            md.append("| | lawnkv instr/SET | Redis instr/SET | Redis/lawnkv | evictions per SET lawnkv / Redis |")
            md.append("|---|---|---|---|---|")
            for mode, label in (("evict", "evict"), ("nolimit", "no limit")):
                l, r = per[(mode, "lawnkv")], per[(mode, "redis")]
                md.append(f"| {label} | {l[0]:,.0f} | {r[0]:,.0f} | {r[0] / l[0]:.2f} | {l[1]:.2f} / {r[1]:.2f} |")
            md.append(f"| cost of evicting (evict − no limit) | {per[('evict', 'lawnkv')][0] - per[('nolimit', 'lawnkv')][0]:,.0f} | "
                      f"{per[('evict', 'redis')][0] - per[('nolimit', 'redis')][0]:,.0f} | | |")
            md.append("")
    cl = [a / b for a, b in zip(vals("evict", "lawnkv", rps), vals("nolimit", "lawnkv", rps)) if b > 0]
    cr = [a / b for a, b in zip(vals("evict", "redis", rps), vals("nolimit", "redis", rps)) if b > 0]
    if cl and cr:
        md.append(f"Throughput while evicting over throughput without a limit, per round: lawnkv "
                  f"{fmt_ratio(cl)}, Redis {fmt_ratio(cr)}.\n")


def eviction_probe(raw, out, md):
    runs = {}
    for path in sorted(glob.glob(os.path.join(raw, "eviction-probe-*-*.txt"))):
        name = os.path.basename(path)[len("eviction-probe-"):-len(".txt")]
        server, rnd = name.rsplit("-", 1)
        kv = read_kv(path)
        if "drain_ms" in kv:
            runs.setdefault(server, {})[int(rnd)] = kv
    if "lawnkv" not in runs or "redis" not in runs:
        return
    md.append(f"### A large eviction at once: probe latency{step_when(raw, 'probe')}\n")
    any_run = next(iter(runs["lawnkv"].values()))
    mb = int(any_run["used_before"]) / 1048576
    md.append(f"bench/eviction/evict_probe.cpp: without maxmemory, SET `fill:N` to {any_run['value']}-byte values "
              f"until used_memory reaches about {mb:,.0f} MB; then `CONFIG SET maxmemory-policy allkeys-random` "
              "and `CONFIG SET maxmemory` to a quarter of the used memory, so three quarters must go. A probe "
              "client sends GET of a random loaded key every 1 ms; the main client polls INFO memory every "
              "2 ms until used_memory is within 64 kB of the limit (*drain*, from sending CONFIG SET; Redis, "
              "whose INFO counts its own reply, stays a few bytes over the limit). Both "
              "servers evict in slices bounded by maxmemory-eviction-tenacity (default 10: about 0.5 ms) "
              "from the event loop and before each command, the probe's and the poll's included. A fresh "
              "server per run; median over rounds (min–max) where there are several.\n")
    fields = [("keys", "keys loaded", 1, "{:,.0f}"), ("used_before", "used_memory before (MB)", 1 / 1048576, "{:,.0f}"),
              ("limit", "maxmemory set (MB)", 1 / 1048576, "{:,.0f}"),
              ("drain_ms", "drain: CONFIG SET to under the limit (ms)", 1, "{:,.0f}"),
              ("evicted_keys", "keys evicted", 1, "{:,.0f}"),
              ("config_set_ms", "CONFIG SET maxmemory round trip (ms)", 1, "{:.2f}"),
              ("probe_p50_us", "probe GET p50 during the drain (ms)", 1e-3, "{:.2f}"),
              ("probe_p99_us", "probe GET p99 (ms)", 1e-3, "{:.2f}"),
              ("probe_max_us", "probe GET max (ms)", 1e-3, "{:.2f}"),
              ("probe_n", "probe GETs during the drain", 1, "{:,.0f}"),
              ("base_probe_p99_us", "probe GET p99 in the 300 ms before (ms)", 1e-3, "{:.2f}"),
              ("base_probe_max_us", "probe GET max in the 300 ms before (ms)", 1e-3, "{:.2f}")]
    md.append("| | lawnkv | Redis |")
    md.append("|---|---|---|")
    for field, label, scale, fmt in fields:
        cells = []
        for srv in ("lawnkv", "redis"):
            xs = [float(runs[srv][k][field]) * scale for k in sorted(runs[srv])]
            if field == "drain_ms" and any(x < 0 for x in xs):
                n_late = sum(1 for x in xs if x < 0)
                ok = [x for x in xs if x >= 0]
                cells.append(f"not within the 120 s timeout in {n_late} of {len(xs)} run(s)" +
                             (f"; {cell_mr(ok, fmt.format)} in the others" if ok else ""))
                continue
            cells.append(cell_mr(xs, fmt.format))
        md.append(f"| {label} | " + " | ".join(cells) + " |")
    rate = {srv: [float(v["evicted_keys"]) / float(v["drain_ms"]) * 1e3 for v in runs[srv].values()
                  if float(v["drain_ms"]) > 0] for srv in ("lawnkv", "redis")}
    md.append(f"| keys evicted per second of drain | {cell_mr(rate['lawnkv'], '{:,.0f}'.format)} | "
              f"{cell_mr(rate['redis'], '{:,.0f}'.format)} |")
    md.append("")
    rel = os.path.relpath(raw, out)
    lr, rr = min(runs["lawnkv"]), min(runs["redis"])
    if os.path.exists(os.path.join(raw, f"eviction-probe-lawnkv-{lr}.dat")):
        script = ("set terminal pngcairo size 1000,450 font 'sans,10'\nset output 'eviction-drain.png'\n"
                  "set title 'used\\_memory after CONFIG SET maxmemory (a quarter of it)'\n"
                  "set xlabel 'ms since CONFIG SET'\nset ylabel 'MB'\nset grid\nset key top right\n"
                  f"plot '{rel}/eviction-probe-lawnkv-{lr}.dat' using 1:2 with lines lw 2 lc rgb '#2a9d3a' "
                  f"title 'lawnkv', '{rel}/eviction-probe-redis-{rr}.dat' using 1:2 with lines lw 2 "
                  "lc rgb '#c0392b' title 'Redis 7.0'\n")
        if gnuplot(script, out):
            md.append("![used memory during the drain](eviction-drain.png)\n")


def eviction(raw, out, md):
    parts = [os.path.exists(os.path.join(raw, f)) for f in ("eviction-hits.tsv", "eviction-cliff.tsv",
                                                               "eviction-instr.tsv")]
    probes = glob.glob(os.path.join(raw, "eviction-probe-*-*.txt"))
    if not any(parts) and not probes:
        return
    md.append(f"## Eviction (maxmemory){when(raw, 'eviction')}\n")
    eviction_hits(raw, md)
    eviction_cliff(raw, md)
    eviction_probe(raw, out, md)
    mem = os.path.join(raw, "memory.tsv")
    if os.path.exists(mem):
        per = {}
        for r in read_tsv(mem):
            per[(r["server"], r["ttl"])] = (int(r["rss_full_kb"]) - int(r["rss_empty_kb"])) * 1024 / int(r["keys"])
        if ("lawnkv", "0") in per and ("lawnkv", "1") in per:
            md.append(f"Without maxmemory the use counter costs nothing: it lives in spare header bits, and the "
                      f"memory section above gives lawnkv {per[('lawnkv', '0')]:.0f} / {per[('lawnkv', '1')]:.0f} "
                      "RSS bytes per key without / with a TTL (16-byte names and values).\n")
    md.append(cmds_block(raw, "eviction"))


# -------------------------------------------------------------------- baseline
def baseline(raw, out, md):
    path = os.path.join(raw, "baseline-throughput.tsv")
    if not os.path.exists(path):
        return
    rows = read_tsv(path)
    if not rows:
        return
    which = read_kv(os.path.join(raw, "baseline-which.txt")).get("baseline", "?")
    rounds = sorted({int(r["round"]) for r in rows})
    configs = []
    for r in rows:
        c = (int(r["pipeline"]), r["test"])
        if c not in configs:
            configs.append(c)
    by = {(int(r["pipeline"]), r["test"], r["server"], int(r["round"])): r for r in rows}
    cpu = lambda r: int(r["cpu_ticks"]) / int(r["clk_tck"]) / int(r["requests"]) * 1e6

    def vals(c, srv, fn):
        return [fn(by[(c[0], c[1], srv, k)]) for k in rounds if (c[0], c[1], srv, k) in by]

    md.append(f"## lawnkv against an earlier build{when(raw, 'baseline')}\n")
    md.append(f"The same redis-benchmark runs as the throughput section ({rows[0]['requests']} requests, "
              f"`-r 1000000 -d 16 -c 50`, the same fill before each run) against this build and the baseline "
              f"({which}), alternated, {len(rounds)} round(s), the order rotating; median (min–max), the "
              "ratio pairing the two runs of a round.\n")
    md.append("| test | -P | this build ops/s | baseline ops/s | this/baseline | this CPU µs/req | "
              "baseline CPU µs/req | this/baseline CPU |")
    md.append("|---|---|---|---|---|---|---|---|")
    f2 = lambda x: f"{x:.2f}"
    for c in configs:
        l, b = vals(c, "lawnkv", lambda r: float(r["rps"])), vals(c, "baseline", lambda r: float(r["rps"]))
        lc, bc = vals(c, "lawnkv", cpu), vals(c, "baseline", cpu)
        md.append(f"| {TEST_NAMES.get(c[1], c[1])} | {c[0]} | {cell_mr(l, kops)} | {cell_mr(b, kops)} | "
                  f"{fmt_ratio([x / y for x, y in zip(l, b) if y > 0])} | {cell_mr(lc, f2)} | {cell_mr(bc, f2)} | "
                  f"{fmt_ratio([x / y for x, y in zip(lc, bc) if y > 0])} |")
    md.append("")
    prof = os.path.join(raw, "baseline-profile.tsv")
    if os.path.exists(prof):
        per = {(r["server"], int(r["pipeline"]), r["test"]): int(r["instructions"]) / int(r["requests"])
               for r in read_tsv(prof) if r["instructions"]}
        md.append("User-space instructions per request under callgrind (counters zeroed before and dumped "
                  "after each run; a count, not a time):\n")
        md.append("| test | -P | this build | baseline | this/baseline |")
        md.append("|---|---|---|---|---|")
        for (p, t) in configs:
            l, b = per.get(("lawnkv", p, t)), per.get(("baseline", p, t))
            if l and b:
                md.append(f"| {TEST_NAMES.get(t, t)} | {p} | {l:,.0f} | {b:,.0f} | {l / b:.3f} |")
        md.append("")
    md.append(cmds_block(raw, "baseline"))


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
    scripting_section = lambda raw, out, md: report_scripting.scripting(raw, out, md, sys.modules[__name__])
    for part in (throughput, memory, types, streams, expiry, fields, aof, eviction, scripting_section, index, profile, baseline,
                 external("notify", "Keyspace-notification lag"),
                 external("tracking", "Client-side caching"),
                 external("dehydrator", "Dehydrator"),
                 external("iothreads", "I/O threads")):
        part(a.raw, a.out, md)
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write("\n".join(md).rstrip() + "\n")


if __name__ == "__main__":
    main()
