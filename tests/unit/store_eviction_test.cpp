// The eviction picker (src/store/eviction.hpp): the worked example of its
// header, LFU's counters and decay, volatile policies skipping keys without
// a TTL, volatile-ttl's deadline order, and the policy names.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "store/eviction_picker.hpp"
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

// Keys named from prefix in db, as many as counters, one a bucket, with
// those counters in the order the hand meets them (returned).
std::vector<std::string> constructed(Db& db, const std::string& prefix, const std::vector<uint8_t>& counters) {
  std::vector<std::string> order;
  for (int attempt = 0; order.empty(); ++attempt) {
    REQUIRE(attempt < 100'000);
    db.clear();
    for (size_t i = 0; i < counters.size(); ++i)
      db.add_string(prefix + std::to_string(attempt * counters.size() + i), "v");
    order = scan_order(db);
  }
  for (size_t i = 0; i < order.size(); ++i) db.set_use(*db.peek(order[i]), counters[i]);
  return order;
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

TEST_CASE("eviction: the header's worked example (allkeys-lfu, counters 1 0 0 1, bounded probation)") {
  Keyspace ks(1);
  Db& db = ks.db(0);
  const std::vector<std::string> order = constructed(db, "k", {1, 0, 0, 1});  // a b c d
  REQUIRE(db.probation() == 2);
  EvictionPicker picker;
  std::mt19937_64 rng(1);
  CHECK(take(picker, ks, Policy::kAllkeysLfu, rng) == order[1]);  // 2 of 4 at 0: passes a, evicts b
  CHECK(db.peek(order[0])->use() == 1);
  CHECK(take(picker, ks, Policy::kAllkeysLfu, rng) == order[2]);  // 1 of 3
  CHECK(db.probation() == 0);
  // 0 of 2: lowers d; 1 of 2 is over a fifth, so a is passed.
  REQUIRE(take(picker, ks, Policy::kAllkeysLfu, rng) == order[3]);
  CHECK(db.peek(order[0])->use() == 1);
  CHECK(db.probation() == 0);
  // The same keys under volatile-lfu (every key with a TTL): the unbounded
  // rule, which clears a on its way and, on the third eviction, d, and
  // evicts a.
  Keyspace vks(1);
  Db& vdb = vks.db(0);
  std::vector<std::string> vorder;
  for (int attempt = 0; vorder.empty(); ++attempt) {
    REQUIRE(attempt < 100'000);
    vdb.clear();
    for (int i = 0; i < 4; ++i) {
      Entry& e = vdb.add_string("v" + std::to_string(attempt * 4 + i), "v", true);
      vdb.set_deadline(e, kNow + 1000, 0);
    }
    vorder = scan_order(vdb);
  }
  const uint8_t counters[] = {1, 0, 0, 1};
  for (size_t i = 0; i < vorder.size(); ++i) vdb.set_use(*vdb.peek(vorder[i]), counters[i]);
  EvictionPicker vpicker;
  CHECK(take(vpicker, vks, Policy::kVolatileLfu, rng) == vorder[1]);
  CHECK(vdb.peek(vorder[0])->use() == 0);
  CHECK(take(vpicker, vks, Policy::kVolatileLfu, rng) == vorder[2]);
  CHECK(take(vpicker, vks, Policy::kVolatileLfu, rng) == vorder[0]);
}

TEST_CASE("eviction: allkeys-lfu keeps the probation near a fifth and spares used keys while it is larger") {
  // 1000 keys in use (counter 1), then a stream of new keys, one eviction
  // each, none used again (a scan): the hand evicts new keys only, and the
  // keys in use all stay.
  Keyspace ks(1);
  ks.use_counter().set_mode(AccessMode::kLfu);
  Db& db = ks.db(0);
  for (int i = 0; i < 1000; ++i) db.set_use(db.add_string("used" + std::to_string(i), "v"), 1);
  for (int i = 0; i < 300; ++i) db.add_string("new" + std::to_string(i), "v");
  REQUIRE(db.probation() == 300);  // 300 of 1300: more than a fifth
  EvictionPicker picker;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5000; ++i) {
    db.add_string("scan" + std::to_string(i), "v");
    const std::string victim = take(picker, ks, Policy::kAllkeysLfu, rng);
    REQUIRE(victim.rfind("used", 0) != 0);
  }
  CHECK(db.size() == 1300);
  CHECK(db.probation() == 300);
  // Without new keys the probation runs out (in 50 evictions, to 250 of
  // 1250); then the hand lowers keys in use again, just enough to keep the
  // keys at 0 over a fifth of the db, and evicts them.
  for (int i = 0; i < 50; ++i) REQUIRE(take(picker, ks, Policy::kAllkeysLfu, rng).rfind("used", 0) != 0);
  REQUIRE(db.probation() * EvictionPicker::kProbationShare == db.size());
  for (int i = 0; i < 850; ++i) {
    take(picker, ks, Policy::kAllkeysLfu, rng);
    REQUIRE(db.probation() == at_zero(db));
    CHECK(db.probation() * EvictionPicker::kProbationShare <= db.size() + EvictionPicker::kProbationShare);
  }
  CHECK(db.size() == 400);
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
