#!/usr/bin/env python3
"""The data-type shapes that `scripts/bench.sh types` loads to measure memory
per element, written as RESP for `redis-cli --pipe`.

    python3 bench/types/shapes.py list [--quick]      the shapes, one a line:
                                                      id, type, keys, elements
                                                      a key, description (tabs)
    python3 bench/types/shapes.py resp ID [--quick]   the shape's commands, RESP,
                                                      on stdout

Keys are key:000000, key:000001, ...; an element is a hash field (its name
and value), a set member, a list element or a sorted-set member. Commands
carry 1,000 elements each (HSET, SADD, RPUSH), ZADD 100 score-member pairs.
--quick keeps every key's size, so each shape keeps its encoding, and loads
fewer keys (the one-key shapes: a tenth of the elements). The output is the
same on every run (random scores come from a fixed seed), so both servers
get the same bytes.
"""

import random
import sys
from dataclasses import dataclass


def hash_fields(k, n):
    # 10-byte field names and values: "f000000003" -> "v000012345".
    return [x for i in range(n) for x in (f"f{i:09d}", f"v{k * n + i:09d}")]


def string_members(k, n):
    return [f"m{i:09d}" for i in range(n)]  # 10 bytes


def small_ints(k, n):
    return [str(i) for i in range(n)]  # 0..n-1: 2-byte intset entries


def large_ints(k, n):
    return [str(100000 + i) for i in range(n)]  # 4-byte intset entries


def list_values(k, n):
    return [f"v{k:07d}:{i:07d}" for i in range(n)]  # 16 bytes


def mixed_values(k, n):
    # The same values cut to 14..18 bytes (16 on average): no two neighbours
    # have one length.
    return [(f"v{k:07d}:{i:07d}" + "xy")[: 14 + i % 5] for i in range(n)]


def ascending_scores(k, n):
    # score 1.5 * i, member member:00000000i (16 bytes), as zsets-notes.md.
    return [x for i in range(n) for x in (repr(1.5 * i), f"member:{i:09d}")]


def random_scores(k, n):
    # Uniform in [0, 1e6), so members arrive in no score order.
    rng = random.Random(1000 + k)
    return [x for i in range(n) for x in (repr(rng.uniform(0, 1e6)), f"member:{i:09d}")]


@dataclass
class Shape:
    type: str          # hash, set, list or zset
    keys: int
    quick_keys: int
    per_key: int       # elements a key
    quick_per_key: int
    command: str       # the command that adds the elements
    chunk: int         # elements a command
    elements: object   # (key number, count) -> the command's arguments
    description: str


SHAPES = {
    "hash-10": Shape("hash", 10000, 1000, 10, 10, "HSET", 1000, hash_fields,
                     "10 fields a key (listpack), 10-byte names and values"),
    "hash-10k": Shape("hash", 20, 2, 10000, 10000, "HSET", 1000, hash_fields,
                      "10,000 fields a key (hashtable), 10-byte names and values"),
    "set-10": Shape("set", 10000, 1000, 10, 10, "SADD", 1000, string_members,
                    "10 string members a key (10 bytes; hashtable in Redis 7.0)"),
    "intset-10": Shape("set", 10000, 1000, 10, 10, "SADD", 1000, small_ints,
                       "intset of 10 (0..9)"),
    "set-10k": Shape("set", 20, 2, 10000, 10000, "SADD", 1000, string_members,
                     "10,000 string members a key (10 bytes, hashtable)"),
    "intset-10k": Shape("set", 20, 2, 10000, 10000, "SADD", 1000, small_ints,
                        "intset of 10,000 (0..9999, 2-byte entries)"),
    "intset-10k-4b": Shape("set", 20, 2, 10000, 10000, "SADD", 1000, large_ints,
                           "intset of 10,000 (100000.., 4-byte entries)"),
    "list-10": Shape("list", 100000, 10000, 10, 10, "RPUSH", 1000, list_values,
                     "10 elements of 16 bytes a key"),
    "list-1m": Shape("list", 1, 1, 1000000, 100000, "RPUSH", 1000, list_values,
                     "one list of 16-byte elements"),
    "list-10-mixed": Shape("list", 100000, 10000, 10, 10, "RPUSH", 1000, mixed_values,
                           "10 elements of 14..18 bytes a key"),
    "list-1m-mixed": Shape("list", 1, 1, 1000000, 100000, "RPUSH", 1000, mixed_values,
                           "one list of 14..18-byte elements"),
    "zset-128": Shape("zset", 1000, 100, 128, 128, "ZADD", 100, ascending_scores,
                      "128 members a key (listpack), scores 1.5*i, 16-byte members"),
    "zset-1m": Shape("zset", 1, 1, 1000000, 100000, "ZADD", 100, ascending_scores,
                     "one key (skiplist), scores 1.5*i ascending, 16-byte members"),
    "zset-1m-random": Shape("zset", 1, 1, 1000000, 100000, "ZADD", 100, random_scores,
                            "one key (skiplist), random scores, 16-byte members"),
}


def resp(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        b = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


def sizes(shape, quick):
    return (shape.quick_keys, shape.quick_per_key) if quick else (shape.keys, shape.per_key)


def write_resp(shape_id, quick, out):
    shape = SHAPES[shape_id]
    keys, per = sizes(shape, quick)
    # A sorted set's element is two arguments (score, member), a hash's two
    # (field, value): a command carries `chunk` elements either way.
    step = shape.chunk * (2 if shape.type in ("hash", "zset") else 1)
    for k in range(keys):
        args = shape.elements(k, per)
        name = f"key:{k:06d}"
        buf = [resp([shape.command, name] + args[j:j + step]) for j in range(0, len(args), step)]
        out.write(b"".join(buf))


def main():
    argv = sys.argv[1:]
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    if argv == ["list"]:
        for shape_id, shape in SHAPES.items():
            keys, per = sizes(shape, quick)
            print(f"{shape_id}\t{shape.type}\t{keys}\t{per}\t{shape.description}")
    elif len(argv) == 2 and argv[0] == "resp" and argv[1] in SHAPES:
        write_resp(argv[1], quick, sys.stdout.buffer)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
