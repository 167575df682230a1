// types::MemberTable (src/types/member_table.hpp): random operations against
// std::unordered_set, incremental resizing, SSCAN's guarantee across
// resizes, long members, memory accounting, the dense slots behind random()
// and random() being uniform.

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/arena.hpp"
#include "types/member_table.hpp"

namespace lawnkv::types {
namespace {

std::string name(const char* prefix, int i) { return prefix + std::to_string(i); }

void insert_range(MemberTable& t, const char* prefix, int from, int to) {
  for (int i = from; i < to; ++i) REQUIRE(t.insert(name(prefix, i)));
}
void erase_range(MemberTable& t, const char* prefix, int from, int to) {
  for (int i = from; i < to; ++i) REQUIRE(t.erase(name(prefix, i)));
}

std::multiset<std::string> all(const MemberTable& t) {
  std::multiset<std::string> out;
  t.for_each([&](std::string_view m) { out.emplace(m); });
  return out;
}

}  // namespace

TEST_CASE("member table: random operations against std::unordered_set") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    MemberTable t(seed);
    std::unordered_set<std::string> model;
    // Members of every length class: empty, short, inline up to 254, heap.
    auto member = [&]() {
      const uint64_t r = rng() % 100;
      const size_t len = r < 70 ? rng() % 12 : r < 95 ? 200 + rng() % 100 : 1000;
      std::string m(len, 'a');
      for (char& c : m) c = static_cast<char>('a' + rng() % 3);
      return m;
    };
    // Phases of growth and of shrinkage, so rehashes run both ways.
    for (int phase = 0; phase < 6; ++phase) {
      const bool grow = phase % 2 == 0;
      for (int op = 0; op < 3000; ++op) {
        const std::string m = member();
        const uint64_t r = rng() % 10;
        if (r < (grow ? 6u : 2u)) {
          CHECK(t.insert(m) == model.insert(m).second);
        } else if (r < 9) {
          // Erase a present member most of the time.
          if (!model.empty() && rng() % 4 != 0) {
            const std::string present(t.random(rng));
            REQUIRE(model.count(present) == 1);
            REQUIRE(t.erase(present));
            model.erase(present);
          } else {
            CHECK(t.erase(m) == (model.erase(m) == 1));
          }
        } else {
          CHECK(t.contains(m) == (model.count(m) == 1));
        }
        REQUIRE(t.size() == model.size());
        if (op % 500 == 0) REQUIRE(t.check() == "");
      }
      CHECK(t.check() == "");
      const auto listed = all(t);
      CHECK(listed.size() == model.size());
      CHECK(listed == std::multiset<std::string>(model.begin(), model.end()));
    }
  }
}

TEST_CASE("member table: grows and shrinks a few chains at a time; all members stay findable") {
  MemberTable t(7);
  insert_range(t, "m", 0, 1024);
  CHECK_FALSE(t.rehashing());
  CHECK(t.bucket_count() == 1024);
  CHECK(t.insert("m1024"));  // load > 1: the rehash to 2048 buckets starts
  CHECK(t.rehashing());
  CHECK(t.bucket_count() == 2048);
  int ops = 0;
  for (int i = 0; i <= 1024; ++i) CHECK(t.contains(name("m", i)));
  for (int i = 0; t.rehashing(); i += 2, ops += 2) {
    CHECK(t.erase(name("m", i)));
    CHECK(t.insert(name("m", i)));
    for (int j = 0; j <= 1024; j += 97) CHECK(t.contains(name("m", j)));
  }
  CHECK(ops <= 1024 / 2 + 2);
  erase_range(t, "m", 0, 1000);
  for (int i = 0; t.rehashing() && i < 4096; ++i) {
    CHECK(t.insert("x"));
    CHECK(t.erase("x"));
  }
  CHECK_FALSE(t.rehashing());
  CHECK(t.bucket_count() <= 128);  // 25 members: shrunk to load >= 1/8
  CHECK(t.size() == 25);
  for (int i = 1000; i <= 1024; ++i) CHECK(t.contains(name("m", i)));
  erase_range(t, "m", 1000, 1025);
  CHECK(t.size() == 0);
}

TEST_CASE("member table: a full scan without changes returns every member exactly once") {
  for (int n : {0, 1, 5, 100, 1000}) {
    CAPTURE(n);
    MemberTable t(3);
    insert_range(t, "s", 0, n);
    std::multiset<std::string> seen;
    uint64_t cursor = 0;
    do {
      cursor = t.scan(cursor, [&](std::string_view m) { seen.emplace(m); });
    } while (cursor != 0);
    CHECK(seen == all(t));
  }
}

TEST_CASE("member table: scan returns every stable member across growth and shrinkage") {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    MemberTable t(seed);
    insert_range(t, "stable", 0, 64);
    int lo = 0, hi = 0;  // "churn<i>" present for i in [lo, hi)
    std::set<std::string> seen;
    uint64_t cursor = 0;
    int steps = 0;
    do {
      cursor = t.scan(cursor, [&](std::string_view m) { seen.emplace(m); });
      const int n = static_cast<int>(rng() % 500);
      if (rng() % 2 == 0 && hi - lo + n < 4000) {
        insert_range(t, "churn", hi, hi + n);
        hi += n;
      } else {
        const int to = std::min(lo + n, hi);
        erase_range(t, "churn", lo, to);
        lo = to;
      }
      ++steps;
    } while (cursor != 0 && steps < 1000000);
    CHECK(cursor == 0);
    for (int i = 0; i < 64; ++i) CHECK(seen.count(name("stable", i)) == 1);
  }
}

TEST_CASE("member table: members inline up to 254 bytes, on the heap beyond; memory adds up") {
  const uint64_t arena_before = arena::bytes_in_use();
  {
    MemberTable t(1);
    const size_t empty = t.memory_bytes();
    CHECK(empty == sizeof(MemberTable) + MemberTable::kMinBuckets * 4);
    // The slots: a 16-byte block (2 slots), then 32 (6 slots).
    CHECK(t.insert(""));
    CHECK(t.memory_bytes() == empty + 16 + 16);  // 9-byte header: a 16-byte block
    CHECK(t.insert("0123456789"));
    CHECK(t.memory_bytes() == empty + 16 + 16 + 24);
    const std::string inline_max(254, 'i'), heap(255, 'h');
    CHECK(t.insert(inline_max));
    CHECK(t.memory_bytes() == empty + 32 + 16 + 24 + 264);
    CHECK(t.insert(heap));
    CHECK(t.memory_bytes() >= empty + 32 + 16 + 24 + 264 + 24 + 255);
    CHECK(t.contains(inline_max));
    CHECK(t.contains(heap));
    CHECK_FALSE(t.contains(std::string(255, 'i')));
    CHECK(all(t) == std::multiset<std::string>{"", "0123456789", inline_max, heap});
    const MemberTable copy(t);
    CHECK(all(copy) == all(t));
    CHECK(copy.memory_bytes() == t.memory_bytes());
    CHECK(t.erase(heap));
    CHECK(t.erase(""));
    CHECK(t.memory_bytes() == empty + 16 + 24 + 264);  // the slots back to 16 bytes
  }
  CHECK(arena::bytes_in_use() == arena_before);  // every block went back
}

TEST_CASE("member table: random() is uniform, also with long chains and during a rehash") {
  std::mt19937_64 rng(42);
  auto chi_square = [&](const MemberTable& t, int draws) {
    std::unordered_map<std::string, int> hits;
    for (int i = 0; i < draws; ++i) ++hits[std::string(t.random(rng))];
    CHECK(hits.size() == t.size());
    const double expected = static_cast<double>(draws) / static_cast<double>(t.size());
    double x2 = 0;
    for (const auto& [m, n] : hits) x2 += (n - expected) * (n - expected) / expected;
    return x2;
  };
  MemberTable t(9);
  insert_range(t, "u", 0, 200);
  CHECK_FALSE(t.rehashing());
  // 199 degrees of freedom: the 99.9th percentile of chi-square is about 270.
  CHECK(chi_square(t, 200 * 200) < 270);
  // Mid-rehash: members in both tables.
  insert_range(t, "u", 200, 257);
  REQUIRE(t.rehashing());
  CHECK(chi_square(t, 257 * 200) < 340);  // 256 degrees of freedom
  // After erases that moved members between slots.
  for (int i = 0; i < 257; i += 3) REQUIRE(t.erase(name("u", i)));
  REQUIRE(t.size() == 171);
  CHECK(chi_square(t, 171 * 200) < 240);  // 170 degrees of freedom
}

TEST_CASE("member table: an erase moves the last member into the slot it frees") {
  // Members erased from the front, the back and the middle of the slots, in
  // a random order: each erase leaves every member in the slot it names, and
  // random() draws only members present, each of them.
  std::mt19937_64 rng(5);
  MemberTable t(11);
  insert_range(t, "e", 0, 40);
  std::vector<std::string> present;
  for (int i = 0; i < 40; ++i) present.push_back(name("e", i));
  while (!present.empty()) {
    const size_t k = rng() % present.size();
    REQUIRE(t.erase(present[k]));
    present.erase(present.begin() + static_cast<std::ptrdiff_t>(k));
    REQUIRE(t.check() == "");
    std::set<std::string> drawn;
    for (size_t i = 0; i < present.size() * 40; ++i) drawn.emplace(t.random(rng));
    REQUIRE(drawn == std::set<std::string>(present.begin(), present.end()));
  }
  CHECK(t.size() == 0);
}

TEST_CASE("member table: a copy holds the same members in working slots") {
  MemberTable t(13);
  insert_range(t, "c", 0, 300);
  erase_range(t, "c", 0, 100);
  const MemberTable copy(t);
  CHECK(copy.check() == "");
  CHECK(all(copy) == all(t));
  std::mt19937_64 rng(2);
  std::set<std::string> drawn;
  for (int i = 0; i < 200 * 40; ++i) drawn.emplace(copy.random(rng));
  CHECK(drawn.size() == 200);
}

}  // namespace lawnkv::types
