// The eviction picker (src/store/eviction.hpp): the worked example of its
// header, LFU's counters and decay, volatile policies skipping keys without
// a TTL, volatile-ttl's deadline order, and the policy names.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "store/keyspace.hpp"

namespace lawnkv::store {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

// The keys of db in the order the hand meets them (SCAN order from 0), or
// nothing when two share a bucket (the example wants one key a bucket).
std::vector<std::string> scan_order(Db& db) {
  std::vector<std::string> out;
  uint64_t cursor = 0;
  do {
    size_t in_bucket = 0;
    cursor = db.dict().scan(cursor, [&](Entry& e) {
      out.emplace_back(e.key());
      ++in_bucket;
    });
    if (in_bucket > 1) return {};
  } while (cursor != 0);
  return out;
}

// The keys at 0, counted the slow way.
size_t at_zero(Db& db) {
  size_t n = 0;
  db.dict().for_each([&](const Entry& e) { n += e.use() == 0; });
  return n;
}

std::string take(EvictionPicker& p, Keyspace& ks, Policy policy, std::mt19937_64& rng) {
  Evicted v = p.take(ks, policy, rng);
  return v.entry ? std::string(v.entry->key()) : std::string("(none)");
}

}  // namespace

TEST_CASE("eviction: the header's worked example (LRU, counters 1 0 1 1)") {
  Keyspace ks(1);
  Db& db = ks.db(0);
  std::vector<std::string> order;  // a b c d, as the hand meets them
  for (int attempt = 0; order.empty(); ++attempt) {
    REQUIRE(attempt < 1000);
    db.clear();
    for (int i = 0; i < 4; ++i) db.add_string("k" + std::to_string(attempt * 4 + i), "v");
    order = scan_order(db);
  }
  const uint8_t counters[] = {1, 0, 1, 1};
  for (size_t i = 0; i < order.size(); ++i) db.set_use(*db.peek(order[i]), counters[i]);
  EvictionPicker picker;
  std::mt19937_64 rng(1);
  CHECK(take(picker, ks, Policy::kAllkeysLru, rng) == order[1]);  // clears a, evicts b
  CHECK(db.peek(order[0])->use() == 0);
  CHECK(take(picker, ks, Policy::kAllkeysLru, rng) == order[0]);  // clears c, d; wraps to a
  CHECK(db.peek(order[2])->use() == 0);
  CHECK(db.peek(order[3])->use() == 0);
  CHECK(take(picker, ks, Policy::kAllkeysLru, rng) == order[2]);
  CHECK(take(picker, ks, Policy::kAllkeysLru, rng) == order[3]);
  CHECK(take(picker, ks, Policy::kAllkeysLru, rng) == "(none)");
}

TEST_CASE("eviction: Db counts the keys at 0 exactly, whatever adds, uses, moves or removes keys") {
  Keyspace ks(2);
  std::mt19937_64 rng(42);
  EvictionPicker picker;
  for (AccessMode mode : {AccessMode::kLfu, AccessMode::kLru, AccessMode::kNone}) {
    ks.use_counter().set_mode(mode);
    ks.use_counter().set_log_factor(1);
    int64_t now = kNow;
    for (int step = 0; step < 20'000; ++step) {
      Db& db = ks.db(static_cast<int>(rng() % 2));
      Db& other = ks.db(db.id() == 0 ? 1 : 0);
      const std::string key = "k" + std::to_string(rng() % 300);
      switch (rng() % 10) {
        case 0:
        case 1:
          if (!db.peek(key)) db.add_string(key, "v", rng() % 2);
          break;
        case 2:
        case 3: db.lookup(key, now); break;
        case 4:
          if (Entry* e = db.peek(key)) db.set_deadline(*e, now + static_cast<int64_t>(rng() % 50), 0);
          break;
        case 5: db.remove(key); break;
        case 6:
          if (db.peek(key) && !other.peek(key)) {
            EntryPtr moved = db.detach(key);
            other.attach(std::move(moved), -1);
          }
          break;
        case 7:
          if (Entry* e = db.peek(key)) db.set_string(*e, std::string(rng() % 40, 'x'));
          break;
        case 8: {
          const Policy p = rng() % 2 ? Policy::kAllkeysLfu : Policy::kAllkeysLru;
          picker.take(ks, p, rng);
          break;
        }
        default:
          now += 10;
          ks.reap(now, 5);
          if (rng() % 500 == 0) db.clear();
          break;
      }
      REQUIRE(ks.db(0).probation() == at_zero(ks.db(0)));
      REQUIRE(ks.db(1).probation() == at_zero(ks.db(1)));
    }
  }
}

TEST_CASE("eviction: an access under LRU protects a key for one pass; new keys start at 0") {
  Keyspace ks(1);
  ks.use_counter().set_mode(AccessMode::kLru);
  Db& db = ks.db(0);
  db.add_string("new", "v");
  CHECK(db.peek("new")->use() == 0);
  REQUIRE(db.lookup("new", kNow) != nullptr);
  CHECK(db.peek("new")->use() == 1);
  REQUIRE(db.lookup_untouched("new", kNow) != nullptr);  // OBJECT's lookup counts no use
  db.set_use(*db.peek("new"), 0);
  REQUIRE(db.lookup_untouched("new", kNow) != nullptr);
  CHECK(db.peek("new")->use() == 0);
}

TEST_CASE("eviction: LFU counters climb logarithmically to 7 and the hand decays them") {
  Keyspace ks(1);
  UseCounter& use = ks.use_counter();
  use.set_mode(AccessMode::kLfu);
  use.set_log_factor(10);
  Db& db = ks.db(0);
  db.add_string("k", "v");
  REQUIRE(db.lookup("k", kNow) != nullptr);
  CHECK(db.peek("k")->use() == 1);  // 0 -> 1 always
  int accesses = 1;
  while (db.peek("k")->use() < 3) {
    db.lookup("k", kNow);
    ++accesses;
  }
  // 1 -> 2 takes 11 accesses on average, 2 -> 3 takes 21.
  CHECK(accesses > 5);
  CHECK(accesses < 200);
  for (int i = 0; i < 100'000; ++i) db.lookup("k", kNow);
  CHECK(db.peek("k")->use() == Entry::kMaxUse);
  use.set_log_factor(0);  // every access counts
  db.add_string("fast", "v");
  for (int i = 0; i < 3; ++i) db.lookup("fast", kNow);
  CHECK(db.peek("fast")->use() == 3);
  // A lone key at 7 is lowered to 0 by the hand, and then evicted.
  EvictionPicker picker;
  std::mt19937_64 rng(7);
  REQUIRE(db.remove("fast"));
  CHECK(take(picker, ks, Policy::kAllkeysLfu, rng) == "k");
}

TEST_CASE("eviction: volatile policies take only keys with a TTL; none left, none taken") {
  for (Policy p : {Policy::kVolatileLru, Policy::kVolatileLfu, Policy::kVolatileRandom, Policy::kVolatileTtl}) {
    CAPTURE(static_cast<int>(p));
    Keyspace ks(2);
    for (int i = 0; i < 100; ++i) ks.db(0).add_string("plain" + std::to_string(i), "v");
    for (int i = 0; i < 10; ++i) {
      Entry& e = ks.db(1).add_string("ttl" + std::to_string(i), "v", true);
      ks.db(1).set_deadline(e, kNow + 1000 + i, 0);
    }
    EvictionPicker picker;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 10; ++i) CHECK(take(picker, ks, p, rng).rfind("ttl", 0) == 0);
    CHECK(take(picker, ks, p, rng) == "(none)");
    CHECK(ks.db(0).size() == 100);
    CHECK(ks.db(1).expires() == 0);
  }
}

TEST_CASE("eviction: volatile-ttl takes keys in exact deadline order, whatever the TTLs") {
  Keyspace ks(1);
  Db& db = ks.db(0);
  std::mt19937_64 rng(11);
  std::map<int64_t, std::string> by_deadline;
  for (int i = 0; i < 5000; ++i) {
    const std::string key = "k" + std::to_string(i);
    // Hot TTLs (Lawn queues) and rare absolute deadlines mixed.
    int64_t ttl = i % 3 == 0 ? 60'000 : static_cast<int64_t>(rng() % 10'000'000) + 1;
    while (by_deadline.count(kNow + ttl + i)) ++ttl;  // deadlines distinct
    const int64_t deadline = kNow + ttl + i;
    Entry& e = db.add_string(key, "v", true);
    db.set_deadline(e, deadline, i % 3 == 0 ? ttl : 0);
    by_deadline[deadline] = key;
  }
  EvictionPicker picker;
  for (const auto& entry : by_deadline) {
    CAPTURE(entry.first);  // the deadline
    REQUIRE(take(picker, ks, Policy::kVolatileTtl, rng) == entry.second);
  }
  CHECK(db.size() == 0);
  CHECK(db.avg_ttl(kNow) == 0);  // the deadline sum went down with each key
}

TEST_CASE("eviction: policy names, any case") {
  CHECK(parse_policy("allkeys-lru") == Policy::kAllkeysLru);
  CHECK(parse_policy("ALLKEYS-LFU") == Policy::kAllkeysLfu);
  CHECK(parse_policy("volatile-TTL") == Policy::kVolatileTtl);
  CHECK(parse_policy("noeviction") == Policy::kNoEviction);
  CHECK_FALSE(parse_policy("lru").has_value());
  CHECK(access_mode(Policy::kVolatileLru) == AccessMode::kLru);
  CHECK(access_mode(Policy::kAllkeysLfu) == AccessMode::kLfu);
  CHECK(access_mode(Policy::kVolatileTtl) == AccessMode::kNone);
}

}  // namespace lawnkv::store
