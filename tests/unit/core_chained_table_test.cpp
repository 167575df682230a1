// core/chained_table.hpp, the one hash table behind the keyspace, set
// members, sorted-set members and dehydrator ids: lookups while a rehash is
// under way, the bound on work per operation, SCAN's guarantee while the
// table grows and shrinks under it, random operations against
// std::unordered_set, and random() being uniform with chains of unequal
// length and during a rehash.

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/chained_table.hpp"

namespace lawnkv {
namespace {

struct TestNode {
  uint64_t key;
  TestNode* next = nullptr;
};

uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dULL;
  return x ^ (x >> 33);
}

// A well-mixed hash, or (share > 1) one that puts runs of `share`
// consecutive keys in the same bucket: chains of unequal length.
struct TestTraits {
  using Node = TestNode;
  using Link = TestNode*;
  using Key = uint64_t;
  uint64_t share = 1;
  static TestNode*& next(TestNode& n) { return n.next; }
  uint64_t hash(uint64_t key) const { return mix(key / share); }
  uint64_t hash(const TestNode& n) const { return hash(n.key); }
  bool equal(const TestNode& n, uint64_t key, uint64_t) const { return n.key == key; }
};

using Table = ChainedTable<TestTraits>;

// A table with the node storage and the count its users keep.
struct Harness {
  Table t;
  std::map<uint64_t, std::unique_ptr<TestNode>> nodes;

  explicit Harness(uint64_t share = 1) : t(TestTraits{share}) {}
  ~Harness() {
    t.clear([](TestNode*) {});
  }
  bool contains(uint64_t k) const { return t.find(k) != nullptr; }
  void insert(uint64_t k) {
    t.rehash_step();
    REQUIRE(t.find(k) == nullptr);
    auto n = std::make_unique<TestNode>(TestNode{k});
    t.push(n.get());
    nodes[k] = std::move(n);
    t.fit(nodes.size());
  }
  void erase(uint64_t k) {
    t.rehash_step();
    Table::Link* link = t.link_to(k, t.hash(k));
    REQUIRE(*link != nullptr);
    CHECK(t.unlink(link)->key == k);
    nodes.erase(k);
    t.fit(nodes.size());
  }
  size_t walked() const {
    size_t n = 0;
    t.for_each([&](TestNode&) { ++n; });
    return n;
  }
};

}  // namespace

TEST_CASE("chained table: every node stays findable, and removable, while a rehash is under way") {
  Harness h;
  for (uint64_t k = 0; k < 1024; ++k) h.insert(k);
  CHECK_FALSE(h.t.rehashing());
  CHECK(h.t.bucket_count() == 1024);
  h.insert(1024);  // load > 1: the growth to 2048 buckets starts
  REQUIRE(h.t.rehashing());
  CHECK(h.t.bucket_count() == 2048);
  // Each operation moves at most kRehashBuckets chains: 1024 old buckets
  // need at least 512 operations, and no more than that (each visits at
  // least two buckets).
  int ops = 0;
  for (uint64_t k = 0; h.t.rehashing(); k += 2, ops += 2) {
    h.erase(k);
    CHECK_FALSE(h.contains(k));
    h.insert(k);
    if (k % 64 == 0)
      for (uint64_t j = 0; j <= 1024; ++j) REQUIRE(h.contains(j));
  }
  CHECK(ops >= 1024 / 2 / 2);
  CHECK(ops <= 1024 / 2 + 2);
  CHECK(h.walked() == 1025);
  // Shrinking: erasing 1000 starts one when the load falls below 1/8; the
  // erases meanwhile find what they erase in either array.
  bool shrank_meanwhile = false;
  for (uint64_t k = 0; k < 1000; ++k) {
    h.erase(k);
    shrank_meanwhile |= h.t.rehashing();
    if (h.t.rehashing())
      for (uint64_t j = k + 1; j <= 1024; ++j) REQUIRE(h.contains(j));
  }
  CHECK(shrank_meanwhile);
  while (h.t.rehashing()) h.t.rehash_step();
  CHECK(h.t.bucket_count() <= 128);  // 25 nodes: load >= 1/8
  CHECK(h.walked() == 25);
  // Emptied, the table is back to its minimum at once.
  for (uint64_t k = 1000; k <= 1024; ++k) h.erase(k);
  CHECK_FALSE(h.t.rehashing());
  CHECK(h.t.bucket_count() == Table::kMinBuckets);
  CHECK(h.t.memory_bytes() == Table::kMinBuckets * sizeof(TestNode*));
}

TEST_CASE("chained table: small arrays resize at once; an expected size is sized for") {
  Harness h;
  for (uint64_t k = 0; k <= Table::kResizeAtOnce; ++k) {
    h.insert(k);
    CHECK_FALSE(h.t.rehashing());
  }
  CHECK(h.t.bucket_count() == 2 * Table::kResizeAtOnce);
  const Table sized(TestTraits{}, 1000);
  CHECK(sized.bucket_count() == 1024);
}

TEST_CASE("chained table: SCAN returns every node present throughout, across grows and shrinks") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    Harness h(seed % 3 == 0 ? 3 : 1);
    // Stable nodes: present for the whole scan. Others come and go in
    // waves that grow the table to thousands of buckets and shrink it
    // back, so cursor steps fall before, during and after rehashes.
    const uint64_t kStable = 100 + rng() % 200;
    for (uint64_t k = 0; k < kStable; ++k) h.insert(k);
    std::vector<uint64_t> others;
    uint64_t next_other = 1'000'000;
    std::multiset<uint64_t> seen;
    uint64_t cursor = 0;
    int steps = 0;
    bool saw_rehash = false;
    do {
      cursor = h.t.scan(cursor, [&](TestNode& n) { seen.insert(n.key); });
      saw_rehash |= h.t.rehashing();
      const bool growing = (steps / 40) % 2 == 0;
      const int changes = static_cast<int>(rng() % 200);
      for (int i = 0; i < changes; ++i) {
        if (growing || others.empty()) {
          others.push_back(next_other);
          h.insert(next_other++);
        } else {
          const size_t at = rng() % others.size();
          h.erase(others[at]);
          others[at] = others.back();
          others.pop_back();
        }
      }
      ++steps;
    } while (cursor != 0 && steps < 100000);
    CHECK(cursor == 0);
    CHECK(saw_rehash);
    for (uint64_t k = 0; k < kStable; ++k) REQUIRE(seen.count(k) >= 1);
  }
}

TEST_CASE("chained table: SCAN started during a rehash, table left alone, returns every node once") {
  Harness h;
  for (uint64_t k = 0; k <= 4096; ++k) h.insert(k);
  REQUIRE(h.t.rehashing());
  for (int i = 0; i < 100; ++i) h.t.rehash_step();
  REQUIRE(h.t.rehashing());
  std::multiset<uint64_t> seen;
  uint64_t cursor = 0;
  do {
    cursor = h.t.scan(cursor, [&](TestNode& n) { seen.insert(n.key); });
  } while (cursor != 0);
  CHECK(seen.size() == 4097);
  for (uint64_t k = 0; k <= 4096; ++k) REQUIRE(seen.count(k) == 1);
}

TEST_CASE("chained table: random operations against std::unordered_set") {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    Harness h(seed % 2 ? 1 : 5);
    std::unordered_set<uint64_t> model;
    // Phases of growth and of shrinkage, so rehashes run both ways, with
    // keys drawn from a range the model fills about halfway.
    for (int phase = 0; phase < 8; ++phase) {
      const uint64_t range = phase % 2 == 0 ? 20000 : 300;
      const int ops = phase % 2 == 0 ? 30000 : 40000;
      for (int i = 0; i < ops; ++i) {
        const uint64_t k = rng() % range;
        const bool present = model.count(k) != 0;
        REQUIRE(h.contains(k) == present);
        if (rng() % 2 == 0 && !present) {
          h.insert(k);
          model.insert(k);
        } else if (present && (phase % 2 == 1 || rng() % 3 == 0)) {
          h.erase(k);
          model.erase(k);
        }
        if (i % 4999 == 0) {
          std::unordered_set<uint64_t> walked;
          h.t.for_each([&](TestNode& n) { REQUIRE(walked.insert(n.key).second); });
          REQUIRE(walked == model);
        }
      }
      // The load stays within the table's bounds once a rehash ends.
      while (h.t.rehashing()) h.t.rehash_step();
      h.t.fit(model.size());
      while (h.t.rehashing()) h.t.rehash_step();
      CHECK(model.size() <= h.t.bucket_count());
      CHECK((h.t.bucket_count() == Table::kMinBuckets || model.size() * 8 >= h.t.bucket_count()));
    }
  }
}

TEST_CASE("chained table: random() is uniform, with unequal chains and during a rehash") {
  std::mt19937_64 rng(42);
  size_t longest = 1;
  auto chi_square = [&](const Harness& h, int draws) {
    std::unordered_map<uint64_t, int> hits;
    for (int i = 0; i < draws; ++i) ++hits[h.t.random(rng, &longest)->key];
    CHECK(hits.size() == h.nodes.size());
    const double expected = static_cast<double>(draws) / static_cast<double>(h.nodes.size());
    double x2 = 0;
    for (const auto& [k, n] : hits) x2 += (n - expected) * (n - expected) / expected;
    return x2;
  };
  // Keys in runs of 3 per bucket, and single ones: a draw of a random
  // node of a random chain would give a single key three times the hits.
  Harness h(3);
  for (uint64_t k = 0; k < 150; ++k) h.insert(k);
  for (uint64_t k = 0; k < 50; ++k) h.insert(1'000'000 + 3 * k);
  REQUIRE(h.nodes.size() == 200);
  CHECK_FALSE(h.t.rehashing());
  // 199 degrees of freedom: the 99.9th percentile of chi-square is about 270.
  CHECK(chi_square(h, 200 * 200) < 270);
  CHECK(longest >= 3);
  // Mid-rehash: nodes in both arrays.
  for (uint64_t k = 150; k < 207; ++k) h.insert(k);
  REQUIRE(h.t.rehashing());
  CHECK(chi_square(h, 257 * 200) < 340);  // 256 degrees of freedom
}

}  // namespace lawnkv
