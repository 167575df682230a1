"""redis-py with ssl=True against a server's tls-port (tests/tools/tls.sh):
a value of several MB each way, a pipeline, pub/sub, clients that stall,
close mid-handshake or send garbage (the server goes on serving the
others), and CONFIG SET tls-cert-file rotation (new connections get the new
certificate, open ones stay). Usage: tls_check.py TLS_PORT CERT_DIR.
Prints FAIL lines and exits 1 on the first failed check."""
import os
import shutil
import socket
import ssl
import sys

import redis

port = int(sys.argv[1])
certs = sys.argv[2]


def path(name):
    return os.path.join(certs, name)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=path("ca.crt"),
                       ssl_certfile=path("client.crt"), ssl_keyfile=path("client.key"),
                       socket_timeout=10, **kw)


def tls_context():
    ctx = ssl.create_default_context(cafile=path("ca.crt"))
    ctx.check_hostname = False
    ctx.load_cert_chain(path("client.crt"), path("client.key"))
    return ctx


def peer_cn():
    """The CN of the certificate the server shows a new connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with tls_context().wrap_socket(raw) as s:
            subject = dict(x[0] for x in s.getpeercert()["subject"])
            return subject["commonName"]


def client_hello():
    """The bytes of a TLS ClientHello, made without a socket."""
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = tls_context().wrap_bio(inc, out, server_side=False)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


r = client()
check(r.ping(), "PING over TLS")

# A value of several MB, both ways (it spans many TLS records and reads).
big = os.urandom(5 * 1024 * 1024 + 17)
check(r.set("big", big), "SET of 5 MB")
check(r.get("big") == big, "GET of 5 MB returned other bytes")
check(r.strlen("big") == len(big), "STRLEN of the 5 MB value")

# A pipeline of 1,000 commands, replies in order.
p = r.pipeline(transaction=False)
for i in range(1000):
    p.set(f"p:{i}", i)
    p.incr(f"p:{i}")
replies = p.execute()
check(replies[1::2] == [i + 1 for i in range(1000)], "pipeline replies")

# Pub/sub over TLS.
sub = client().pubsub()
sub.subscribe("news")
check(sub.get_message(timeout=5)["type"] == "subscribe", "SUBSCRIBE confirmation")
check(r.publish("news", "hello") == 1, "PUBLISH reached one subscriber")
msg = sub.get_message(timeout=5)
check(msg is not None and msg["data"] == b"hello", f"message over TLS: {msg}")
sub.close()

# Clients that stall, stop mid-handshake, speak plain RESP, or send garbage:
# each costs the server that connection only.
stalled = socket.create_connection(("127.0.0.1", port))  # never says anything
hello = client_hello()
for payload in (hello[: len(hello) // 2], hello, b"*1\r\n$4\r\nPING\r\n", os.urandom(4096),
                b"\x16\x03\x01\xff\xff" + os.urandom(300)):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(payload)
    s.close()
# Plain RESP on the TLS port gets no RESP reply: the handshake fails.
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"*1\r\n$4\r\nPING\r\n")
got = b""
try:
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
except (ConnectionResetError, socket.timeout):
    pass
s.close()
check(b"PONG" not in got, "plain RESP on the TLS port was answered")
# After a completed handshake, garbage records end that session only.
raw = socket.create_connection(("127.0.0.1", port), timeout=10)
t = tls_context().wrap_socket(raw)
t.sendall(b"*1\r\n$4\r\nPING\r\n")
check(t.recv(100) == b"+PONG\r\n", "raw TLS PING")
# An application record that does not decrypt, under the session.
os.write(t.fileno(), b"\x17\x03\x03\x00\x20" + os.urandom(32))
try:
    rest = t.recv(100)
except (ssl.SSLError, ConnectionResetError, OSError):
    rest = b""
check(rest == b"", f"a session with a forged record went on: {rest!r}")
t.close()
check(r.ping(), "PING after the bad clients")
stalled.close()

# Rotation: new connections see the new certificate, open ones stay.
check(peer_cn() == "lawnkv-server", "the first certificate")
r.execute_command("CONFIG", "SET", "tls-cert-file", path("server2.crt"), "tls-key-file", path("server2.key"))
check(peer_cn() == "lawnkv-server-2", "new connections after CONFIG SET tls-cert-file")
check(r.ping(), "the connection opened before the rotation")
check(r.get("p:1") == b"2", "the old connection still reads")
# A certificate that cannot be loaded: refused, the context kept.
try:
    r.execute_command("CONFIG", "SET", "tls-cert-file", path("missing.crt"))
    fail("CONFIG SET tls-cert-file of a missing file was accepted")
except redis.ResponseError as e:
    check(str(e) == "CONFIG SET failed (possibly related to argument 'tls-cert-file') - "
          "Unable to update TLS configuration. Check server logs.", f"error text: {e}")
check(r.config_get("tls-cert-file")["tls-cert-file"] == path("server2.crt"), "tls-cert-file kept")
check(peer_cn() == "lawnkv-server-2", "the context after a failed CONFIG SET")
# The same paths again reload the files (renewed on disk), as Redis does.
shutil.copy(path("server2.crt"), path("live.crt"))
shutil.copy(path("server2.key"), path("live.key"))
r.execute_command("CONFIG", "SET", "tls-cert-file", path("live.crt"), "tls-key-file", path("live.key"))
check(peer_cn() == "lawnkv-server-2", "the live files")
shutil.copy(path("server.crt"), path("live.crt"))
shutil.copy(path("server.key"), path("live.key"))
r.execute_command("CONFIG", "SET", "tls-cert-file", path("live.crt"), "tls-key-file", path("live.key"))
check(peer_cn() == "lawnkv-server", "CONFIG SET of the same paths reloads the files")
print("redis-py over TLS: all checks passed")
