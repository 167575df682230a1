// The TTL frequency table: hot after kHotAfter recent arrivals, the hot map
// against a reference map, aging of the sketch.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

#include "expiry/ttl_table.hpp"

namespace lawnkv::expiry {
namespace {

// A queue pointer the table stores and never dereferences.
LawnQueue* fake_queue(uint64_t n) { return reinterpret_cast<LawnQueue*>((n + 1) * sizeof(LawnQueue)); }

TEST_SUITE_BEGIN("expiry");

TEST_CASE("expiry ttl table: a TTL turns hot on its 4th arrival") {
  TtlTable t;
  CHECK(t.find(5000) == nullptr);
  CHECK(!t.arrival(5000));
  CHECK(!t.arrival(5000));
  CHECK(!t.arrival(5000));
  CHECK(t.arrival(5000));
  t.make_hot(5000, fake_queue(7));
  CHECK(t.find(5000) == fake_queue(7));
  CHECK(t.hot_count() == 1);
  // Once hot, it is no longer counted: cold again means 4 more arrivals.
  t.make_cold(5000);
  CHECK(t.find(5000) == nullptr);
  CHECK(!t.arrival(5000));
  CHECK(!t.arrival(5000));
  CHECK(!t.arrival(5000));
  CHECK(t.arrival(5000));
}

TEST_CASE("expiry ttl table: TTLs seen once never turn hot, even by the million") {
  TtlTable t;
  int hot = 0;
  for (int64_t ttl = 1; ttl <= 1'000'000; ++ttl) hot += t.arrival(ttl);
  CHECK(hot == 0);
}

TEST_CASE("expiry ttl table: sporadic TTLs age out; a continuous spread makes (almost) nothing hot") {
  TtlTable t;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> ttl(1, 3'600'000);
  int hot = 0;
  for (int i = 0; i < 2'000'000; ++i) hot += t.arrival(ttl(rng));
  CHECK(hot < 20);  // a few chance repeats inside one aging window at most
}

TEST_CASE("expiry ttl table: 1,000 interleaved TTLs all turn hot") {
  TtlTable t;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pick(0, 999);
  int hot = 0;
  for (int i = 0; i < 100'000 && hot < 1000; ++i) {
    const int64_t ttl = 1000 + pick(rng) * 3607;
    if (t.find(ttl) != nullptr) continue;
    if (t.arrival(ttl)) {
      t.make_hot(ttl, fake_queue(static_cast<uint64_t>(hot++)));
    }
  }
  CHECK(hot == 1000);
  CHECK(t.hot_count() == 1000);
}

TEST_CASE("expiry ttl table: the hot map matches a reference map through inserts and deletes") {
  TtlTable t;
  std::unordered_map<int64_t, LawnQueue*> ref;
  std::mt19937_64 rng(1234);
  // A small key range forces long probe runs and wrap-around deletions.
  std::uniform_int_distribution<int64_t> key(1, 3000);
  for (int i = 0; i < 200'000; ++i) {
    const int64_t k = key(rng);
    auto it = ref.find(k);
    if (it == ref.end()) {
      LawnQueue* q = fake_queue(static_cast<uint64_t>(i));
      t.make_hot(k, q);
      ref.emplace(k, q);
    } else {
      t.make_cold(k);
      ref.erase(it);
    }
    if (i % 1000 == 0) {
      for (int64_t probe = 1; probe <= 3000; ++probe) {
        auto r = ref.find(probe);
        LawnQueue* want = r == ref.end() ? nullptr : r->second;
        if (t.find(probe) != want) REQUIRE(t.find(probe) == want);
      }
    }
  }
  CHECK(t.hot_count() == ref.size());
}

TEST_SUITE_END();

}  // namespace
}  // namespace lawnkv::expiry
