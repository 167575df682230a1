// store::Dict: lookups, and the SCAN guarantee: a key present for the whole
// scan is returned at least once, however the table grows or shrinks between
// two cursor steps.

#include <doctest/doctest.h>

#include <memory>
#include <random>
#include <set>
#include <string>

#include "store/dict.hpp"

namespace lawnkv::store {
namespace {

EntryPtr make_entry(const std::string& key) { return Entry::make_string(key, "v", false); }

void insert_range(Dict& d, const std::string& prefix, int from, int to) {
  for (int i = from; i < to; ++i) d.insert(make_entry(prefix + std::to_string(i)));
}

void remove_range(Dict& d, const std::string& prefix, int from, int to) {
  for (int i = from; i < to; ++i) d.remove(prefix + std::to_string(i));
}

// One cursor step; returns the next cursor and adds what it saw to seen.
uint64_t step(const Dict& d, uint64_t cursor, std::set<std::string>* seen) {
  return d.scan(cursor, [&](const Entry& e) { seen->insert(std::string(e.key())); });
}

// True if every key "<prefix><i>" for i in [0, n) is in seen.
bool all_seen(const std::set<std::string>& seen, const std::string& prefix, int n) {
  for (int i = 0; i < n; ++i)
    if (!seen.count(prefix + std::to_string(i))) return false;
  return true;
}

}  // namespace

TEST_CASE("Dict finds, inserts and removes; the table grows and shrinks") {
  Dict d;
  insert_range(d, "k", 0, 1000);
  CHECK(d.size() == 1000);
  CHECK(d.bucket_count() >= 1000);
  CHECK(d.find("k7") != nullptr);
  CHECK(d.find("nope") == nullptr);
  remove_range(d, "k", 0, 990);
  CHECK(d.size() == 10);
  CHECK(d.bucket_count() < 128);
  CHECK(d.find("k995")->key() == "k995");
}

TEST_CASE("Dict::scan without changes returns every key exactly once") {
  Dict d;
  insert_range(d, "k", 0, 777);
  std::multiset<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = d.scan(cursor, [&](const Entry& e) { seen.insert(std::string(e.key())); });
  } while (cursor != 0);
  CHECK(seen.size() == 777);
  for (int i = 0; i < 777; ++i) CHECK(seen.count("k" + std::to_string(i)) == 1);
}

TEST_CASE("Dict::scan of an empty table ends at once") {
  Dict d;
  int calls = 0;
  uint64_t cursor = 0;
  do {
    cursor = d.scan(cursor, [&](const Entry&) { ++calls; });
  } while (cursor != 0);
  CHECK(calls == 0);
}

TEST_CASE("Dict::scan returns the stable keys while the table grows between steps") {
  Dict d;
  insert_range(d, "stable", 0, 100);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int added = 0;
  int steps = 0;
  do {
    cursor = step(d, cursor, &seen);
    // Double the table several times while the walk is under way (a table
    // that grows without end would never let the walk finish).
    if (added < 20000) {
      insert_range(d, "new", added, added + 50);
      added += 50;
    }
    ++steps;
  } while (cursor != 0 && steps < 100000);
  CHECK(cursor == 0);
  CHECK(d.bucket_count() >= 16384);
  CHECK(all_seen(seen, "stable", 100));
}

TEST_CASE("Dict::scan returns the stable keys while the table shrinks between steps") {
  Dict d;
  insert_range(d, "stable", 0, 20);
  insert_range(d, "tmp", 0, 5000);
  const size_t big = d.bucket_count();
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int removed = 0;
  do {
    cursor = step(d, cursor, &seen);
    const int next = std::min(removed + 400, 5000);
    remove_range(d, "tmp", removed, next);
    removed = next;
  } while (cursor != 0);
  CHECK(d.bucket_count() < big);
  CHECK(all_seen(seen, "stable", 20));
}

TEST_CASE("Dict::scan survives random growth and shrinkage between every step") {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    Dict d;
    insert_range(d, "stable", 0, 64);
    int lo = 0, hi = 0;  // "churn<i>" present for i in [lo, hi)
    std::set<std::string> seen;
    uint64_t cursor = 0;
    int steps = 0;
    do {
      cursor = step(d, cursor, &seen);
      // Either a burst of inserts (growth) or of removals (shrinkage),
      // the churning keys staying under 4000.
      const int n = static_cast<int>(rng() % 500);
      if (rng() % 2 == 0 && hi - lo + n < 4000) {
        insert_range(d, "churn", hi, hi + n);
        hi += n;
      } else {
        const int to = std::min(lo + n, hi);
        remove_range(d, "churn", lo, to);
        lo = to;
      }
      ++steps;
    } while (cursor != 0 && steps < 1000000);
    CHECK(cursor == 0);
    CHECK(all_seen(seen, "stable", 64));
  }
}

}  // namespace lawnkv::store

namespace lawnkv::store {

TEST_CASE("Dict rehashes a few chains per operation, and every key stays findable meanwhile") {
  Dict d;
  insert_range(d, "k", 0, 1024);
  CHECK_FALSE(d.rehashing());
  d.insert(make_entry("k1024"));  // load > 1: the rehash to 2048 buckets starts
  CHECK(d.rehashing());
  CHECK(d.bucket_count() == 2048);
  for (int i = 0; i <= 1024; ++i) CHECK(d.find("k" + std::to_string(i)) != nullptr);
  // Half the keys go, half come back, while chains move; all are found.
  int ops = 0;
  for (int i = 0; i < 1024 && d.rehashing(); i += 2, ops += 2) {
    CHECK(d.remove("k" + std::to_string(i)) != nullptr);
    d.insert(make_entry("k" + std::to_string(i)));
  }
  CHECK_FALSE(d.rehashing());
  // 1024 old buckets, 2 chains (or 20 empty buckets) an operation.
  CHECK(ops <= 1024 / 2 + 2);
  CHECK(d.size() == 1025);
  for (int i = 0; i <= 1024; ++i) CHECK(d.find("k" + std::to_string(i)) != nullptr);
  // rehash_step alone (a lookup) also finishes a rehash.
  remove_range(d, "k", 0, 1000);
  int steps = 0;
  while (d.rehashing()) {
    d.rehash_step();
    ++steps;
  }
  CHECK(steps < 2048);
  CHECK(d.bucket_count() <= 128);  // 25 keys: shrunk to load >= 1/8
  for (int i = 1000; i <= 1024; ++i) CHECK(d.find("k" + std::to_string(i)) != nullptr);
}

}  // namespace lawnkv::store
