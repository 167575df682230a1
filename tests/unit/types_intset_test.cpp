// types::IntSet (src/types/intset.hpp): widths, order, and random operations
// against std::set<int64_t>.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "types/intset.hpp"

namespace lawnkv::types {
namespace {

std::vector<int64_t> contents(const IntSet& s) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < s.size(); ++i) out.push_back(s.at(i));
  return out;
}

}  // namespace

TEST_CASE("intset: ascending order, no duplicates, exact block size") {
  IntSet s;
  CHECK(s.empty());
  CHECK(s.memory_bytes() == 0);
  CHECK(s.insert(5));
  CHECK(s.insert(-3));
  CHECK(s.insert(100));
  CHECK(s.insert(7));
  CHECK_FALSE(s.insert(5));
  CHECK(contents(s) == std::vector<int64_t>{-3, 5, 7, 100});
  CHECK(s.width() == 2);
  CHECK(s.memory_bytes() == 8 + 4 * 2);
  CHECK(s.contains(7));
  CHECK_FALSE(s.contains(8));
  CHECK_FALSE(s.contains(INT64_MAX));
  CHECK(s.erase(5));
  CHECK_FALSE(s.erase(5));
  CHECK_FALSE(s.erase(1LL << 40));  // wider than any element: absent
  CHECK(contents(s) == std::vector<int64_t>{-3, 7, 100});
  s.erase_at(0);
  CHECK(contents(s) == std::vector<int64_t>{7, 100});
}

TEST_CASE("intset: widens to 4 and 8 bytes at the edges of the ranges, never narrows") {
  CHECK(IntSet::width_of(INT16_MAX) == 2);
  CHECK(IntSet::width_of(INT16_MIN) == 2);
  CHECK(IntSet::width_of(INT16_MAX + 1) == 4);
  CHECK(IntSet::width_of(INT16_MIN - 1) == 4);
  CHECK(IntSet::width_of(INT32_MAX) == 4);
  CHECK(IntSet::width_of(int64_t{INT32_MAX} + 1) == 8);
  CHECK(IntSet::width_of(INT64_MIN) == 8);

  IntSet s;
  for (int64_t v : {1, 2, 3}) s.insert(v);
  CHECK(s.insert(-40000));  // below every element: goes first
  CHECK(s.width() == 4);
  CHECK(contents(s) == std::vector<int64_t>{-40000, 1, 2, 3});
  CHECK(s.insert(INT64_MAX));  // above: goes last
  CHECK(s.width() == 8);
  CHECK(s.insert(INT64_MIN));
  CHECK(contents(s) == std::vector<int64_t>{INT64_MIN, -40000, 1, 2, 3, INT64_MAX});
  CHECK(s.memory_bytes() == 8 + 6 * 8);
  CHECK(s.erase(INT64_MIN));
  CHECK(s.erase(INT64_MAX));
  CHECK(s.erase(-40000));
  CHECK(s.width() == 8);  // as Redis: no narrowing
  CHECK(contents(s) == std::vector<int64_t>{1, 2, 3});
  const IntSet copy(s);
  CHECK(contents(copy) == contents(s));
  CHECK(copy.width() == 8);
}

TEST_CASE("intset: random operations against std::set") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    // Values from a few bands so that widths change back and forth.
    auto value = [&]() -> int64_t {
      switch (rng() % 4) {
        case 0: return static_cast<int64_t>(rng() % 200) - 100;
        case 1: return static_cast<int64_t>(rng() % 200000) - 100000;
        case 2: return static_cast<int64_t>(rng());
        default: return static_cast<int64_t>(rng() % 64);
      }
    };
    IntSet s;
    std::set<int64_t> model;
    for (int op = 0; op < 4000; ++op) {
      const int64_t v = value();
      switch (rng() % 5) {
        case 0:
        case 1: CHECK(s.insert(v) == model.insert(v).second); break;
        case 2: CHECK(s.erase(v) == (model.erase(v) == 1)); break;
        case 3:
          if (!model.empty()) {
            const size_t i = rng() % model.size();
            const int64_t at = s.at(i);
            s.erase_at(i);
            CHECK(model.erase(at) == 1);
          }
          break;
        default: CHECK(s.contains(v) == (model.count(v) == 1)); break;
      }
      REQUIRE(s.size() == model.size());
    }
    CHECK(contents(s) == std::vector<int64_t>(model.begin(), model.end()));
    unsigned need = 2;
    for (int64_t v : model) need = std::max(need, IntSet::width_of(v));
    CHECK(s.width() >= need);
  }
}

}  // namespace lawnkv::types
