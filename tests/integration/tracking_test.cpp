// Client-side caching in the running server: a tracked key that expires is
// invalidated when it expires, by the active expiry cycle, with no client
// touching it (Redis tells a tracking client only when its sampler or an
// access happens to delete the key). Time is driven with DEBUG ADVANCE-TIME,
// never by sleeping; the tracking client only reads what arrives. A test
// that looks at a key at its deadline stops the server's clock
// first (DEBUG FREEZE-TIME): the real time its round trips take moves
// nothing, however slow the machine.
#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::escape_bytes;
using test::RawClient;
using test::ServerProcess;

std::string push_of(std::string_view key) {
  return ">2\r\n$10\r\ninvalidate\r\n*1\r\n$" + std::to_string(key.size()) + "\r\n" + std::string(key) + "\r\n";
}

// A RESP3 client tracking keys in the default mode.
RawClient tracker(uint16_t port) {
  RawClient c(port);
  c.call({"HELLO", "3"});
  REQUIRE(c.call({"CLIENT", "TRACKING", "on"}) == "+OK\r\n");
  return c;
}

// What c has received unasked: frames until PING's reply.
std::vector<std::string> received(RawClient& c) {
  c.send("*2\r\n$4\r\nPING\r\n$6\r\n__sync\r\n");
  std::vector<std::string> frames;
  for (std::string f; (f = c.read_reply()) != "$6\r\n__sync\r\n";) frames.push_back(f);
  return frames;
}

void advance(RawClient& c, long long ms) {
  REQUIRE(c.call({"DEBUG", "ADVANCE-TIME", std::to_string(ms)}) == "+OK\r\n");
}

TEST_CASE("a tracked key is invalidated by the expiry cycle when its deadline passes") {
  auto server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  RawClient t = tracker(server.port());
  REQUIRE(admin.call({"DEBUG", "FREEZE-TIME", "1"}) == "+OK\r\n");
  REQUIRE(admin.call({"SET", "k", "v", "PX", "100000"}) == "+OK\r\n");
  REQUIRE(admin.call({"SET", "other", "v", "PX", "100000"}) == "+OK\r\n");
  REQUIRE(t.call({"GET", "k"}) == "$1\r\nv\r\n");

  // At the deadline (now == deadline, the clock stopped) the key still
  // exists: nothing arrives.
  advance(admin, 100'000);
  CHECK(received(t).empty());
  CHECK(admin.call({"EXISTS", "k"}) == ":1\r\n");
  CHECK(received(t).empty());

  // Past it: the cycle deletes the key and the push comes unasked (the
  // tracking client sends nothing: read_reply waits for it).
  REQUIRE(admin.call({"DEBUG", "SET-ACTIVE-EXPIRE", "1"}) == "+OK\r\n");
  advance(admin, 1);
  t.set_timeout(5s);
  CHECK(escape_bytes(t.read_reply()) == escape_bytes(push_of("k")));
  // Only k: other was never read by this client.
  CHECK(received(t).empty());
  CHECK(admin.call({"EXISTS", "k", "other"}) == ":0\r\n");
}

TEST_CASE("every tracked key of a mass expiry is invalidated, once, by the cycle alone") {
  auto server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  RawClient t = tracker(server.port());
  constexpr int kKeys = 2000;
  std::string batch;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key:" + std::to_string(i);
    // Two TTLs: a Lawn queue's and the wheel's keys alike.
    REQUIRE(admin.call({"SET", key, "v", "PX", i % 2 ? "50000" : std::to_string(50'000 + i)}) == "+OK\r\n");
    REQUIRE(t.call({"GET", key}) == "$1\r\nv\r\n");
  }
  std::string info = admin.call({"INFO", "stats"});
  CHECK(info.find("tracking_total_keys:" + std::to_string(kKeys) + "\r\n") != std::string::npos);

  advance(admin, 60'000);
  t.set_timeout(5s);
  std::set<std::string> told;
  for (int i = 0; i < kKeys; ++i) {
    const std::string frame = t.read_reply();
    REQUIRE_MESSAGE(frame.starts_with(">2\r\n$10\r\ninvalidate\r\n*1\r\n"), escape_bytes(frame));
    told.insert(frame);
  }
  CHECK(told.size() == static_cast<size_t>(kKeys));
  CHECK(received(t).empty());
  info = admin.call({"INFO", "stats"});
  CHECK(info.find("tracking_total_keys:0\r\n") != std::string::npos);
  CHECK(info.find("tracking_total_items:0\r\n") != std::string::npos);
}

TEST_CASE("an expiring hash field invalidates its hash") {
  auto server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  RawClient t = tracker(server.port());
  REQUIRE(admin.call({"HSET", "h", "f", "v", "g", "w"}) == ":2\r\n");
  REQUIRE(admin.call({"HPEXPIRE", "h", "100000", "FIELDS", "1", "f"}) == "*1\r\n:1\r\n");
  REQUIRE(t.call({"HGET", "h", "f"}) == "$1\r\nv\r\n");
  REQUIRE(admin.call({"DEBUG", "SET-ACTIVE-EXPIRE", "1"}) == "+OK\r\n");
  advance(admin, 100'001);
  t.set_timeout(5s);
  CHECK(escape_bytes(t.read_reply()) == escape_bytes(push_of("h")));
  CHECK(admin.call({"HLEN", "h"}) == ":1\r\n");
}

TEST_CASE("tracking-table-max-keys drops keys over the bound, telling their clients") {
  auto server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  RawClient t = tracker(server.port());
  REQUIRE(admin.call({"CONFIG", "SET", "tracking-table-max-keys", "10"}) == "+OK\r\n");
  for (int i = 0; i < 15; ++i) {
    const std::string key = "k" + std::to_string(100 + i);
    t.send(test::encode_command({"GET", key}));
  }
  // Before each command the table is brought back under the bound: the
  // keys dropped are told to t as if they had changed, before the reply.
  auto count = [](const std::vector<std::string>& frames, std::string_view start) {
    size_t n = 0;
    for (const std::string& f : frames) n += f.starts_with(start);
    return n;
  };
  std::vector<std::string> frames = received(t);
  CHECK(count(frames, "_\r\n") == 15);
  // Before GETs 12 to 15 and the PING of received(): 11 keys each time.
  CHECK(count(frames, ">2\r\n$10\r\ninvalidate\r\n") == 5);
  std::string info = admin.call({"INFO", "stats"});
  CHECK(info.find("tracking_total_keys:10\r\n") != std::string::npos);
  CHECK(received(t).empty());
  CHECK(admin.call({"CONFIG", "SET", "tracking-table-max-keys", "0"}) == "+OK\r\n");
  for (int i = 0; i < 50; ++i) t.call({"GET", "n" + std::to_string(i)});
  info = admin.call({"INFO", "stats"});
  CHECK(info.find("tracking_total_keys:60\r\n") != std::string::npos);
  CHECK(admin.call({"INFO", "clients"}).find("tracking_clients:1\r\n") != std::string::npos);
}

TEST_CASE("a tracking client that goes away leaves no prefix and no count behind") {
  auto server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  {
    RawClient b(server.port());
    b.call({"HELLO", "3"});
    REQUIRE(b.call({"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "PREFIX", "b"}) == "+OK\r\n");
    std::string info = admin.call({"INFO"});
    CHECK(info.find("tracking_clients:1\r\n") != std::string::npos);
    CHECK(info.find("tracking_total_prefixes:2\r\n") != std::string::npos);
  }
  // The close reaches the server some time after: poll INFO.
  CHECK(test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
    const std::string info = admin.call({"INFO"});
    return info.find("tracking_clients:0\r\n") != std::string::npos &&
           info.find("tracking_total_prefixes:0\r\n") != std::string::npos;
  }));
  // Writes under the old prefixes find nobody to tell.
  CHECK(admin.call({"SET", "a1", "x"}) == "+OK\r\n");
  CHECK(admin.call({"PING"}) == "+PONG\r\n");
}

}  // namespace
}  // namespace lawnkv::itest
