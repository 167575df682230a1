"""redis-py (Debian's python3-redis) against a running server, as a cache
user drives it.

    /usr/bin/python3 redis_py.py <port>

LAWNKV_REFERENCE=1: the server is redis-server; lawnkv-only steps (DEBUG
ADVANCE-TIME, REDE.*) are skipped. The server must run with
notify-keyspace-events Ex and, for lawnkv, enable-debug-command yes.
Prints "ok <step>" or "FAIL <step>: <why>" per step; exits 1 if any failed.
"""

import os
import sys
import time

import redis

# No __pycache__ beside the sources from importing check.
sys.dont_write_bytecode = True
from check import check, eq, finish, step  # noqa: E402

port = int(sys.argv[1])
reference = os.environ.get("LAWNKV_REFERENCE") == "1"
label = f"redis-py {redis.__version__} RESP2"








def raises(exc_type, message, fn, what):
    """fn() must raise exc_type whose text is exactly message."""
    try:
        got = fn()
    except exc_type as e:
        eq(str(e), message, f"{what} error text")
        return e
    raise AssertionError(f"{what}: returned {got!r}, want {exc_type.__name__} {message!r}")


def client():
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True,
                       socket_timeout=10, socket_connect_timeout=10)


def k(s):
    return "py:" + s


admin = client()
r = client()
state = {}


@step
def connect():
    """connect, PING, CLIENT INFO says resp=2"""
    eq(r.ping(), True, "PING")
    info = r.execute_command("CLIENT", "INFO")
    check(" resp=2" in info, f"CLIENT INFO: {info!r}")


@step
def info_parses():
    """INFO everything parses (redis-py's parser), CONFIG GET"""
    info = r.info("everything")
    eq(info["redis_version"], "7.0.15", "redis_version")
    check(isinstance(info["connected_clients"], int), f"connected_clients: {info['connected_clients']!r}")
    check("cmdstat_ping" in info, "no cmdstat_ping in INFO everything")
    eq(r.config_get("notify-keyspace-events"), {"notify-keyspace-events": "xE"}, "CONFIG GET")


@step
def set_get():
    """SET with EX and PX, GET, TTL, PTTL, NX, GET, KEEPTTL"""
    eq(r.set(k("ex"), "v1", ex=100), True, "SET EX")
    eq(r.set(k("px"), "v2", px=5000), True, "SET PX")
    eq(r.get(k("ex")), "v1", "GET")
    eq(r.ttl(k("ex")), 100, "TTL of EX 100")
    pttl = r.pttl(k("px"))
    check(4000 < pttl <= 5000, f"PTTL of PX 5000 = {pttl}")
    eq(r.get(k("missing")), None, "GET missing")
    eq(r.set(k("ex"), "v3", ex=100, nx=True), None, "SET NX on an existing key")
    eq(r.set(k("ex"), "v1", keepttl=True, get=True), "v1", "SET KEEPTTL GET")
    eq(r.ttl(k("ex")), 100, "TTL after SET KEEPTTL")
    eq(r.setex(k("sx"), 100, "v"), True, "SETEX")
    eq(r.psetex(k("psx"), 100000, "v"), True, "PSETEX")


@step
def mget():
    """MGET"""
    eq(r.mget(k("ex"), k("missing"), k("px")), ["v1", None, "v2"], "MGET")


@step
def incr():
    """INCR, and INCR on a non-integer is an error"""
    eq(r.incr(k("n")), 1, "INCR")
    eq(r.incr(k("n")), 2, "INCR")
    eq(r.incrby(k("n"), 40), 42, "INCRBY")
    eq(r.incrbyfloat(k("f"), 1.5), 1.5, "INCRBYFLOAT")
    r.set(k("word"), "abc")
    # redis-py strips the "ERR " of the reply from the exception's text.
    raises(redis.ResponseError, "value is not an integer or out of range",
           lambda: r.incr(k("word")), 'INCR on "abc"')
    raises(redis.ResponseError, "value is not a valid float",
           lambda: r.incrbyfloat(k("word"), 1), 'INCRBYFLOAT on "abc"')


@step
def expire():
    """EXPIRE, TTL, PTTL, PERSIST"""
    eq(r.ttl(k("n")), -1, "TTL without expiry")
    eq(r.expire(k("n"), 100), True, "EXPIRE")
    eq(r.ttl(k("n")), 100, "TTL after EXPIRE 100")
    pttl = r.pttl(k("n"))
    check(99000 < pttl <= 100000, f"PTTL after EXPIRE 100 = {pttl}")
    eq(r.pexpire(k("n"), 5000), True, "PEXPIRE")
    eq(r.expire(k("missing"), 100), False, "EXPIRE on a missing key")
    eq(r.ttl(k("missing")), -2, "TTL of a missing key")
    eq(r.persist(k("n")), True, "PERSIST")
    eq(r.ttl(k("n")), -1, "TTL after PERSIST")


@step
def delete():
    """DEL, EXISTS"""
    eq(r.exists(k("ex"), k("px"), k("missing")), 2, "EXISTS")
    eq(r.delete(k("ex"), k("px"), k("missing")), 2, "DEL")
    eq(r.exists(k("ex")), 0, "EXISTS after DEL")


@step
def errors():
    """error replies: unknown command, arity, SET syntax"""
    raises(redis.ResponseError, "unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b' ",
           lambda: r.execute_command("NOSUCHCMD", "a", "b"), "NOSUCHCMD a b")
    raises(redis.ResponseError, "wrong number of arguments for 'get' command",
           lambda: r.execute_command("GET"), "GET without a key")
    raises(redis.ResponseError, "invalid expire time in 'set' command",
           lambda: r.execute_command("SET", k("x"), "v", "EX", "0"), "SET EX 0")
    raises(redis.ResponseError, "syntax error",
           lambda: r.execute_command("SET", k("x"), "v", "EX", "10", "PX", "10"), "SET EX PX")


@step
def transaction():
    """pipeline(transaction=True): MULTI/EXEC"""
    p = r.pipeline(transaction=True)
    p.set(k("t"), "10").incr(k("t")).expire(k("t"), 50).ttl(k("t")).get(k("t"))
    eq(p.execute(), [True, 11, True, 50, "11"], "EXEC replies")


@step
def transaction_error():
    """pipeline(transaction=True) with a failing command inside"""
    p = r.pipeline(transaction=True)
    p.set(k("t2"), "x").incr(k("t2")).get(k("t2"))
    res = p.execute(raise_on_error=False)
    eq(len(res), 3, "EXEC reply count")
    eq(res[0], True, "SET in MULTI")
    check(isinstance(res[1], redis.ResponseError), f"INCR in MULTI: want an error, got {res[1]!r}")
    eq(str(res[1]), "value is not an integer or out of range", "INCR in MULTI error")
    eq(res[2], "x", "GET in MULTI")


@step
def watch():
    """WATCH: a key changed by another client aborts EXEC (WatchError)"""
    r.set(k("w"), "1")
    with r.pipeline(transaction=True) as p:
        p.watch(k("w"))
        eq(p.get(k("w")), "1", "GET in watch mode")
        admin.set(k("w"), "2")
        p.multi()
        p.set(k("w"), "3")
        try:
            p.execute()
            raise AssertionError("EXEC after the watched key changed did not raise WatchError")
        except redis.WatchError:
            pass
    eq(r.get(k("w")), "2", "value after the aborted EXEC")


@step
def pipeline():
    """a pipeline (transaction=False) of 1,000 commands"""
    p = r.pipeline(transaction=False)
    for i in range(500):
        p.set(k(f"p:{i}"), f"v{i}", px=60000)
    for i in range(500):
        p.get(k(f"p:{i}"))
    res = p.execute()
    eq(len(res), 1000, "pipeline reply count")
    eq(res[:500], [True] * 500, "SET replies")
    eq(res[500:], [f"v{i}" for i in range(500)], "GET replies")


@step
def scan():
    """SCAN over 2,000 keys with scan_iter"""
    eq(r.mset({k(f"scan:{i}"): i for i in range(2000)}), True, "MSET 2000 keys")
    seen = set(r.scan_iter(match=k("scan:*"), count=100))
    eq(len(seen), 2000, "distinct keys from scan_iter")
    eq(seen, {k(f"scan:{i}") for i in range(2000)}, "the scanned keys")


@step
def expired_event():
    """pubsub() receives __keyevent@0__:expired for a key with PX 50"""
    channel = "__keyevent@0__:expired"
    key = k("short")
    ps = r.pubsub()
    state["pubsub"] = ps
    ps.subscribe(channel)
    m = ps.get_message(timeout=5)
    eq(m, {"type": "subscribe", "pattern": None, "channel": channel, "data": 1}, "subscribe confirmation")
    started = time.monotonic()
    eq(r.set(key, "v", px=50), True, "SET PX 50")
    deadline = started + 5
    got = None
    while time.monotonic() < deadline:
        m = ps.get_message(timeout=deadline - time.monotonic())
        if m and m["type"] == "message" and m["data"] == key:
            got = m
            break
    check(got is not None, "no expired event within 5 s")
    eq(got["channel"], channel, "event channel")
    lag_ms = (time.monotonic() - started) * 1000
    check(lag_ms >= 50, f"expired event after {lag_ms:.0f} ms, before the 50 ms TTL")
    eq(r.exists(key), 0, "EXISTS after the expired event")
    ps.unsubscribe(channel)
    m = ps.get_message(timeout=5)
    eq(m and m["type"], "unsubscribe", f"unsubscribe confirmation {m!r}")


@step
def lock():
    """redis-py's Lock (Lua scripts): acquire, owned, extend, reacquire, contention, release"""
    name = k("lock")
    a = r.lock(name, timeout=10)
    eq(a.acquire(blocking=False), True, "acquire")
    eq(a.owned(), True, "owned")
    eq(a.extend(5), True, "extend by 5 s")
    check(r.pttl(name) > 10000, f"PTTL after extend: {r.pttl(name)}")
    eq(a.reacquire(), True, "reacquire")
    b = r.lock(name, timeout=10)
    eq(b.acquire(blocking=False), False, "a second lock cannot acquire")
    raises(redis.exceptions.LockNotOwnedError, "Cannot release a lock that's no longer owned",
           lambda: b.do_release(b"nottheowner"), "release with another token")
    a.release()
    eq(a.locked(), False, "locked after release")
    eq(b.acquire(blocking=False), True, "the second lock acquires once released")
    b.release()


@step
def scripts():
    """register_script: EVALSHA, NOSCRIPT after SCRIPT FLUSH falls back to EVAL, errors"""
    incr = r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
    eq(incr(keys=[k("sn")], args=[5]), 5, "first call")
    eq(incr(keys=[k("sn")], args=[5]), 10, "second call (EVALSHA)")
    eq(r.script_exists(incr.sha), [True], "SCRIPT EXISTS")
    eq(r.script_flush(), True, "SCRIPT FLUSH")
    eq(incr(keys=[k("sn")], args=[1]), 11, "after SCRIPT FLUSH (NOSCRIPT, then EVAL)")
    eq(r.eval("return {1, 'two', {3}}", 0), [1, "two", [3]], "EVAL array")
    r.set(k("text"), "x")
    raises(redis.ResponseError,
           "value is not an integer or out of range script: 2bab3b661081db58bd2341920e0ba7cf5dc77b25, on @user_script:1.",
           lambda: r.eval("return redis.call('incr', KEYS[1])", 1, k("text")), "a failing redis.call")


if not reference:
    @step
    def advance_time():
        """DEBUG ADVANCE-TIME expires a key with EX 100"""
        r.set(k("adv"), "v", ex=100)
        eq(r.execute_command("DEBUG", "ADVANCE-TIME", "100001"), "OK", "DEBUG ADVANCE-TIME")
        eq(r.get(k("adv")), None, "GET after 100.001 s")

    @step
    def dehydrator():
        """REDE.PUSH / REDE.POLL with DEBUG ADVANCE-TIME"""
        q = k("dehy")
        cmd = r.execute_command
        eq(cmd("REDE.PUSH", q, 1000, "first", "id1"), "OK", "REDE.PUSH id1")
        eq(cmd("REDE.PUSH", q, 1000, "second", "id2"), "OK", "REDE.PUSH id2")
        raises(redis.ResponseError, "ERROR: Element already dehydrating.",
               lambda: cmd("REDE.PUSH", q, 1000, "again", "id1"), "REDE.PUSH of a dehydrating id")
        eq(cmd("REDE.POLL", q), [], "REDE.POLL before the TTL")
        eq(cmd("REDE.LOOK", q, "id2"), "second", "REDE.LOOK")
        eq(r.type(q), "dehy-type", "TYPE of a dehydrator")
        raises(redis.ResponseError, "WRONGTYPE Operation against a key holding the wrong kind of value",
               lambda: r.get(q), "GET on a dehydrator")
        eq(cmd("DEBUG", "ADVANCE-TIME", 500), "OK", "DEBUG ADVANCE-TIME 500")
        eq(cmd("REDE.POLL", q), [], "REDE.POLL half way through the TTL")
        eq(cmd("DEBUG", "ADVANCE-TIME", 1000), "OK", "DEBUG ADVANCE-TIME 1000")
        eq(cmd("REDE.POLL", q), ["first", "second"], "REDE.POLL after the TTL, in push order")
        eq(cmd("REDE.TTN", q), -1, "REDE.TTN of an emptied dehydrator")
        eq(r.delete(q), 1, "DEL of the dehydrator")


@step
def disconnect():
    """clean disconnect: close(), and the server drops the connections"""
    if "pubsub" in state:
        state["pubsub"].close()
    r.close()
    r.connection_pool.disconnect()
    n = -1
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        n = admin.info("clients")["connected_clients"]
        if n == 1:
            break
        time.sleep(0.01)
    eq(n, 1, "connected_clients after close() (only this one left)")
    admin.close()


finish(label)
