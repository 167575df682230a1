#!/usr/bin/env python3
"""Checks the include graph of src/ against the house's layers (README:
Where things are): a folder includes only folders below it, and no files
include each other in a cycle (a .hpp and its .cpp count as one). Prints every arrow up and every cycle, and
a line per folder with its size; exits 1 if any arrow up or cycle is found.
  scripts/check-layers.py [--graph]   --graph also prints the folder graph
"""
import os
import re
import sys

# Lower layers first; a folder may include its own files and those of any
# folder of a lower rank. Folders of one rank never include each other.
RANKS = {
    "core": 0,
    "resp": 1, "expiry": 1,
    "store": 2,
    "types": 3,
    "dehydrator": 4, "pubsub": 4,
    "persistence": 5, "config": 5,
    "engine": 6,
    "durability": 7,
    "replication": 8,
    "scripting": 9,
    "commands": 10,
    "server": 11,
    "": 12,  # src/main.cpp
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder(path):
    return path.split("/")[0] if "/" in path else ""


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    files = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            if n.endswith((".hpp", ".cpp", ".h")):
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                with open(os.path.join(dirpath, n), encoding="utf-8") as f:
                    files[rel] = [i for i in INCLUDE.findall(f.read()) if os.path.exists(os.path.join(root, i))]
    bad = 0
    edges = set()
    for f, incs in sorted(files.items()):
        for i in incs:
            a, b = folder(f), folder(i)
            if a == b:
                continue
            edges.add((a, b))
            if a not in RANKS or b not in RANKS:
                print(f"unknown folder: {f} includes {i}")
                bad += 1
            elif RANKS[b] >= RANKS[a]:
                print(f"arrow up: {f} includes {i}")
                bad += 1
    # Cycles between components (a .hpp and its .cpp are one): a depth-first
    # search over the include graph.
    comps = {}
    for f, incs in files.items():
        comps.setdefault(os.path.splitext(f)[0], set()).update(
            os.path.splitext(i)[0] for i in incs if os.path.splitext(i)[0] != os.path.splitext(f)[0])
    files_by_comp = {c: sorted(v) for c, v in comps.items()}
    state = {}
    stack = []

    def visit(f):
        nonlocal bad
        state[f] = 1
        stack.append(f)
        for i in files_by_comp.get(f, []):
            if state.get(i) == 1:
                print("cycle: " + " -> ".join(stack[stack.index(i):] + [i]))
                bad += 1
            elif i not in state:
                visit(i)
        stack.pop()
        state[f] = 2

    for f in sorted(files_by_comp):
        if f not in state:
            visit(f)
    if "--graph" in sys.argv:
        for a, b in sorted(edges):
            print(f"{a or 'main'} -> {b}")
    sizes = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        c = sizes.setdefault(folder(f) or "main", [0, 0])
        c[0] += 1
        c[1] += n
    for k in sorted(sizes, key=lambda k: RANKS.get(k if k != "main" else "", 99)):
        print(f"src/{k}: {sizes[k][0]} files, {sizes[k][1]} lines")
    print(f"layers: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
