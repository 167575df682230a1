// types::ZSet (src/types/zset.hpp) and its two encodings: random operations
// against a std::set of (score, member) and a std::map of member -> score,
// checking after each one the size, scores, ranks of every member, the order
// walked both ways, score ranges by count_below, the encoding Redis 7.0
// would report, and for a skiplist that every inner entry of the tree holds
// its child's count and largest key.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "types/zset.hpp"

namespace lawnkv::types {
namespace {

struct ModelLess {
  bool operator()(const std::pair<double, std::string>& a, const std::pair<double, std::string>& b) const {
    return zset_before(a.first, a.second, b.first, b.second);
  }
};
using Model = std::set<std::pair<double, std::string>, ModelLess>;

std::vector<std::pair<double, std::string>> walked(const ZSet& z, size_t start, size_t end, bool reverse) {
  std::vector<std::pair<double, std::string>> out;
  z.walk(start, end, reverse, [&](std::string_view m, double s) { out.emplace_back(s, std::string(m)); });
  return out;
}

void check_same(const ZSet& z, const Model& model, const std::map<std::string, double>& scores,
                std::mt19937_64& rng) {
  REQUIRE(z.size() == model.size());
  if (z.tree()) REQUIRE(z.tree()->consistent());
  const std::vector<std::pair<double, std::string>> all(model.begin(), model.end());
  CHECK(walked(z, 0, z.size(), false) == all);
  const std::vector<std::pair<double, std::string>> back(all.rbegin(), all.rend());
  CHECK(walked(z, 0, z.size(), true) == back);
  size_t r = 0;
  for (const auto& [s, m] : all) {
    REQUIRE(z.rank(m) == r);
    REQUIRE(z.score(m) == scores.at(m));
    ++r;
  }
  CHECK_FALSE(z.rank("absent-member").has_value());
  if (all.empty()) return;
  // A random sub-range both ways.
  const size_t a = rng() % all.size(), b = a + rng() % (all.size() - a + 1);
  CHECK(walked(z, a, b, false) == std::vector(all.begin() + a, all.begin() + b));
  CHECK(walked(z, a, b, true) == std::vector(all.rbegin() + (all.size() - b), all.rbegin() + (all.size() - a)));
  // count_below with a score bound, inclusive and exclusive.
  const double bound = static_cast<double>(rng() % 40) - 5;
  size_t below = 0, at_most = 0;
  for (const auto& e : all) {
    below += e.first < bound;
    at_most += e.first <= bound;
  }
  CHECK(z.count_below([&](double s, std::string_view) { return s < bound; }) == below);
  CHECK(z.count_below([&](double s, std::string_view) { return s <= bound; }) == at_most);
}

void run_random(size_t max_entries, size_t steps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ZSetOptions opts{.max_listpack_entries = max_entries, .max_listpack_value = 8, .seeds = &rng};
  ZSet z;
  Model model;
  std::map<std::string, double> scores;
  bool converted = false;  // once a skiplist, for good
  for (size_t step = 0; step < steps; ++step) {
    const std::string member = "m" + std::to_string(rng() % 300) + std::string(rng() % 50 == 0 ? 9 : 0, 'x');
    const double score = static_cast<double>(static_cast<int>(rng() % 30)) - 5 + (rng() % 2 ? 0.5 : 0);
    const int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      const auto old = scores.find(member);
      const bool fits = model.size() + 1 <= max_entries && member.size() <= 8;
      double got = 0;
      const ZAddResult res = z.add(member, score, kZAddNone, opts, &got);
      if (old == scores.end()) {
        CHECK(res == ZAddResult::kAdded);
        if (!fits) converted = true;
      } else {
        CHECK(res == (old->second == score ? ZAddResult::kSame : ZAddResult::kUpdated));
        model.erase({old->second, member});
      }
      CHECK(got == score);
      model.insert({score, member});
      scores[member] = score;
    } else if (op < 7) {
      const bool present = scores.count(member) > 0;
      CHECK(z.remove(member) == present);
      if (present) {
        model.erase({scores[member], member});
        scores.erase(member);
      }
    } else if (op < 8 && !model.empty()) {
      // Removing a range of ranks.
      const size_t a = rng() % model.size(), b = std::min(model.size(), a + rng() % 5);
      z.erase_ranks(a, b);
      auto it = std::next(model.begin(), static_cast<long>(a));
      for (size_t i = a; i < b; ++i) {
        scores.erase(it->second);
        it = model.erase(it);
      }
    } else {
      // INCR, NX/XX/GT/LT against the model.
      const auto old = scores.find(member);
      double got = 0;
      const unsigned flags = (rng() % 2 ? unsigned{kZAddIncr} : 0u) | (rng() % 3 == 0 ? unsigned{kZAddGt} : 0u);
      const ZAddResult res = z.add(member, score, flags, opts, &got);
      double want = (flags & kZAddIncr) && old != scores.end() ? old->second + score : score;
      if (old != scores.end() && (flags & kZAddGt) && want <= old->second) {
        CHECK(res == ZAddResult::kNop);
      } else {
        if (old == scores.end() && (model.size() + 1 > max_entries || member.size() > 8)) converted = true;
        if (old != scores.end()) model.erase({old->second, member});
        model.insert({want, member});
        scores[member] = want;
        CHECK(got == want);
      }
    }
    if (step % 7 == 0) check_same(z, model, scores, rng);
    CHECK(z.is_listpack() == !converted);
  }
  check_same(z, model, scores, rng);
}

TEST_CASE("zset: random operations against a model, listpack and skiplist") {
  run_random(1000, 3000, 1);   // long listpack phase (bigger than Redis's default)
  run_random(16, 20000, 2);    // converts early, then skiplist only
  run_random(0, 5000, 3);      // skiplist from the first member
}

TEST_CASE("zset: order is score, then member bytes as memcmp, shorter first") {
  ZSetOptions opts;
  for (bool big : {false, true}) {
    ZSet z(big);
    for (const char* m : {"b", "a", "ab", "\xff", "", "A"}) z.add(m, 1, kZAddNone, opts);
    z.add("z", -std::numeric_limits<double>::infinity(), kZAddNone, opts);
    z.add("y", 0.5, kZAddNone, opts);
    std::vector<std::string> got;
    z.walk(0, z.size(), false, [&](std::string_view m, double) { got.emplace_back(m); });
    CHECK(got == std::vector<std::string>{"z", "y", "", "A", "a", "ab", "b", "\xff"});
  }
}

TEST_CASE("zset: NaN refused; NX, XX, GT, LT as Redis's zsetAdd") {
  ZSetOptions opts;
  ZSet z;
  CHECK(z.add("a", std::nan(""), kZAddNone, opts) == ZAddResult::kNan);
  CHECK(z.empty());
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(z.add("a", inf, kZAddNone, opts) == ZAddResult::kAdded);
  CHECK(z.add("a", -inf, kZAddIncr, opts) == ZAddResult::kNan);
  CHECK(z.score("a") == inf);
  CHECK(z.add("a", 1, kZAddNx, opts) == ZAddResult::kNop);
  CHECK(z.add("b", 1, kZAddXx, opts) == ZAddResult::kNop);
  CHECK(z.add("a", 5, kZAddGt, opts) == ZAddResult::kNop);
  CHECK(z.add("a", 5, kZAddLt, opts) == ZAddResult::kUpdated);
  CHECK(z.add("a", 5, kZAddNone, opts) == ZAddResult::kSame);
  CHECK(z.score("a") == 5);
}

TEST_CASE("zset: encodings convert on size and member length, and back only when compacted") {
  ZSetOptions opts{.max_listpack_entries = 3, .max_listpack_value = 4};
  ZSet z;
  for (const char* m : {"a", "b", "c"}) z.add(m, 1, kZAddNone, opts);
  CHECK(z.encoding() == "listpack");
  z.add("d", 1, kZAddNone, opts);
  CHECK(z.encoding() == "skiplist");
  z.remove("d");
  CHECK(z.encoding() == "skiplist");
  z.compact_if_fits(opts, 1);
  CHECK(z.encoding() == "listpack");
  z.add("12345", 1, kZAddNone, opts);
  CHECK(z.encoding() == "skiplist");
  z.compact_if_fits(opts, 5);
  CHECK(z.encoding() == "skiplist");
  // A copy keeps the encoding and contents.
  ZSet copy(z);
  CHECK(copy.encoding() == "skiplist");
  CHECK(copy.rank("12345") == z.rank("12345"));
}

}  // namespace
}  // namespace lawnkv::types

namespace lawnkv::types {
namespace {

// The tree deep (60,000 members: three levels of inner nodes), then emptied
// in waves: splits, merges, root changes, ranks and walks checked against
// the model at each stage.
TEST_CASE("zset: a deep tree grown and emptied in waves, against a model") {
  std::mt19937_64 rng(7);
  ZSetOptions opts{.max_listpack_entries = 0, .max_listpack_value = 64, .seeds = &rng};
  ZSet z(true, 3);
  Model model;
  std::map<std::string, double> scores;
  auto check = [&] {
    check_same(z, model, scores, rng);
    // Every rank maps back to its element.
    for (size_t r = 0; r < model.size(); r += 97) {
      std::string m;
      z.walk(r, r + 1, false, [&](std::string_view mm, double) { m = mm; });
      CHECK(z.rank(m) == r);
    }
  };
  for (int wave = 0; wave < 3; ++wave) {
    for (int i = 0; i < 60000; ++i) {
      const std::string m = "k" + std::to_string(rng() % 80000);
      const double s = static_cast<double>(rng() % 1000);
      const auto old = scores.find(m);
      if (old != scores.end()) model.erase({old->second, m});
      z.add(m, s, kZAddNone, opts);
      model.insert({s, m});
      scores[m] = s;
    }
    check();
    // Remove most of it: by member, by rank ranges from both ends, the middle.
    while (model.size() > static_cast<size_t>(wave * 500)) {
      const int how = static_cast<int>(rng() % 3);
      if (how == 0) {
        auto it = std::next(model.begin(), static_cast<long>(rng() % model.size()));
        CHECK(z.remove(it->second));
        scores.erase(it->second);
        model.erase(it);
      } else {
        const size_t n = std::min<size_t>(model.size(), 1 + rng() % 200);
        const size_t a = how == 1 ? 0 : model.size() - n;
        z.erase_ranks(a, a + n);
        auto it = std::next(model.begin(), static_cast<long>(a));
        for (size_t k = 0; k < n; ++k) {
          scores.erase(it->second);
          it = model.erase(it);
        }
      }
      if (model.size() % 5000 == 0) check();
    }
    check();
  }
}

}  // namespace
}  // namespace lawnkv::types

namespace lawnkv::types {
namespace {

// The tree's inner entries (counts, largest keys) are kept up to date by
// each insert and removal along its path, not recomputed: checked after
// every operation on a tree of three levels of inner nodes, with inserts
// at random and at either end, rescores, erases by member and by rank
// (pops from either end), so splits, merges and root changes happen at
// every level.
TEST_CASE("zset tree: inner entries exact after every operation") {
  std::mt19937_64 rng(13);
  ZTree t(5);
  // The members present, and where each is in that list.
  std::vector<std::string> present;
  std::unordered_map<std::string, size_t> where;
  auto forget = [&](const std::string& m) {
    const size_t k = where.at(m);
    where[present.back()] = k;
    where.erase(m);
    present[k] = std::move(present.back());
    present.pop_back();
  };
  uint64_t next = 0;
  size_t depth_seen = 0;  // the most inner levels the tree had
  for (int step = 0; step < 240000; ++step) {
    // Waves of 60,000 steps: growing by about 30,000 members, then shrinking.
    const bool grow = (step / 60000) % 2 == 0;
    const int op = static_cast<int>(rng() % 10) + (grow ? 0 : 5);  // 0-6 insert, 7 rescore, 8-14 erase
    if (op < 7 || present.empty()) {
      std::string m = "m" + std::to_string(next++);
      double s = static_cast<double>(rng() % 5000);
      if (op == 0) s = 1e9 + static_cast<double>(next);   // past every member
      if (op == 1) s = -1e9 - static_cast<double>(next);  // before every member
      t.insert(m, s);
      where[m] = present.size();
      present.push_back(std::move(m));
    } else if (op == 7) {
      const std::string& m = present[rng() % present.size()];
      t.rescore(t.find(m), static_cast<double>(rng() % 5000));
    } else if (op % 3 == 0) {
      const std::string m = present[rng() % present.size()];
      t.erase(t.find(m));
      forget(m);
    } else {
      const size_t rank = op % 3 == 1 ? 0 : t.size() - 1;
      const std::string m(ZTree::get(t.at(rank))->member());
      t.erase_rank(rank);
      forget(m);
    }
    REQUIRE(t.size() == present.size());
    REQUIRE(t.consistent());
    depth_seen = std::max(depth_seen, t.depth());
  }
  CHECK(depth_seen >= 3);
}

}  // namespace
}  // namespace lawnkv::types
