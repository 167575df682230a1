// OBJECT IDLETIME through the dispatcher: the idle class of a key
// (store/idle_class.hpp) rises over the aging passes while nothing uses the
// key, and goes back to 0 on the accesses that update Redis 7.0's LRU
// clock: not on the lookups Redis makes with LOOKUP_NOTOUCH (OBJECT, TYPE,
// EXISTS, TTL and its kin, SCAN's TYPE filter), nor on DEBUG OBJECT. The
// passes run as the server's loop runs them, on the test's clock.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

std::string integer(long long v) { return ":" + std::to_string(v) + "\r\n"; }

struct Server : test::CommandServer {
  Server() { state.config.mutable_values().enable_debug_command = "yes"; }
  // Moves the clock 60 s on and runs the pass that comes due, to its end.
  void pass() {
    now += store::kPassPeriodMs;
    while (state.data.aging.step(state.data.keyspace, now)) {
    }
  }
  std::string idletime(const std::string& key) { return run({"object", "idletime", key}); }
};

TEST_CASE("OBJECT IDLETIME: 0 for a new key, then the floor of its class as passes go by") {
  Server s;
  CHECK(s.run({"set", "k", "v"}) == "+OK\r\n");
  CHECK(s.idletime("k") == integer(0));
  // Pass F raises class ctz(F): 1, 2, -, 3, -, -, -, 4, ... 8 passes: class 4.
  const long long expected[] = {0, 60, 60, 180, 180, 180, 180, 420};
  for (long long want : expected) {
    s.pass();
    CHECK(s.idletime("k") == integer(want));
  }
  CHECK(s.state.data.aging.pass() == 8);
  // DEBUG OBJECT reports the same.
  CHECK(s.run({"debug", "object", "k"}).find(" lru_seconds_idle:420\r\n") != std::string::npos);
  // An access: back to 0.
  CHECK(s.run({"get", "k"}) == "$1\r\nv\r\n");
  CHECK(s.idletime("k") == integer(0));
  CHECK(s.run({"debug", "object", "k"}).find(" lru_seconds_idle:0\r\n") != std::string::npos);
}

// Four passes age a key to 180 s; then cmd runs; reset says whether the key
// is back at 0 (Redis updates its LRU clock) or still at 180.
struct Case {
  std::vector<std::string> cmd;
  bool reset;
};

TEST_CASE("OBJECT IDLETIME: which commands count an access, as Redis 7.0's lookups do") {
  const Case cases[] = {
      {{"get", "k"}, true},
      {{"strlen", "k"}, true},
      {{"touch", "k"}, true},
      {{"set", "k", "w"}, true},
      {{"append", "k", "w"}, true},
      {{"expire", "k", "100"}, true},
      {{"dump", "k"}, true},
      {{"copy", "k", "k2"}, true},
      {{"object", "encoding", "k"}, false},
      {{"object", "freq", "k"}, false},
      {{"object", "idletime", "k"}, false},
      {{"type", "k"}, false},
      {{"exists", "k"}, false},
      {{"ttl", "k"}, false},
      {{"pttl", "k"}, false},
      {{"expiretime", "k"}, false},
      {{"pexpiretime", "k"}, false},
      {{"scan", "0", "type", "string"}, false},
      {{"scan", "0"}, false},
      {{"keys", "*"}, false},
      {{"randomkey"}, false},
      {{"dbsize"}, false},
      {{"debug", "object", "k"}, false},
      {{"get", "other"}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.cmd[0]);
    Server s;
    s.run({"set", "k", "v"});
    for (int i = 0; i < 4; ++i) s.pass();
    REQUIRE(s.idletime("k") == integer(180));
    s.run(c.cmd);
    CHECK(s.idletime("k") == integer(c.reset ? 0 : 180));
  }
}

TEST_CASE("OBJECT IDLETIME: RENAME and MOVE carry the key, COPY's copy is new, SET is a new value") {
  Server s;
  s.run({"set", "k", "v"});
  s.run({"set", "other", "v"});
  for (int i = 0; i < 4; ++i) s.pass();
  // RENAME counts an access of its source (Redis's lookupKeyWrite).
  s.run({"rename", "k", "r"});
  CHECK(s.idletime("r") == integer(0));
  // The untouched key kept its class.
  CHECK(s.idletime("other") == integer(180));
}

TEST_CASE("OBJECT IDLETIME and FREQ: each answers under its own policies only (Redis's errors)") {
  Server s;
  s.run({"set", "k", "v"});
  CHECK(s.run({"object", "freq", "k"}).starts_with("-ERR An LFU maxmemory policy is not selected"));
  CHECK(s.run({"config", "set", "maxmemory-policy", "allkeys-lfu"}) == "+OK\r\n");
  CHECK(s.idletime("k") ==
        "-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between "
        "policies at runtime LRU and LFU data will take some time to adjust.\r\n");
  // Still aged meanwhile: back under LRU the class is there.
  for (int i = 0; i < 4; ++i) s.pass();
  CHECK(s.run({"config", "set", "maxmemory-policy", "allkeys-lru"}) == "+OK\r\n");
  CHECK(s.idletime("k") == integer(180));
  CHECK(s.idletime("nosuch") == "$-1\r\n");
}

TEST_CASE("RESTORE ... IDLETIME: the class that stands for that many seconds, never more") {
  Server s;
  s.run({"set", "k", "v"});
  const std::string payload = s.run({"dump", "k"});
  const std::string bytes = payload.substr(payload.find("\r\n") + 2, payload.size() - payload.find("\r\n") - 4);
  // Pass 1 is due at once (the first), pass 32 raises class 5 31 passes
  // after it: 1,000 s idle can be class 5 (900 s).
  CHECK(s.run({"restore", "r", "0", bytes, "idletime", "1000"}) == "+OK\r\n");
  CHECK(s.idletime("r") == integer(900));
  CHECK(s.run({"restore", "r2", "0", bytes, "idletime", "30"}) == "+OK\r\n");
  CHECK(s.idletime("r2") == integer(0));
  CHECK(s.run({"restore", "r3", "0", bytes, "idletime", "100000000"}) == "+OK\r\n");
  CHECK(s.idletime("r3") == integer(982980));
  // Under an LFU policy IDLETIME is ignored, as Redis.
  s.run({"config", "set", "maxmemory-policy", "allkeys-lfu"});
  CHECK(s.run({"restore", "r4", "0", bytes, "idletime", "1000"}) == "+OK\r\n");
  s.run({"config", "set", "maxmemory-policy", "noeviction"});
  CHECK(s.idletime("r4") == integer(0));
}

}  // namespace
}  // namespace lawnkv
