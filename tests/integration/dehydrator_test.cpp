// REDE.* against the running server: every row of the command table, the
// faults of the ReDe module that lawnkv must not have, and REDE.BPOLL's
// blocking, timeout, wake-up order and COUNT. Time moves with DEBUG
// ADVANCE-TIME; nothing sleeps.

#include <doctest/doctest.h>

#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "../support/time_edges.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::RawClient;
using test::ServerProcess;

void advance(Client& c, long long ms) {
  REQUIRE(c.call(Argv{"DEBUG", "ADVANCE-TIME", std::to_string(ms)}) == status("OK"));
}

// Waits until CLIENT LIST shows `n` clients blocked (flag b).
bool blocked_clients(Client& c, size_t n) {
  return test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
    Reply list = c.call({"CLIENT", "LIST"});
    size_t blocked = 0;
    for (size_t pos = 0; (pos = list.text.find("flags=", pos)) != std::string::npos; ++pos) {
      const size_t end = list.text.find(' ', pos);
      if (list.text.substr(pos, end - pos).find('b') != std::string::npos) ++blocked;
    }
    return blocked == n;
  });
}

TEST_CASE("REDE.PUSH, LOOK, PULL, UPDATE, TTN on one key") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  CHECK(c.wire({"REDE.TTN", "q"}) == "$-1\r\n");
  CHECK(c.wire({"REDE.PUSH", "q", "5000", "hello", "id1"}) == "+OK\r\n");
  CHECK(c.wire({"REDE.PUSH", "q", "10", "other", "id1"}) == "-ERROR: Element already dehydrating.\r\n");
  CHECK(c.wire({"TYPE", "q"}) == "+dehy-type\r\n");
  CHECK(c.wire({"REDE.LOOK", "q", "id1"}) == "$5\r\nhello\r\n");
  CHECK(c.wire({"REDE.LOOK", "q", "nope"}) == "$-1\r\n");
  CHECK(c.wire({"REDE.LOOK", "missing", "id1"}) == "$-1\r\n");
  const long long ttn = c.integer({"REDE.TTN", "q"});
  CHECK(ttn > 0);
  CHECK(ttn <= 5001);
  CHECK(c.wire({"REDE.UPDATE", "q", "id1", "world"}) == "$5\r\nhello\r\n");
  CHECK(c.wire({"REDE.UPDATE", "q", "nope", "x"}) == "-ERROR: No Such Element.\r\n");
  CHECK(c.wire({"REDE.UPDATE", "missing", "id1", "x"}) == "-ERROR: No Such dehydrator.\r\n");
  CHECK(c.wire({"REDE.PULL", "q", "id1"}) == "$5\r\nworld\r\n");
  CHECK(c.wire({"REDE.PULL", "q", "id1"}) == "$-1\r\n");
  CHECK(c.wire({"REDE.PULL", "missing", "id1"}) == "$-1\r\n");
  // An emptied dehydrator stays until DEL, as in ReDe.
  CHECK(c.integer({"REDE.TTN", "q"}) == -1);
  CHECK(c.integer({"EXISTS", "q"}) == 1);
  CHECK(c.integer({"DEL", "q"}) == 1);
  CHECK(c.wire({"REDE.TTN", "q"}) == "$-1\r\n");
}

TEST_CASE("REDE.POLL returns due elements in expiry order, never early") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  CHECK(c.wire({"REDE.POLL", "missing"}) == "*0\r\n");
  REQUIRE(c.wire({"REDE.PUSH", "q", "3000", "c", "3"}) == "+OK\r\n");
  REQUIRE(c.wire({"REDE.PUSH", "q", "1000", "a", "1"}) == "+OK\r\n");
  REQUIRE(c.wire({"REDE.PUSH", "q", "2000", "b", "2"}) == "+OK\r\n");
  CHECK(c.wire({"REDE.POLL", "q"}) == "*0\r\n");
  advance(c, 2500);
  CHECK(c.wire({"REDE.POLL", "q"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(c.wire({"REDE.POLL", "q"}) == "*0\r\n");
  advance(c, 1000);
  CHECK(c.wire({"REDE.POLL", "q"}) == "*1\r\n$1\r\nc\r\n");
  CHECK(c.integer({"REDE.TTN", "q"}) == -1);
}

TEST_CASE("REDE.XPOLL lists due ids without removing; REDE.XACK takes due ones") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  CHECK(c.wire({"REDE.XPOLL", "missing"}) == "*0\r\n");
  CHECK(c.wire({"REDE.XACK", "missing", "x"}) == "*0\r\n");
  REQUIRE(c.wire({"REDE.PUSH", "q", "100", "A", "a"}) == "+OK\r\n");
  REQUIRE(c.wire({"REDE.PUSH", "q", "200", "B", "b"}) == "+OK\r\n");
  REQUIRE(c.wire({"REDE.PUSH", "q", "100000", "C", "c"}) == "+OK\r\n");
  advance(c, 1000);
  CHECK(c.wire({"REDE.XPOLL", "q"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(c.wire({"REDE.XPOLL", "q"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(c.integer({"REDE.TTN", "q"}) == 0);
  CHECK(c.wire({"REDE.XACK", "q", "a", "c", "zz"}) == "*3\r\n$1\r\nA\r\n$-1\r\n$-1\r\n");
  CHECK(c.wire({"REDE.XPOLL", "q"}) == "*1\r\n$1\r\nb\r\n");
  CHECK(c.wire({"REDE.LOOK", "q", "b"}) == "$1\r\nB\r\n");  // due, not yet polled
}

TEST_CASE("REDE.GIDPUSH generates unique 31-character ids of [0-9A-Z]") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    Reply r = c.call({"REDE.GIDPUSH", "q", "100000", "v"});
    REQUIRE(r.type == '$');
    REQUIRE(r.text.size() == 31);
    for (char ch : r.text) CHECK(((ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')));
    ids.insert(r.text);
  }
  CHECK(ids.size() == 1000);
  CHECK(c.wire({"REDE.LOOK", "q", *ids.begin()}) == "$1\r\nv\r\n");
}

TEST_CASE("ReDe's faults are not lawnkv's: bad TTLs, wrong types, 64-bit TTLs, binary ids") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  // A non-integer or negative TTL is an error and creates no key.
  CHECK(c.wire({"REDE.PUSH", "q", "abc", "v", "id"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(c.wire({"REDE.PUSH", "q", "-5", "v", "id"}) == "-ERR TTL must not be negative\r\n");
  CHECK(c.wire({"REDE.GIDPUSH", "q", "1.5", "v"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(c.integer({"EXISTS", "q"}) == 0);
  // PUSH on a string key: one WRONGTYPE reply, the server stays up.
  REQUIRE(c.wire({"SET", "s", "x"}) == "+OK\r\n");
  const std::string wrongtype = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
  CHECK(c.wire({"REDE.PUSH", "s", "10", "v", "id"}) == wrongtype);
  CHECK(c.wire({"REDE.POLL", "s"}) == wrongtype);
  CHECK(c.wire({"REDE.TTN", "s"}) == wrongtype);
  REQUIRE(c.wire({"REDE.PUSH", "q", "10", "v", "id"}) == "+OK\r\n");
  CHECK(c.wire({"GET", "q"}) == wrongtype);
  CHECK(c.wire({"APPEND", "q", "x"}) == wrongtype);
  // A TTL past 2^32 ms is kept whole.
  const long long big = (1LL << 33);
  REQUIRE(c.call(Argv{"REDE.PUSH", "big", std::to_string(big), "v", "id"}) == status("OK"));
  const long long ttn = c.integer({"REDE.TTN", "big"});
  CHECK(ttn > big - 60000);
  CHECK(ttn <= big + 1);
  // Ids are binary-safe: "a\0b" and "a" are different ids.
  REQUIRE(c.call(Argv{"REDE.PUSH", "bin", "10", "first", std::string("a\0b", 3)}) == status("OK"));
  CHECK(c.call(Argv{"REDE.PUSH", "bin", "10", "second", "a"}) == status("OK"));
  CHECK(c.call(Argv{"REDE.LOOK", "bin", std::string("a\0b", 3)}) == bulk("first"));
  // RENAME and EXPIRE treat it as any key.
  REQUIRE(c.wire({"RENAME", "bin", "bin2"}) == "+OK\r\n");
  CHECK(c.wire({"REDE.LOOK", "bin2", "a"}) == "$6\r\nsecond\r\n");
  CHECK(c.integer({"EXPIRE", "bin2", "100"}) == 1);
  CHECK(c.integer({"TTL", "bin2"}) == 100);
}

TEST_CASE("REDE.BPOLL blocks until an element is due, then replies like POLL") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  REQUIRE(c.wire({"REDE.PUSH", "q", "1000", "due-soon", "a"}) == "+OK\r\n");
  RawClient waiter(server.port());
  waiter.send(encode_command({"REDE.BPOLL", "q", "0"}));
  REQUIRE(blocked_clients(c, 1));
  advance(c, 1001);
  CHECK(waiter.read_reply() == "*1\r\n$8\r\ndue-soon\r\n");
  // The unblocked client is served again at once.
  CHECK(waiter.call({"PING"}) == "+PONG\r\n");
  // Something due already: no blocking at all.
  REQUIRE(c.wire({"REDE.PUSH", "q", "0", "now", "b"}) == "+OK\r\n");
  advance(c, 1);
  CHECK(waiter.call({"REDE.BPOLL", "q", "5"}) == "*1\r\n$3\r\nnow\r\n");
}

TEST_CASE("REDE.BPOLL times out with a nil reply; decimals allowed; bad timeouts refused") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  CHECK(c.wire({"REDE.BPOLL", "q", "abc"}) == "-ERR timeout is not a float or out of range\r\n");
  CHECK(c.wire({"REDE.BPOLL", "q", "-1"}) == "-ERR timeout is negative\r\n");
  CHECK(c.wire({"REDE.BPOLL", "q", "1", "COUNT", "0"}) == "-ERR COUNT must be positive\r\n");
  CHECK(c.wire({"REDE.BPOLL", "q", "1", "LIMIT", "3"}) == "-ERR syntax error\r\n");
  // The server's clock also moves in real time meanwhile: the steps leave
  // the timeout a margin of 0.5 s on either side.
  RawClient waiter(server.port());
  waiter.send(encode_command({"REDE.BPOLL", "q", "100.5"}));
  REQUIRE(blocked_clients(c, 1));
  advance(c, 100'000);
  CHECK(blocked_clients(c, 1));
  advance(c, 1'000);
  CHECK(waiter.read_reply() == "*-1\r\n");
  CHECK(blocked_clients(c, 0));
}

// The server's Unix time in ms, as TIME reports it.
long long time_ms(Client& c) {
  Reply t = c.call({"TIME"});
  REQUIRE(t.elements.size() == 2);
  return std::stoll(t.elements[0].text) * 1000 + std::stoll(t.elements[1].text) / 1000;
}

// v as a 64-bit integer as Redis's string2ll reads it ("01", "+1" are not),
// or nullopt.
std::optional<long long> as_integer(const std::string& v) {
  long long n;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || std::to_string(n) != v) return std::nullopt;
  return n;
}

TEST_CASE("REDE.PUSH, GIDPUSH and BPOLL at every edge value: an error or a stored deadline, never a crash") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  const long long now_ms = time_ms(c);
  int n = 0;
  for (const std::string& v : test::time_edge_values(now_ms)) {
    CAPTURE(v);
    // A TTL that is an integer, >= 0, and whose deadline now + ttl is below
    // INT64_MAX is stored; anything else is refused and creates nothing.
    const std::optional<long long> ttl = as_integer(v);
    std::string want = "+OK\r\n";
    if (!ttl) want = "-ERR value is not an integer or out of range\r\n";
    else if (*ttl < 0) want = "-ERR TTL must not be negative\r\n";
    else if (*ttl > INT64_MAX - 1 - now_ms - test::kTimeEdgeMargin / 2) want = "-ERR invalid expire time in '%s' command\r\n";
    auto named = [&](std::string text, std::string_view command) {
      if (const size_t at = text.find("%s"); at != std::string::npos) text.replace(at, 2, command);
      return text;
    };
    const std::string key = "d" + std::to_string(n++);
    CHECK(wire(c.call(Argv{"REDE.PUSH", key, v, "e", "id"})) == named(want, "rede.push"));
    const Reply gid = c.call(Argv{"REDE.GIDPUSH", key, v, "e"});
    if (want == "+OK\r\n") {
      CHECK(gid.type == '$');
      // TTN is the TTL + 1, less the ms that passed since the push.
      const long long ttn = c.integer({"REDE.TTN", key});
      CHECK(ttn <= *ttl + 1);
      CHECK(ttn > *ttl + 1 - test::kTimeEdgeMargin);
    } else {
      CHECK(wire(gid) == named(want, "rede.gidpush"));
      CHECK(c.integer({"EXISTS", key}) == 0);
    }
  }

  // BPOLL's timeout, inside MULTI so that nothing blocks: EXEC holds the
  // parse error, or the nil of a poll that found nothing due (a null array:
  // read raw, as hiredis spells every nil "$-1").
  RawClient raw(server.port());
  for (const std::string& v : test::time_edge_values(now_ms)) {
    CAPTURE(v);
    long double seconds = 0;
    char* end = nullptr;
    const bool number = !v.empty() && v != "nan" && (seconds = std::strtold(v.c_str(), &end), *end == '\0');
    const long double ms = std::ceil(seconds * 1000.0L);
    std::string want = "*1\r\n*-1\r\n";
    if (!number) want = "*1\r\n-ERR timeout is not a float or out of range\r\n";
    else if (ms < 0) want = "*1\r\n-ERR timeout is negative\r\n";
    else if (ms > static_cast<long double>(INT64_MAX - now_ms - test::kTimeEdgeMargin / 2))
      want = "*1\r\n-ERR timeout is out of range\r\n";
    REQUIRE(raw.call({"MULTI"}) == "+OK\r\n");
    REQUIRE(raw.call({"REDE.BPOLL", "empty", v}) == "+QUEUED\r\n");
    CHECK(raw.call({"EXEC"}) == want);
  }
  CHECK(server.running());
  CHECK(c.wire({"PING"}) == "+PONG\r\n");
}

TEST_CASE("REDE.BPOLL outside MULTI: a timeout past INT64_MAX is an error, a large one blocks that long") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  RawClient waiter(server.port());
  // Each of these used to overflow into a deadline already passed: nil at once.
  for (const char* timeout : {"1e16", "1e300", "9223372036854775", "inf"})
    CHECK(waiter.call({"REDE.BPOLL", "q", timeout}) == "-ERR timeout is out of range\r\n");
  {
    // 2^53 ms is 9007199254740.992 s: year 287,000, past where DEBUG
    // ADVANCE-TIME may move the clock; it must block, not answer.
    RawClient far(server.port());
    far.send(encode_command({"REDE.BPOLL", "q", "9007199254740.992"}));
    REQUIRE(blocked_clients(c, 1));
  }
  REQUIRE(blocked_clients(c, 0));
  waiter.send(encode_command({"REDE.BPOLL", "q", "2147483648"}));
  REQUIRE(blocked_clients(c, 1));
  // As in the timeout test above: 0.5 s margins on either side.
  advance(c, 2'147'483'648'000LL - 500);
  CHECK(blocked_clients(c, 1));
  advance(c, 1000);
  CHECK(waiter.read_reply() == "*-1\r\n");
  CHECK(blocked_clients(c, 0));
}

TEST_CASE("REDE.BPOLL serves blocked clients in the order they blocked, COUNT caps a reply") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  RawClient first(server.port());
  RawClient second(server.port());
  first.send(encode_command({"REDE.BPOLL", "q", "0", "COUNT", "2"}));
  REQUIRE(blocked_clients(c, 1));
  second.send(encode_command({"REDE.BPOLL", "q", "0"}));
  REQUIRE(blocked_clients(c, 2));
  for (const char* id : {"1", "2", "3"}) REQUIRE(c.call(Argv{"REDE.PUSH", "q", "100", std::string("e") + id, id}) == status("OK"));
  advance(c, 101);
  CHECK(first.read_reply() == "*2\r\n$2\r\ne1\r\n$2\r\ne2\r\n");
  CHECK(second.read_reply() == "*1\r\n$2\r\ne3\r\n");
}

TEST_CASE("a client that disconnects while blocked is forgotten") {
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  {
    RawClient gone(server.port());
    gone.send(encode_command({"REDE.BPOLL", "q", "0"}));
    REQUIRE(blocked_clients(c, 1));
  }
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 5s, [&] { return client_count(c) == 1; }));
  REQUIRE(c.wire({"REDE.PUSH", "q", "1", "x", "1"}) == "+OK\r\n");
  advance(c, 10);
  CHECK(c.wire({"REDE.POLL", "q"}) == "*1\r\n$1\r\nx\r\n");
}

TEST_CASE("a resumed client that closes another blocked client leaves the server serving") {
  // Issue 14, finding 2: A blocks with a pipelined PUBLISH behind its
  // BPOLL; B, subscribed in RESP3, blocks too. When A times out and resumes,
  // its PUBLISH pushes B past the pubsub output limit (32 MB): B is closed
  // while the blocked clients are being served.
  ServerProcess server = ServerProcess::lawnkv();
  Client c(server.port());
  RawClient a(server.port());
  RawClient b(server.port());
  REQUIRE(b.call({"HELLO", "3"}).rfind("%7", 0) == 0);
  REQUIRE(b.call({"SUBSCRIBE", "ch"}) == ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  b.send(encode_command({"REDE.BPOLL", "kb", "0"}));
  REQUIRE(blocked_clients(c, 1));
  const std::string big(33 * 1024 * 1024, 'm');
  a.send(encode_command({"REDE.BPOLL", "ka", "1"}) + encode_command({"PUBLISH", "ch", big}));
  REQUIRE(blocked_clients(c, 2));
  // The server has read A's PUBLISH while A was blocked.
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 10s, [&] {
    return info_int(c.call({"INFO", "stats"}).text, "total_net_input_bytes") > static_cast<long long>(big.size());
  }));
  advance(c, 1000);
  CHECK(a.read_reply() == "*-1\r\n");
  CHECK(a.read_reply() == ":1\r\n");
  CHECK(b.wait_closed());
  CHECK(c.wire({"PING"}) == "+PONG\r\n");
  CHECK(blocked_clients(c, 0));
  CHECK(server.running());
}

}  // namespace
}  // namespace lawnkv::itest
