// maxmemory and the eight eviction policies against the built server: the
// limit holds while keys are added well past it, volatile-* policies take
// only keys with a TTL, noeviction refuses with Redis's OOM error (inside
// MULTI too), `evicted` events, volatile-ttl's exact deadline order, LRU
// keeping keys in use, LFU resisting a scan, and a large overshoot evicted
// in slices while other clients are served.

#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::RawClient;
using test::ServerProcess;

const std::string kOom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";
const std::string kValue(100, 'v');

long long used_memory(Client& c) { return info_int(c.call({"INFO", "memory"}).text, "used_memory"); }
long long evicted(Client& c) { return info_int(c.call({"INFO", "stats"}).text, "evicted_keys"); }

// Pipelines SET <prefix><i> kValue [extra...] for i in [from, to), reading
// every reply; returns the replies that were not +OK.
std::vector<std::string> fill(RawClient& r, const std::string& prefix, int from, int to,
                              const std::vector<std::string>& extra = {}) {
  std::vector<std::string> failures;
  constexpr int kBatch = 1000;
  for (int start = from; start < to; start += kBatch) {
    const int end = std::min(to, start + kBatch);
    std::string bytes;
    for (int i = start; i < end; ++i) {
      std::vector<std::string> argv{"SET", prefix + std::to_string(i), kValue};
      argv.insert(argv.end(), extra.begin(), extra.end());
      bytes += encode_command(argv);
    }
    r.send(bytes);
    for (int i = start; i < end; ++i) {
      std::string reply = r.read_reply();
      if (reply != "+OK\r\n") failures.push_back(std::move(reply));
    }
  }
  return failures;
}

// A server with maxmemory set `room` bytes above what it uses at start.
struct Bounded {
  ServerProcess server;
  Client c;
  long long limit = 0;

  Bounded(const std::string& policy, long long room, std::vector<std::string> extra = {})
      : server(ServerProcess::lawnkv([&] {
          extra.insert(extra.end(), {"--maxmemory-policy", policy});
          return extra;
        }())),
        c(server.port()) {
    limit = used_memory(c) + room;
    REQUIRE(c.wire({"CONFIG", "SET", "maxmemory", std::to_string(limit)}) == "+OK\r\n");
  }
};

TEST_CASE("eviction: every evicting policy keeps used_memory at maxmemory while keys pour in") {
  for (const char* policy : {"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu",
                             "volatile-random", "volatile-ttl"}) {
    CAPTURE(policy);
    Bounded b(policy, 4 << 20);
    RawClient r(b.server.port());
    // About 25 MB of keys, all with a TTL so that volatile-* may take them.
    CHECK(fill(r, "k", 0, 200'000, {"EX", "1000"}).empty());
    const long long used = used_memory(b.c);
    CHECK(used <= b.limit + (256 << 10));
    // The keys left and the keys evicted from one INFO: any command may
    // evict before it runs (the first run of a command allocates its
    // latency histogram), so two commands would count at different times.
    const std::string info = b.c.call({"INFO", "stats", "keyspace"}).text;
    const long long gone = info_int(info, "evicted_keys");
    CHECK(gone > 100'000);
    const long long keys = info_sub(info, "db0", "keys").value_or(0);
    CHECK(keys > 20'000);
    CHECK(keys + gone == 200'000);
  }
}

TEST_CASE("eviction: volatile-* policies take only keys with a TTL, then refuse") {
  for (const char* policy : {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}) {
    CAPTURE(policy);
    Bounded b(policy, 4 << 20);
    RawClient r(b.server.port());
    REQUIRE(fill(r, "keep", 0, 10'000).empty());
    CHECK(fill(r, "ttl", 0, 100'000, {"EX", "1000"}).empty());
    CHECK(evicted(b.c) > 0);
    // Every key without a TTL is still there.
    r.send(encode_command({"EXISTS", "keep0", "keep4999", "keep9999"}));
    CHECK(r.read_reply() == ":3\r\n");
    // From one INFO: the second of two may evict a key with a TTL first.
    const std::string keyspace = b.c.call({"INFO", "keyspace"}).text;
    CHECK(info_sub(keyspace, "db0", "keys").value() - info_sub(keyspace, "db0", "expires").value() == 10'000);
    // Keys without a TTL alone past the limit: nothing can go, writes are refused.
    const std::vector<std::string> refused = fill(r, "more", 0, 100'000);
    REQUIRE_FALSE(refused.empty());
    CHECK(refused.front() == kOom);
    CHECK(b.c.wire({"GET", "keep0"}) == "$100\r\n" + kValue + "\r\n");  // reads still served
  }
}

TEST_CASE("eviction: noeviction refuses writes with Redis's error and evicts nothing") {
  Bounded b("noeviction", 2 << 20);
  RawClient r(b.server.port());
  const std::vector<std::string> refused = fill(r, "k", 0, 50'000);
  REQUIRE_FALSE(refused.empty());
  CHECK(refused.front() == kOom);
  CHECK(evicted(b.c) == 0);
  CHECK(b.c.integer({"DBSIZE"}) + static_cast<long long>(refused.size()) == 50'000);
  // Commands without denyoom still run; DEL frees room again.
  CHECK(b.c.wire({"GET", "k0"}) == "$100\r\n" + kValue + "\r\n");
  CHECK(b.c.wire({"SET", "x", "y"}) == kOom);
  std::vector<std::string> del{"DEL"};
  for (int i = 0; i < 2000; ++i) del.push_back("k" + std::to_string(i));
  CHECK(b.c.call(del) == integer(2000));
  CHECK(b.c.wire({"SET", "x", "y"}) == "+OK\r\n");
  CHECK(info_int(b.c.call({"INFO", "stats"}).text, "current_eviction_exceeded_time") >= 0);
}

TEST_CASE("eviction: under OOM, MULTI refuses to queue and EXEC aborts") {
  Bounded b("noeviction", 2 << 20);
  RawClient r(b.server.port());
  REQUIRE_FALSE(fill(r, "k", 0, 50'000).empty());
  RawClient t(b.server.port());
  CHECK(t.call({"MULTI"}) == "+OK\r\n");
  CHECK(t.call({"SET", "a", "b"}) == kOom);
  CHECK(t.call({"GET", "k0"}) == kOom);  // inside MULTI the queue itself would grow
  CHECK(t.call({"EXEC"}) == "-EXECABORT Transaction discarded because of previous errors.\r\n");
  // A queue holding a denyoom command, EXEC'd once memory is over the limit.
  CHECK(b.c.wire({"CONFIG", "SET", "maxmemory", "0"}) == "+OK\r\n");
  CHECK(t.call({"MULTI"}) == "+OK\r\n");
  CHECK(t.call({"SET", "a", "b"}) == "+QUEUED\r\n");
  CHECK(b.c.wire({"CONFIG", "SET", "maxmemory", std::to_string(b.limit)}) == "+OK\r\n");
  CHECK(t.call({"EXEC"}) ==
        "-EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'.\r\n");
  CHECK(t.call({"DISCARD"}) == "-ERR DISCARD without MULTI\r\n");
  // A queue of reads only runs.
  CHECK(t.call({"MULTI"}) == "+OK\r\n");
  CHECK(b.c.wire({"CONFIG", "SET", "maxmemory", "0"}) == "+OK\r\n");
  CHECK(t.call({"GET", "nosuch"}) == "+QUEUED\r\n");
  CHECK(b.c.wire({"CONFIG", "SET", "maxmemory", std::to_string(b.limit)}) == "+OK\r\n");
  CHECK(t.call({"EXEC"}) == "*1\r\n$-1\r\n");
}

TEST_CASE("eviction: each evicted key is published as `evicted` and dirties WATCH") {
  Bounded b("allkeys-random", 2 << 20, {"--notify-keyspace-events", "Ee"});
  RawClient sub(b.server.port());
  REQUIRE(sub.call({"SUBSCRIBE", "__keyevent@0__:evicted"}).find("subscribe") != std::string::npos);
  RawClient w(b.server.port());
  REQUIRE(w.call({"SET", "watched", "v"}) == "+OK\r\n");
  REQUIRE(w.call({"WATCH", "watched"}) == "+OK\r\n");
  RawClient r(b.server.port());
  REQUIRE(fill(r, "k", 0, 60'000).empty());
  const long long n = evicted(b.c);
  REQUIRE(n > 0);
  std::set<std::string> names;
  for (long long i = 0; i < n; ++i) {
    const Reply m = test::parse_reply(sub.read_reply());
    REQUIRE(m.elements.size() == 3);
    CHECK(m.elements[1].text == "__keyevent@0__:evicted");
    names.insert(m.elements[2].text);
  }
  CHECK(static_cast<long long>(names.size()) == n);
  for (const std::string& k : names) CHECK(b.c.integer({"EXISTS", k}) == 0);
  // The watched key went with the others or not; if it went, EXEC aborts.
  const bool gone = names.count("watched") == 1;
  REQUIRE(w.call({"MULTI"}) == "+OK\r\n");
  REQUIRE(w.call({"PING"}) == "+QUEUED\r\n");
  CHECK(w.call({"EXEC"}) == (gone ? "*-1\r\n" : "*1\r\n+PONG\r\n"));
}

TEST_CASE("eviction: volatile-ttl evicts in exact deadline order") {
  Bounded b("volatile-ttl", 2 << 20, {"--notify-keyspace-events", "Ee"});
  RawClient sub(b.server.port());
  REQUIRE(sub.call({"SUBSCRIBE", "__keyevent@0__:evicted"}).find("subscribe") != std::string::npos);
  RawClient r(b.server.port());
  // Distinct absolute deadlines in an order unrelated to the names: key i
  // dies (i * 7919 mod 40000) seconds after a fixed moment far ahead. PXAT,
  // not EX: a relative TTL would give later SETs later deadlines, and how
  // much later depends on the machine's speed.
  constexpr int kKeys = 40'000;
  constexpr long long kBaseMs = 4'102'444'800'000;  // 2100-01-01
  std::string bytes;
  auto ttl_of = [](int i) { return kBaseMs + static_cast<long long>(i) * 7919 % kKeys * 1000; };
  for (int i = 0; i < kKeys; ++i)
    bytes += encode_command({"SET", "k" + std::to_string(i), kValue, "PXAT", std::to_string(ttl_of(i))});
  r.send(bytes);
  for (int i = 0; i < kKeys; ++i) REQUIRE(r.read_reply() == "+OK\r\n");
  const long long n = evicted(b.c);
  REQUIRE(n > 1000);
  long long latest_evicted = 0;
  std::set<std::string> gone;
  for (long long i = 0; i < n; ++i) {
    const std::string key = test::parse_reply(sub.read_reply()).elements.at(2).text;
    gone.insert(key);
    latest_evicted = std::max(latest_evicted, ttl_of(std::stoi(key.substr(1))));
  }
  long long earliest_kept = 1LL << 62;
  for (int i = 0; i < kKeys; ++i)
    if (!gone.count("k" + std::to_string(i))) earliest_kept = std::min(earliest_kept, ttl_of(i));
  // Every survivor's deadline is after every evicted key's.
  CHECK(earliest_kept > latest_evicted);
}

TEST_CASE("eviction: allkeys-lru keeps the keys in use") {
  Bounded b("allkeys-lru", 4 << 20);
  RawClient r(b.server.port());
  REQUIRE(fill(r, "hot", 0, 1000).empty());
  for (int round = 0; round < 20; ++round) {
    REQUIRE(fill(r, "cold" + std::to_string(round) + ":", 0, 5000).empty());
    std::string gets;
    for (int i = 0; i < 1000; ++i) gets += encode_command({"GET", "hot" + std::to_string(i)});
    r.send(gets);
    for (int i = 0; i < 1000; ++i) r.read_reply();
  }
  REQUIRE(evicted(b.c) > 50'000);
  int hot_left = 0;
  for (int i = 0; i < 1000; ++i) hot_left += static_cast<int>(b.c.integer({"EXISTS", "hot" + std::to_string(i)}));
  CHECK(hot_left == 1000);
}

TEST_CASE("eviction: allkeys-lfu keeps frequently read keys through a scan of new ones") {
  Bounded b("allkeys-lfu", 4 << 20);
  RawClient r(b.server.port());
  REQUIRE(fill(r, "hot", 0, 2000).empty());
  for (int pass = 0; pass < 50; ++pass) {
    std::string gets;
    for (int i = 0; i < 2000; ++i) gets += encode_command({"GET", "hot" + std::to_string(i)});
    r.send(gets);
    for (int i = 0; i < 2000; ++i) r.read_reply();
  }
  // A scan: 100,000 keys read once each (set once), far more than fit.
  REQUIRE(fill(r, "scan", 0, 100'000).empty());
  int hot_left = 0;
  for (int i = 0; i < 2000; ++i) hot_left += static_cast<int>(b.c.integer({"EXISTS", "hot" + std::to_string(i)}));
  CHECK(hot_left >= 1900);
  CHECK(b.c.wire({"OBJECT", "FREQ", "hot0"}).rfind(":", 0) == 0);
}

TEST_CASE("eviction: a large overshoot is evicted in slices while other clients are served") {
  // tenacity 0: one command evicts 16 keys at most, the rest goes on in the
  // event loop.
  ServerProcess server = ServerProcess::lawnkv({"--maxmemory-policy", "allkeys-random",
                                                "--maxmemory-eviction-tenacity", "0"});
  Client c(server.port());
  RawClient r(server.port());
  REQUIRE(fill(r, "k", 0, 200'000).empty());
  const long long before = used_memory(c);
  const long long limit = before / 4;
  REQUIRE(c.wire({"CONFIG", "SET", "maxmemory", std::to_string(limit)}) == "+OK\r\n");
  // The CONFIG SET returned after one slice: most keys are still there.
  const long long right_after = evicted(c);
  CHECK(right_after < 150'000);
  CHECK(c.wire({"PING"}) == "+PONG\r\n");
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 10s, [&] { return used_memory(c) <= limit; }));
  CHECK(evicted(c) > 100'000);
  CHECK(info_int(c.call({"INFO", "stats"}).text, "current_eviction_exceeded_time") == 0);
}

}  // namespace
}  // namespace lawnkv::itest
