// store::ReapLimit: a reap call given a stop time stops once its clock reads
// it (looked at every ReapLimit::kKeysPerClockRead keys), and what it left due
// is reaped by the next call in deadline order, Lawn queues (keys with the
// same relative TTL) and the wheel (absolute deadlines) alike; the same for
// hash fields, which ride the keys' index. The clock is injected: each read
// moves it 100 ns.

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "command_fixture.hpp"
#include "store/keyspace.hpp"
#include "store/reap_limit.hpp"

namespace lawnkv::test {
namespace {

struct StepClock final : store::ReapClock {
  mutable int64_t ns = 0;
  mutable int reads = 0;
  int64_t now_ns() const override {
    ++reads;
    return ns += 100;
  }
};

struct NameLog final : store::ExpiryListener {
  std::vector<std::string> names;
  void key_expired(int, std::string_view key) override { names.emplace_back(key); }
};

std::string key_name(int i) { return "k" + std::to_string(100 + i); }  // sorts as it numbers

}  // namespace

TEST_CASE("ReapLimit: a chunk stops at its stop time; the next one goes on in deadline order") {
  store::Keyspace ks(1);
  NameLog names;
  ks.set_listener(&names);
  store::Db& db = ks.db(0);
  // Key i is due at 1000 + i. Even keys were given TTL 5000 at 1000 + i -
  // 5000 (the TTL turns hot: a Lawn queue), odd keys an absolute deadline
  // (the wheel): the two tiers interleave. Every third value is long (on
  // the heap: the reaper batches those keys to prefetch their values).
  constexpr int kKeys = 100;
  for (int i = 0; i < kKeys; ++i) {
    store::Entry& e = db.add_string(key_name(i), i % 3 == 0 ? std::string(300, 'x') : "v", true);
    db.set_deadline(e, 1'000 + i, i % 2 == 0 ? 5'000 : 0);
  }
  REQUIRE(ks.total_expires() == kKeys);

  // Stop time 1000 ns: the 10th read of the clock reads it, after 40 keys.
  StepClock clock;
  const store::ReapLimit limit{128, &clock, 1'000};
  CHECK(ks.reap(2'000, limit) == 10 * store::ReapLimit::kKeysPerClockRead);
  CHECK(clock.reads == 10);
  CHECK(ks.total_keys() == kKeys - 40);
  // The 40 earliest went, in order.
  REQUIRE(names.names.size() == 40);
  for (int i = 0; i < 40; ++i) CHECK(names.names[i] == key_name(i));

  // A clock already past the stop time: the next call still reaps one look's
  // worth (a cycle always makes progress), the next keys in order.
  CHECK(ks.reap(2'000, limit) == store::ReapLimit::kKeysPerClockRead);
  // No stop time: the rest, in order.
  CHECK(ks.reap(2'000, 128) == kKeys - 40 - store::ReapLimit::kKeysPerClockRead);
  REQUIRE(names.names.size() == kKeys);
  for (int i = 0; i < kKeys; ++i) CHECK(names.names[i] == key_name(i));
  CHECK(ks.total_keys() == 0);
}

TEST_CASE("ReapLimit: hash fields stop at the stop time too, and the earliest go first") {
  CommandServer s;
  store::Keyspace& ks = s.state.data.keyspace;
  constexpr int kFields = 64;
  for (int i = 0; i < kFields; ++i) {
    const std::string f = key_name(i);
    REQUIRE(s.run({"hset", "h", f, "v"}) == ":1\r\n");
    REQUIRE(s.run({"hpexpireat", "h", std::to_string(kT0 + 10 + i), "FIELDS", "1", f}) == "*1\r\n:1\r\n");
  }
  StepClock clock;
  const store::ReapLimit limit{128, &clock, 500};  // the 5th read: 20 fields
  CHECK(ks.reap(kT0 + 1'000, limit) == 5 * store::ReapLimit::kKeysPerClockRead);
  CHECK(s.run({"hlen", "h"}) == ":44\r\n");
  // What is left is the 44 latest.
  for (int i = 0; i < kFields; ++i) {
    INFO("field ", key_name(i));
    CHECK(s.run({"hexists", "h", key_name(i)}) == (i < 20 ? ":0\r\n" : ":1\r\n"));
  }
  CHECK(ks.reap(kT0 + 1'000, 128) == 44);
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
}

}  // namespace lawnkv::test
