"""Failover by Redis Sentinel under a write load (tests/tools/sentinel.sh).

A client finds the primary through redis-py's Sentinel (master_for) and
writes key w:<n> = <n>, each followed by WAIT 1 100: a write counts as
acknowledged when a replica has it. After a while the primary is killed
(SIGKILL). The client carries on, reconnecting through Sentinel, until
writes are acknowledged again. Checked, each within a bounded time:
- Sentinel promotes one replica (ROLE master) and the other follows it;
- every acknowledged write is on the new primary, with its value;
- the killed primary, restarted with its command line, is turned into a
  replica of the new primary by Sentinel and catches up;
- no INFO, ROLE or SENTINEL reply the checks read is missing a field.
With --password the data servers require it (requirepass): the client
and the checks log in as their default user.
Prints the figures: the client's outage (from the kill to the first
acknowledged write on the new primary), Sentinel's own failover time
(+odown to +switch-master, from its pub/sub events), writes attempted,
acknowledged, failed and lost.
"""

import argparse
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

import redis
from redis.sentinel import Sentinel

NAME = "m"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


def wait_for(what, deadline_s, probe, interval=0.05):
    """Polls probe() (exceptions count as not yet) until truthy or deadline."""
    end = time.monotonic() + deadline_s
    last = None
    while time.monotonic() < end:
        try:
            last = probe()
            if last:
                return last
        except (redis.RedisError, OSError) as e:
            last = e
        time.sleep(interval)
    raise TimeoutError("%s: not within %.0f s (last: %r)" % (what, deadline_s, last))


PASSWORD = None  # the data servers' requirepass (--password); sentinels have none


def client(port):
    """A connection to a sentinel."""
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, decode_responses=True)


def data(port):
    """A connection to a data server, as its default user."""
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, decode_responses=True, password=PASSWORD)


def role(port):
    return data(port).execute_command("ROLE")


class Events(threading.Thread):
    """Sentinel's pub/sub events (+odown, +switch-master...) with times."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.pubsub = client(port).pubsub()
        self.pubsub.psubscribe("*")
        self.seen = {}
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                m = self.pubsub.get_message(timeout=0.1)
            except (redis.RedisError, OSError):
                return
            if m and m["type"] == "pmessage":
                self.seen.setdefault(m["channel"], []).append((time.monotonic(), m["data"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentinels", required=True)
    ap.add_argument("--primary", type=int, required=True)
    ap.add_argument("--primary-pid", type=int, required=True)
    ap.add_argument("--replicas", required=True)
    ap.add_argument("--promotable", type=int, required=True, help="the replica without replica-priority 0")
    ap.add_argument("--restart", required=True)
    ap.add_argument("--restart-log", required=True)
    ap.add_argument("--restarted-pid-file", required=True)
    ap.add_argument("--password", help="the data servers' requirepass")
    a = ap.parse_args()
    global PASSWORD
    PASSWORD = a.password
    sentinel_ports = [int(p) for p in a.sentinels.split(",")]
    replica_ports = [int(p) for p in a.replicas.split(",")]

    # Every sentinel knows the primary, both replicas and the two others
    # (through the hellos on __sentinel__:hello).
    for sp in sentinel_ports:
        s = client(sp)
        wait_for("sentinel %d sees 2 replicas and 2 sentinels" % sp, 20, lambda: (
            len([r for r in s.sentinel_slaves(NAME) if "s_down" not in r["flags"]]) == 2
            and len(s.sentinel_sentinels(NAME)) == 2))
        replicas = s.sentinel_slaves(NAME)
        if sorted(int(r["port"]) for r in replicas) != sorted(replica_ports):
            fail("sentinel %d lists replicas %r" % (sp, [r["port"] for r in replicas]))
    print("sentinels see the primary, 2 replicas and each other", flush=True)

    events = [Events(p) for p in sentinel_ports]
    for e in events:
        e.start()
    sentinel = Sentinel([("127.0.0.1", p) for p in sentinel_ports], socket_timeout=0.5)
    master = sentinel.master_for(NAME, socket_timeout=0.5, decode_responses=True, password=PASSWORD)

    acked = {}      # key -> value, acknowledged by a replica (WAIT >= 1)
    attempted = errors = unacked = 0
    kill_at = recovered_at = None
    first_error = None
    n = 0
    deadline = time.monotonic() + 60

    def write_one():
        nonlocal attempted, errors, unacked, n, first_error
        n += 1
        key, value = "w:%d" % n, str(n)
        attempted += 1
        try:
            master.set(key, value)
            got = master.execute_command("WAIT", 1, 100)
        except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError) as e:
            errors += 1
            first_error = first_error or repr(e)
            time.sleep(0.02)
            return False
        if int(got) >= 1:
            acked[key] = value
            return True
        unacked += 1
        return False

    # Before: writes flow and are acknowledged.
    while len(acked) < 200 and time.monotonic() < deadline:
        write_one()
    if len(acked) < 200:
        fail("only %d writes acknowledged before the kill" % len(acked))
    os.kill(a.primary_pid, signal.SIGKILL)
    kill_at = time.monotonic()
    acked_before = len(acked)
    print("killed the primary (port %d) after %d acknowledged writes" % (a.primary, acked_before), flush=True)

    # During and after: the client carries on until writes are acknowledged
    # by the new primary's replica, then a little longer.
    while time.monotonic() < deadline:
        if write_one() and recovered_at is None and len(acked) > acked_before:
            recovered_at = time.monotonic()
        if recovered_at is not None and len(acked) >= acked_before + 200:
            break
    if recovered_at is None:
        fail("no write acknowledged after the kill within 60 s")
        return finish(events)

    new_port = int(sentinel.discover_master(NAME)[1])
    if new_port != a.promotable:
        fail("Sentinel's primary is now %d, not %d (the other replica has replica-priority 0)" % (
            new_port, a.promotable))
        return finish(events)
    other = [p for p in replica_ports if p != new_port][0]
    r = role(new_port)
    if r[0] != "master":
        fail("the promoted server's ROLE: %r" % (r,))
    try:
        wait_for("the other replica follows the new primary", 10, lambda: (
            role(other)[0] == "slave" and int(role(other)[2]) == new_port and role(other)[3] == "connected"))
    except TimeoutError as e:
        fail(str(e))

    # Every acknowledged write is on the new primary, and on the replica
    # that followed it once that has caught up (WAIT counted on it).
    newp = data(new_port)
    keys = list(acked)

    def missing(port):
        out = []
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            out += [k for k, v in zip(chunk, data(port).mget(chunk)) if v != acked[k]]
        return out

    lost = missing(new_port)
    if lost:
        fail("%d acknowledged writes missing on the new primary, e.g. %r" % (len(lost), lost[:5]))
    try:
        wait_for("the other replica catches up with the new primary", 10, lambda: (
            data(other).info("replication")["slave_repl_offset"]
            == newp.info("replication")["master_repl_offset"]))
    except TimeoutError as e:
        fail(str(e))
    on_other = missing(other)
    if on_other:
        fail("%d acknowledged writes missing on the replica that followed the new primary, e.g. %r" % (
            len(on_other), on_other[:5]))

    # Every sentinel has switched to the new primary and heard from it (its
    # own PING answered, no down flag) before the old primary comes back.
    def settled(sp):
        m = client(sp).sentinel_master(NAME)
        return (int(m["port"]) == new_port and m["flags"] == "master" and int(m["last-ok-ping-reply"]) < 1000
                and int(m["num-slaves"]) >= 2)
    try:
        for sp in sentinel_ports:
            wait_for("sentinel %d settles on the new primary" % sp, 10, lambda: settled(sp))
    except TimeoutError as e:
        fail(str(e))

    # The old primary comes back (empty: no persistence) and Sentinel makes
    # it a replica of the new one (after its 8 s grace for a server that
    # says it is a primary), which then holds the data.
    with open(a.restart_log, "w") as log:
        p = subprocess.Popen(shlex.split(a.restart), stdout=log, stderr=subprocess.STDOUT)
    with open(a.restarted_pid_file, "w") as f:
        f.write(str(p.pid))
    restarted_at = time.monotonic()
    try:
        wait_for("the old primary rejoins as a replica of the new one", 30, lambda: (
            role(a.primary)[0] == "slave" and int(role(a.primary)[2]) == new_port
            and role(a.primary)[3] == "connected"), interval=0.2)
        rejoined_s = time.monotonic() - restarted_at
        old = data(a.primary)
        wait_for("the old primary holds the acknowledged writes", 10, lambda: (
            old.dbsize() >= len(acked) and all(v == acked[k] for k, v in zip(keys[-100:], old.mget(keys[-100:])))))
        # And Sentinel lists it among the new primary's replicas.
        wait_for("Sentinel lists the old primary as a replica", 10, lambda: a.primary in [
            int(x["port"]) for x in client(sentinel_ports[0]).sentinel_slaves(NAME) if "s_down" not in x["flags"]])
    except TimeoutError as e:
        fail(str(e))
        rejoined_s = None

    outage = recovered_at - kill_at
    def first(event):  # the earliest time after the kill any sentinel published it about the primary
        times = [t for e in events for t, data in e.seen.get(event, [])
                 if t >= kill_at and (data.startswith("master ") or event == "+switch-master")]
        return min(times) if times else None

    sdown, odown, switch = first("+sdown"), first("+odown"), first("+switch-master")
    print("failover figures (%s):" % ("all nodes redis-server" if os.environ.get("LAWNKV_REFERENCE") == "1"
                                      else "lawnkv nodes, redis-server 7.0.15 sentinels"))
    print("  client outage, kill -9 to the first acknowledged write on the new primary: %.2f s" % outage)
    if switch and sdown and odown:
        print("  Sentinel (the first of the three to publish each event): kill to +sdown %.2f s, to +odown %.2f s, "
              "to +switch-master %.2f s" % (sdown - kill_at, odown - kill_at, switch - kill_at))
    else:
        fail("no +switch-master event seen")
    print("  writes: %d attempted, %d acknowledged, %d failed (connection/read-only), %d not acknowledged by "
          "WAIT 1 100, %d acknowledged and lost (%d missing on the replica that followed)" % (
              attempted, len(acked), errors, unacked, len(lost), len(on_other)))
    if first_error:
        print("  first client error after the kill: %s" % first_error)
    if rejoined_s is not None:
        print("  old primary restarted -> a connected replica of the new one: %.1f s" % rejoined_s)
    return finish(events)


def finish(events):
    for e in events:
        e.stop = True
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a reply the checks did not expect: say so in the FAIL form
        import traceback
        traceback.print_exc()
        print("FAIL: %r" % (e,), flush=True)
        sys.exit(1)
