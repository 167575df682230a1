"""The scripting section of latest.md (scripts/bench.sh, part scripting):
EVALSHA throughput and server CPU per call beside Redis, the INCR loop's
time, memory per cached script, instructions per call under callgrind.
Called by report.py with its helpers, so this file holds no copy of them."""

import os

SCRIPT_TESTS = {
    "lock": "lock: SET PX, then the release (GET matches, DEL)",
    "release": "release, no lock held (GET misses)",
    "ratelimit": "rate limiter: INCR, PEXPIRE NX, PTTL",
    "jobstep": "job-queue step: ten commands",
    "loop": "INCR loop: per INCR of one script",
}


def scripting(raw, out, md, h):
    """h: report.py's helpers (read_tsv, when, med, rng, fmt_ratio,
    verdict, cell_mr, kops, cmds_block)."""
    paths = {k: os.path.join(raw, f"scripting-{k}.tsv") for k in ("throughput", "loop", "memory", "instr")}
    if not any(os.path.exists(p) for p in paths.values()):
        return
    md.append(f"## Scripting{h.when(raw, 'scripting')}\n")
    md.append("The scripts and why each does what it does: bench/scripting/README.md. Ratios here are "
              "Redis/lawnkv (how many times less lawnkv spends); the target is ≥ 2 for every EVALSHA test.\n")
    throughput(paths["throughput"], md, h)
    instr(paths["instr"], md, h)
    loop(paths["loop"], md, h)
    memory(paths["memory"], md, h)
    md.append(h.cmds_block(raw, "scripting"))


def throughput(path, md, h):
    if not os.path.exists(path):
        return
    rows = h.read_tsv(path)
    if not rows:
        return
    tests, rounds, series, ratios = h.rounds_of(rows)

    md.append("### EVALSHA at -P 16: server CPU per call\n")
    md.append(f"redis-benchmark, {rows[0]['requests']} calls a run, `-c 50 -P 16`, {len(rounds)} round(s), "
              "the servers one after the other in each round, the order rotating; before each run FLUSHALL and "
              "SCRIPT LOAD of the scripts. CPU: the server's utime + stime (/proc/PID/stat) around the run, per "
              "call. Cells: median over rounds (min–max); a ratio pairs the two runs of one round.\n")
    f2 = lambda x: f"{x:.2f}"
    md.append("| test | lawnkv calls/s | Redis calls/s | lawnkv CPU µs/call | Redis CPU µs/call | "
              "CPU Redis/lawnkv | target ≥ 2 |")
    md.append("|---|---|---|---|---|---|---|")
    for t in tests:
        cr = ratios(t, "redis", "lawnkv", "cpu_us")
        md.append(f"| {SCRIPT_TESTS.get(t, t)} | {h.cell_mr(series(t, 'lawnkv', 'rps'), h.kops)} | "
                  f"{h.cell_mr(series(t, 'redis', 'rps'), h.kops)} | {h.cell_mr(series(t, 'lawnkv', 'cpu_us'), f2)} | "
                  f"{h.cell_mr(series(t, 'redis', 'cpu_us'), f2)} | {h.fmt_ratio(cr)} | {h.verdict(cr, 2, True)} |")
    md.append("")


def instr(path, md, h):
    if not os.path.exists(path):
        return
    rows = h.read_tsv(path)
    per = {(r["server"], r["test"]): int(r["instructions"]) / int(r["requests"]) for r in rows}
    tests = list(dict.fromkeys(r["test"] for r in rows))
    md.append("### Instructions per call under callgrind\n")
    md.append(f"The same EVALSHA tests, {rows[0]['requests']} calls each, every server under valgrind's callgrind "
              "(user-space instructions only: the kernel's share of the socket work is not counted), and the INCR "
              "loop per INCR. A count, not a time: it does not move with the machine's load.\n")
    md.append("| test | lawnkv | Redis | Redis/lawnkv |")
    md.append("|---|---|---|---|")
    for t in tests:
        l, r = per.get(("lawnkv", t)), per.get(("redis", t))
        ratio = f"{r / l:.2f}" if l and r else "–"
        md.append(f"| {SCRIPT_TESTS.get(t, t)} | {l:,.0f} | {r:,.0f} | {ratio} |" if l and r else
                  f"| {SCRIPT_TESTS.get(t, t)} | {l or '–'} | {r or '–'} | – |")
    md.append("")


def loop(path, md, h):
    if not os.path.exists(path):
        return
    rows = h.read_tsv(path)
    if not rows:
        return
    n = int(rows[0]["incrs"])
    wall = {s: [float(r["wall_s"]) for r in rows if r["server"] == s] for s in ("lawnkv", "redis")}
    cpu = {s: [int(r["cpu_ticks"]) / int(r["clk_tck"]) for r in rows if r["server"] == s] for s in ("lawnkv", "redis")}
    bad = [r for r in rows if r["reply"] != str(n)]
    f3 = lambda x: f"{x:.3f}"
    md.append(f"### One script of {n:,} `redis.call('INCR', KEYS[1])`\n")
    md.append(f"EVALSHA of bench/scripting/incr_loop.lua with ARGV[1] = {n}, one call per server and round "
              f"({len(wall['lawnkv'])} round(s)), `busy-reply-threshold 60000` on both; wall time around "
              "redis-cli, and the server's CPU time.\n")
    md.append("| | lawnkv | Redis | Redis/lawnkv |")
    md.append("|---|---|---|---|")
    wr = [b / a for a, b in zip(wall["lawnkv"], wall["redis"]) if a > 0]
    cr = [b / a for a, b in zip(cpu["lawnkv"], cpu["redis"]) if a > 0]
    md.append(f"| wall s | {h.cell_mr(wall['lawnkv'], f3)} | {h.cell_mr(wall['redis'], f3)} | {h.fmt_ratio(wr)} |")
    md.append(f"| CPU s | {h.cell_mr(cpu['lawnkv'], f3)} | {h.cell_mr(cpu['redis'], f3)} | {h.fmt_ratio(cr)} |")
    if bad:
        md.append(f"\n**{len(bad)} run(s) did not answer {n}** (see scripting-loop.tsv).")
    md.append("")


def memory(path, md, h):
    if not os.path.exists(path):
        return
    rows = {r["server"]: r for r in h.read_tsv(path)}
    if not rows:
        return
    n = int(next(iter(rows.values()))["scripts"])
    md.append(f"### Memory per cached script, {n:,} distinct scripts\n")
    md.append("Each server fresh, `SCRIPT LOAD` of the scripts through `redis-cli --pipe`; the growth of each "
              "figure divided by the number of scripts. lawnkv's Lua heap is allocated through jemalloc and "
              "counts in its used_memory; Redis's does not (its used_memory is its own allocations, "
              "used_memory_lua the Lua heap), so the heap total is used_memory for lawnkv and used_memory + "
              "used_memory_lua for Redis.\n")
    md.append("| B per script | lawnkv | Redis | lawnkv/Redis |")
    md.append("|---|---|---|---|")

    def d(r, a, b):
        return (int(r[b]) - int(r[a])) / n

    figs = {}
    for s, r in rows.items():
        heap = d(r, "used_empty", "used_full") + (0 if s == "lawnkv" else d(r, "lua_empty", "lua_full"))
        figs[s] = {"RSS": d(r, "rss_empty_kb", "rss_full_kb") * 1024, "heap total": heap,
                   "used_memory": d(r, "used_empty", "used_full"), "used_memory_lua": d(r, "lua_empty", "lua_full"),
                   "used_memory_scripts_eval": int(r["scripts_bytes"]) / n}
    for k in ("heap total", "RSS", "used_memory", "used_memory_lua", "used_memory_scripts_eval"):
        l, r = figs.get("lawnkv", {}).get(k), figs.get("redis", {}).get(k)
        ratio = f"{l / r:.2f}" if l is not None and r else "–"
        md.append(f"| {k} | {l:,.0f} | {r:,.0f} | {ratio} |" if l is not None and r is not None else f"| {k} | – | – | – |")
    md.append("")
