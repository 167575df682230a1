// The client-side caching table (engine/tracking.hpp) through the
// dispatcher: what lawnkv does beyond what the compat scenarios compare
// with redis-server (SWAPDB, eviction, the table's bound and counts).
#include <doctest/doctest.h>

#include "command_fixture.hpp"

namespace lawnkv::test {

namespace {

std::string push_of(std::string_view key) {
  return ">2\r\n$10\r\ninvalidate\r\n*1\r\n$" + std::to_string(key.size()) + "\r\n" + std::string(key) + "\r\n";
}
constexpr std::string_view kNullPush = ">2\r\n$10\r\ninvalidate\r\n_\r\n";

// A RESP3 client of s with tracking on (default mode).
FakeSession& tracker(BlockingServer& s) {
  FakeSession& c = s.client();
  c.protocol = 3;
  REQUIRE(s.run_as(c, {"CLIENT", "TRACKING", "on"}) == "+OK\r\n");
  return c;
}

}  // namespace

TEST_CASE("tracking: a change tells each client that read the key, once") {
  BlockingServer s;
  FakeSession& a = tracker(s);
  FakeSession& b = tracker(s);
  s.run({"SET", "k", "v"});
  s.run_as(a, {"GET", "k"});
  s.run_as(b, {"MGET", "k", "j"});
  CHECK(s.state.data.tracking.total_keys() == 2);
  CHECK(s.state.data.tracking.total_items() == 3);
  s.run({"SET", "k", "w"});
  CHECK(a.delivered == std::vector<std::string>{push_of("k")});
  CHECK(b.delivered == std::vector<std::string>{push_of("k")});
  // Told once: the key left the table until read again.
  s.run({"SET", "k", "x"});
  CHECK(a.delivered.size() == 1);
  CHECK(s.state.data.tracking.total_keys() == 1);
  s.run({"DEL", "j"});  // no such key: no change, no message
  CHECK(b.delivered.size() == 1);
  s.run({"SET", "j", "1"});
  CHECK(b.delivered == std::vector<std::string>{push_of("k"), push_of("j")});
  CHECK(s.state.data.tracking.total_keys() == 0);
  CHECK(s.state.data.tracking.total_items() == 0);
}

TEST_CASE("tracking: SWAPDB tells every tracking client (a cached key has no db)") {
  BlockingServer s;
  FakeSession& a = tracker(s);
  FakeSession& bcast = s.client();
  bcast.protocol = 3;
  REQUIRE(s.run_as(bcast, {"CLIENT", "TRACKING", "on", "BCAST"}) == "+OK\r\n");
  s.run({"SET", "k", "in0"});
  s.run_as(a, {"GET", "k"});
  CHECK(s.run({"SWAPDB", "0", "1"}) == "+OK\r\n");
  CHECK(a.delivered == std::vector<std::string>{std::string(kNullPush)});
  CHECK(bcast.delivered == std::vector<std::string>{std::string(kNullPush)});
  CHECK(s.state.data.tracking.total_keys() == 0);
  // SWAPDB of a db with itself changes nothing and tells nobody.
  CHECK(s.run({"SWAPDB", "0", "0"}) == "+OK\r\n");
  CHECK(a.delivered.size() == 1);
}

TEST_CASE("tracking: an evicted key is invalidated") {
  BlockingServer s;
  FakeSession& a = tracker(s);
  s.run({"SET", "k", "v"});
  s.run_as(a, {"GET", "k"});
  REQUIRE(s.run({"CONFIG", "SET", "maxmemory-policy", "allkeys-random"}) == "+OK\r\n");
  REQUIRE(s.run({"CONFIG", "SET", "maxmemory", "1"}) == "+OK\r\n");
  // a's own command evicts (before it runs, as Redis's processCommand).
  const std::string reply = s.run_as(a, {"PING"});
  CHECK(reply == "+PONG\r\n");
  CHECK(a.delivered == std::vector<std::string>{push_of("k")});
  CHECK(s.run({"EXISTS", "k"}) == ":0\r\n");
}

TEST_CASE("tracking: BCAST prefixes hear of every key under them, once per broadcast, sorted") {
  BlockingServer s;
  FakeSession& b = s.client();
  b.protocol = 3;
  REQUIRE(s.run_as(b, {"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:", "PREFIX", "cart:"}) == "+OK\r\n");
  CHECK(s.state.data.tracking.total_prefixes() == 2);
  s.run({"MSET", "user:2", "x", "other", "y", "user:1", "z", "cart:9", "w"});
  s.run({"SET", "user:2", "again"});
  CHECK(b.delivered.empty());  // nothing before the loop's broadcast
  s.state.data.tracking.broadcast();
  CHECK(b.delivered == std::vector<std::string>{">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\ncart:9\r\n",
                                                ">2\r\n$10\r\ninvalidate\r\n*2\r\n$6\r\nuser:1\r\n$6\r\nuser:2\r\n"});
  s.state.data.tracking.broadcast();
  CHECK(b.delivered.size() == 2);
  // OFF drops its prefixes from the table.
  REQUIRE(s.run_as(b, {"CLIENT", "TRACKING", "off"}) == "+OK\r\n");
  CHECK(s.state.data.tracking.total_prefixes() == 0);
  CHECK(s.state.data.tracking.clients() == 0);
}

TEST_CASE("tracking: nothing is remembered for a client that does not track, nor with none tracking") {
  BlockingServer s;
  s.run({"GET", "k"});
  CHECK(s.state.data.tracking.total_keys() == 0);
  FakeSession& a = tracker(s);
  s.run({"GET", "k"});
  CHECK(s.state.data.tracking.total_keys() == 0);
  s.run_as(a, {"GET", "k"});
  CHECK(s.state.data.tracking.total_keys() == 1);
  // RESET turns tracking off; the key stays until it changes (as Redis).
  CHECK(s.run_as(a, {"RESET"}) == "+RESET\r\n");
  CHECK(s.state.data.tracking.clients() == 0);
  CHECK(s.state.data.tracking.total_keys() == 1);
  s.run({"SET", "k", "v"});
  CHECK(a.delivered.empty());
  CHECK(s.state.data.tracking.total_keys() == 0);
}

}  // namespace lawnkv::test

namespace lawnkv::test {

// A message may close its client (an output limit): here the first
// delivery of a broadcast closes both BCAST clients, as Connection::close
// does (tracking off, out of the registry), while the broadcast walks the
// prefixes those clients held.
TEST_CASE("tracking: clients closed by a broadcast's own messages leave the tables whole") {
  BlockingServer s;
  FakeSession& a = s.client();
  FakeSession& b = s.client();
  a.protocol = b.protocol = 3;
  REQUIRE(s.run_as(a, {"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a"}) == "+OK\r\n");
  REQUIRE(s.run_as(b, {"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "b", "PREFIX", "c"}) == "+OK\r\n");
  auto close_all = [&] {
    for (FakeSession* c : {&a, &b}) {
      s.state.data.tracking.disable(*c);
      s.state.clients.remove(*c);
    }
  };
  a.on_deliver = close_all;
  b.on_deliver = close_all;
  s.run({"MSET", "a1", "x", "b1", "y", "c1", "z"});
  s.state.data.tracking.broadcast();
  CHECK(a.delivered.size() + b.delivered.size() == 1);
  CHECK(s.state.data.tracking.total_prefixes() == 0);
  CHECK(s.state.data.tracking.clients() == 0);
  // Nothing is left to send.
  s.run({"SET", "b2", "w"});
  s.state.data.tracking.broadcast();
  CHECK(a.delivered.size() + b.delivered.size() == 1);
}

}  // namespace lawnkv::test

namespace lawnkv::test {

TEST_CASE("tracking: NOLOOP spares a blocked client the invalidation of its own write when it is served") {
  // As Redis's handleClientsBlockedOnKeys, the served client is the current
  // client while its command completes: BLMOVE's push into dst is its own
  // write. A client without NOLOOP is told, as before.
  for (bool noloop : {true, false}) {
    CAPTURE(noloop);
    BlockingServer s;
    FakeSession& a = s.client();
    a.protocol = 3;
    REQUIRE(s.run_as(a, noloop ? std::vector<std::string>{"CLIENT", "TRACKING", "on", "NOLOOP"}
                               : std::vector<std::string>{"CLIENT", "TRACKING", "on"}) == "+OK\r\n");
    s.run({"RPUSH", "dst", "old"});
    s.run_as(a, {"LRANGE", "dst", "0", "-1"});
    CHECK(s.run_as(a, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"}).empty());  // blocks
    s.run({"LPUSH", "src", "x"});
    s.serve();
    const std::string reply = "$1\r\nx\r\n";
    if (noloop) {
      CHECK(a.delivered == std::vector<std::string>{reply});
    } else {
      CHECK(a.delivered == std::vector<std::string>{push_of("dst"), reply});
    }
  }
}

}  // namespace lawnkv::test
