"""Checks lawnkv instances behind twemproxy (nutcracker), with redis-py.

    /usr/bin/python3 twemproxy_check.py <proxy-port> <stats-port> <p1,p2,p3>
        <auth-proxy-port> <auth-port> <password> <db-proxy-port> <db>

Pool tw (proxy-port) shards over the instances p1..p3. Pool twauth
(auth-proxy-port) fronts the instance auth-port, which has requirepass
<password>, with nutcracker's redis_auth: nutcracker sends AUTH before a
client's first request. Pool twdb (db-proxy-port) fronts p1 with redis_db
<db>: nutcracker sends SELECT <db> when it connects. (Both in one pool do not
work with nutcracker 0.5.0, against Redis too: it sends SELECT before AUTH.)
Commands go through the proxies; placement and expiry are checked on each
instance directly. LAWNKV_REFERENCE=1: the instances are redis-server, which
has no DEBUG ADVANCE-TIME: expiry is awaited (polled with a deadline).
Prints "ok <step>" or "FAIL <step>: <why>" per step; exits 1 if any failed.
"""

import json
import os
import socket
import sys
import time

import redis

# No __pycache__ beside the sources from importing check.
sys.dont_write_bytecode = True
from check import check, eq, finish, step  # noqa: E402

proxy_port, stats_port = int(sys.argv[1]), int(sys.argv[2])
ports = [int(p) for p in sys.argv[3].split(",")]
auth_proxy_port, auth_port, password = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
db_proxy_port, db = int(sys.argv[7]), int(sys.argv[8])
reference = os.environ.get("LAWNKV_REFERENCE") == "1"








def connect(port, **kw):
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True,
                       socket_timeout=10, socket_connect_timeout=10, **kw)


proxy = connect(proxy_port)
direct = [connect(p) for p in ports]
# The same, without redis-py's reply callbacks (SET's "OK" stays "OK").
raw = connect(proxy_port)
raw.response_callbacks = {}


def cmd(*args):
    """A command through the proxy: the reply as it came on the wire, or the
    error reply's exception."""
    try:
        return raw.execute_command(*args)
    except redis.ResponseError as e:
        return e


def owners(key):
    """The instances (by index) that hold key."""
    return [i for i, d in enumerate(direct) if d.exists(key)]


def count_existing(keys):
    """How many of keys exist, by one single-key EXISTS each through the proxy
    (pipelined). nutcracker 0.5.0 miscounts a multi-key EXISTS whose keys
    live on several servers (it does not add the fragments' replies up)."""
    p = proxy.pipeline(transaction=False)
    for key in keys:
        p.exists(key)
    return sum(p.execute())


def advance_all(ms):
    """Moves every instance's clock ms forward (lawnkv's DEBUG ADVANCE-TIME)."""
    for d in direct:
        eq(d.execute_command("DEBUG", "ADVANCE-TIME", ms), "OK", "DEBUG ADVANCE-TIME")


def wait_gone(keys, what, timeout=5):
    """Until none of keys exists through the proxy; fails after timeout s."""
    deadline = time.monotonic() + timeout
    left = list(keys)
    while time.monotonic() < deadline:
        left = [key for key in left if proxy.exists(key)]
        if not left:
            return
        time.sleep(0.02)
    raise AssertionError(f"{what}: {len(left)} keys still there after {timeout} s: {left[:5]}")


@step
def ping():
    """PING through the proxy (answered by nutcracker itself)"""
    eq(proxy.ping(), True, "PING")


@step
def spread():
    """MSET of 300 keys: every key on exactly one instance, all instances used"""
    kv = {f"tw:{i}": f"v{i}" for i in range(300)}
    eq(proxy.mset(kv), True, "MSET through the proxy")
    per = [0, 0, 0]
    for key in kv:
        where = owners(key)
        eq(len(where), 1, f"instances holding {key} ({where})")
        per[where[0]] += 1
    check(all(n > 0 for n in per), f"keys per instance {per}: want every instance used")
    eq([d.dbsize() for d in direct], per, "DBSIZE of each instance vs keys found there")
    print(f"     keys per instance: {per}")
    values = proxy.mget(list(kv))
    eq(values, list(kv.values()), "MGET of the 300 keys through the proxy")


@step
def single_key_commands():
    """SET/GET/SETNX/GETSET/GETDEL/GETEX/APPEND/STRLEN/GETRANGE/SETRANGE/TYPE"""
    eq(cmd("SET", "s:a", "1"), "OK", "SET")
    eq(cmd("GET", "s:a"), "1", "GET")
    eq(cmd("SET", "s:a", "2", "XX", "GET"), "1", "SET XX GET")
    eq(cmd("SET", "s:a", "3", "NX"), None, "SET NX on an existing key")
    eq(cmd("SETNX", "s:b", "x"), 1, "SETNX")
    eq(cmd("GETSET", "s:b", "y"), "x", "GETSET")
    eq(cmd("APPEND", "s:b", "zz"), 3, "APPEND")
    eq(cmd("STRLEN", "s:b"), 3, "STRLEN")
    eq(cmd("GETRANGE", "s:b", "1", "-1"), "zz", "GETRANGE")
    eq(cmd("SETRANGE", "s:b", "1", "ab"), 3, "SETRANGE")
    eq(cmd("GETEX", "s:b", "EX", "100"), "yab", "GETEX EX")
    eq(cmd("TTL", "s:b"), 100, "TTL after GETEX EX 100")
    eq(cmd("GETEX", "s:b", "PERSIST"), "yab", "GETEX PERSIST")
    eq(cmd("TTL", "s:b"), -1, "TTL after GETEX PERSIST")
    eq(cmd("TYPE", "s:b"), "string", "TYPE")
    eq(cmd("GETDEL", "s:b"), "yab", "GETDEL")
    eq(cmd("GET", "s:b"), None, "GET after GETDEL")


@step
def big_value():
    """a 1 MB value through the proxy (spans many of nutcracker's 16 KB mbufs)"""
    value = ("abcdefghijklmnopqrstuvwxyz" * 40330)[: 1 << 20]
    eq(cmd("SET", "big:1", value, "EX", "100"), "OK", "SET of 1 MB")
    eq(cmd("GET", "big:1"), value, "GET of 1 MB")
    eq(cmd("STRLEN", "big:1"), 1 << 20, "STRLEN")
    eq(cmd("DEL", "big:1"), 1, "DEL")


@step
def counters():
    """INCR/INCRBY/DECR/DECRBY/INCRBYFLOAT, and an error reply through the proxy"""
    eq(cmd("INCR", "c:1"), 1, "INCR")
    eq(cmd("INCRBY", "c:1", "41"), 42, "INCRBY")
    eq(cmd("DECR", "c:1"), 41, "DECR")
    eq(cmd("DECRBY", "c:1", "40"), 1, "DECRBY")
    eq(cmd("INCRBYFLOAT", "c:f", "2.5"), "2.5", "INCRBYFLOAT")
    cmd("SET", "c:word", "abc")
    e = cmd("INCR", "c:word")
    check(isinstance(e, redis.ResponseError), f"INCR on 'abc': want an error, got {e!r}")
    eq(str(e), "value is not an integer or out of range", "INCR on 'abc' (redis-py strips 'ERR ')")
    eq(cmd("GET", "c:1"), "1", "the connection still works after an error reply")


@step
def multi_key_commands():
    """TOUCH, DEL, UNLINK, MGET over keys on every instance (fragmented by nutcracker)"""
    keys = [f"tw:{i}" for i in range(300)]
    where = {}
    for key in keys:
        found = owners(key)
        eq(len(found), 1, f"instances holding {key}")
        where[key] = found[0]
    # every third key: sequential names cluster on one server (see below)
    a, b = keys[0::3], keys[1::3]
    for name, batch in (("tw:0,3,6..", a), ("tw:1,4,7..", b)):
        spread = sorted({where[key] for key in batch})
        check(len(spread) >= 2, f"{name} all on instance {spread}: the test needs them on several")
    eq(cmd("TOUCH", *a, "tw:none"), 100, "TOUCH of 100 keys and a missing one")
    eq(cmd("DEL", *a, "tw:none"), 100, "DEL of 100 keys and a missing one")
    eq(cmd("UNLINK", *b), 100, "UNLINK of 100 keys")
    eq(count_existing(keys), 100, "keys left after DEL and UNLINK (single-key EXISTS)")
    eq(cmd("MGET", "tw:0", "tw:1", "tw:2", "tw:299"), [None, None, "v2", "v299"], "MGET")
    others = ["s:a", "c:1", "c:f", "c:word"]  # from the steps before
    per = [d.dbsize() for d in direct]
    eq(sum(per), 100 + count_existing(others), f"keys on the instances {per}")


@step
def expiry_commands():
    """EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT/PERSIST/TTL/PTTL/SETEX/PSETEX/SET EX PX"""
    eq(cmd("SET", "e:1", "v"), "OK", "SET")
    eq(cmd("TTL", "e:1"), -1, "TTL without expiry")
    eq(cmd("EXPIRE", "e:1", "100"), 1, "EXPIRE")
    eq(cmd("TTL", "e:1"), 100, "TTL after EXPIRE 100")
    eq(cmd("PEXPIRE", "e:1", "50000"), 1, "PEXPIRE")
    pttl = cmd("PTTL", "e:1")
    check(49000 < pttl <= 50000, f"PTTL after PEXPIRE 50000 = {pttl}")
    now = int(time.time())
    eq(cmd("EXPIREAT", "e:1", str(now + 200)), 1, "EXPIREAT")
    check(198 <= cmd("TTL", "e:1") <= 200, "TTL after EXPIREAT now+200")
    eq(cmd("PEXPIREAT", "e:1", str((now + 300) * 1000)), 1, "PEXPIREAT")
    check(298 <= cmd("TTL", "e:1") <= 300, "TTL after PEXPIREAT now+300 s")
    eq(cmd("PERSIST", "e:1"), 1, "PERSIST")
    eq(cmd("PTTL", "e:1"), -1, "PTTL after PERSIST")
    eq(cmd("EXPIRE", "e:none", "100"), 0, "EXPIRE on a missing key")
    eq(cmd("TTL", "e:none"), -2, "TTL of a missing key")
    eq(cmd("PTTL", "e:none"), -2, "PTTL of a missing key")
    eq(cmd("SETEX", "e:2", "100", "v"), "OK", "SETEX")
    eq(cmd("TTL", "e:2"), 100, "TTL after SETEX 100")
    eq(cmd("PSETEX", "e:3", "100000", "v"), "OK", "PSETEX")
    check(99000 < cmd("PTTL", "e:3") <= 100000, "PTTL after PSETEX 100000")
    eq(cmd("SET", "e:4", "v", "EX", "100"), "OK", "SET EX")
    eq(cmd("SET", "e:5", "v", "PX", "100000"), "OK", "SET PX")
    eq(cmd("SET", "e:5", "w", "KEEPTTL"), "OK", "SET KEEPTTL")
    check(99000 < cmd("PTTL", "e:5") <= 100000, "PTTL after SET KEEPTTL")
    # the TTL lives where the key lives
    for key in ("e:2", "e:3", "e:4", "e:5"):
        where = owners(key)
        eq(len(where), 1, f"instances holding {key}")
        check(direct[where[0]].ttl(key) > 90, f"TTL of {key} on its instance")


@step
def expiry_through_proxy():
    """keys with PX 100 and PX 60000 on every instance disappear; EX 1000 stays"""
    # The server clocks also run in real time, so the keys checked before
    # their expiry get a TTL that cannot pass meanwhile (60 s; 1.5 s on
    # redis-server, which is waited for).
    long_px = 1500 if reference else 60000
    short = [f"x:{i}" for i in range(60)]
    # nutcracker's fnv1a_64 + ketama spreads short sequential names badly
    # (y:0..y:59 land 0/10/50): these names reach all three instances.
    longer = [f"session:{i}:token" for i in range(60)]
    p = proxy.pipeline(transaction=False)
    for key in longer:
        p.set(key, "v", px=long_px)
    p.set("x:stays", "v", ex=1000)
    for key in short:
        p.set(key, "v", px=100)
    eq(p.execute(), [True] * 121, "121 SETs in one pipeline through the proxy")
    if reference:
        wait_gone(short, "PX 100 keys on redis-server")
    else:
        advance_all(101)
        eq(count_existing(short), 0, "PX 100 keys left after DEBUG ADVANCE-TIME 101 everywhere")
    per = [sum(1 for key in longer if d.exists(key)) for d in direct]
    check(all(n > 0 for n in per), f"PX {long_px} keys per instance {per}: want every instance used")
    eq(sum(per), 60, f"PX {long_px} keys on the instances")
    eq(count_existing(longer), 60, f"PX {long_px} keys through the proxy")
    if reference:
        wait_gone(longer, f"PX {long_px} keys on redis-server")
    else:
        advance_all(long_px)
        eq(count_existing(longer), 0, f"PX {long_px} keys left after DEBUG ADVANCE-TIME {long_px} more")
    eq(proxy.mget(short[:3] + longer[:3]), [None] * 6, "MGET of expired keys")
    eq(proxy.get("x:stays"), "v", "GET of the EX 1000 key")
    for key in short + longer:
        eq(owners(key), [], f"{key} on the instances after expiry")


@step
def big_pipeline():
    """a pipeline of 1,000 commands through the proxy"""
    p = proxy.pipeline(transaction=False)
    for i in range(500):
        p.set(f"pl:{i}", f"v{i}", ex=100)
    for i in range(500):
        p.get(f"pl:{i}")
    res = p.execute()
    eq(res[:500], [True] * 500, "SET replies")
    eq(res[500:], [f"v{i}" for i in range(500)], "GET replies")


@step
def auth_pool():
    """a pool with redis_auth in front of a requirepass instance"""
    # redis_auth: nutcracker wants the client to AUTH with the same password
    ap = connect(auth_proxy_port, password=password)
    eq(ap.set("auth:k", "v", ex=100), True, "SET through the auth pool")
    eq(ap.get("auth:k"), "v", "GET through the auth pool")
    eq(ap.ttl("auth:k"), 100, "TTL through the auth pool")
    eq(connect(auth_port, password=password).get("auth:k"), "v", "the key on the instance")
    ap.close()


@step
def db_pool():
    """a pool with redis_db: nutcracker's SELECT at connect"""
    dp = connect(db_proxy_port)
    eq(dp.set("db:k", "v", px=100000), True, "SET through the db pool")
    eq(dp.get("db:k"), "v", "GET through the db pool")
    eq(connect(ports[0], db=db).get("db:k"), "v", f"the key in db {db} of the instance")
    eq(direct[0].exists("db:k"), 0, "the key is not in db 0")
    dp.close()


@step
def nutcracker_stats():
    """nutcracker's stats: no server errors, EOFs or timeouts; requests on every server"""
    deadline = time.monotonic() + 5
    while True:
        with socket.create_connection(("127.0.0.1", stats_port), timeout=5) as s:
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        stats = json.loads(data)
        pool = stats["tw"]
        servers = {name: v for name, v in pool.items() if isinstance(v, dict)}
        if all(v["requests"] > 0 for v in servers.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.05)  # the stats are aggregated every 100 ms (-i 100)
    eq(sorted(servers), ["server1", "server2", "server3"], "servers in the stats")
    for name, v in sorted(servers.items()):
        for field in ("server_eof", "server_err", "server_timedout"):
            eq(v[field], 0, f"{name} {field}")
        check(v["requests"] > 0, f"{name}: no requests")
    eq(pool["server_ejects"], 0, "pool server_ejects")
    eq(pool["forward_error"], 0, "pool forward_error")


proxy.close()
raw.close()
finish("twemproxy_check")
