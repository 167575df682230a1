// types::Set and types/set_algebra (src/types/set.hpp, set_algebra.hpp):
// random operations against std::set with the encoding Redis 7.0 would
// report checked after each one, intset order, SPOP's rebuild, the set
// operations and their result encodings, SRANDMEMBER's sampling.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/numbers.hpp"
#include "types/set.hpp"
#include "types/set_algebra.hpp"

namespace lawnkv::types {
namespace {

bool is_int(const std::string& s) {
  long long v;
  return string_to_ll(s, &v);
}

std::vector<std::string> members(const Set& s) {
  std::vector<std::string> out;
  s.for_each([&](const Member& m) { out.push_back(m.to_string()); });
  return out;
}

std::set<std::string> as_set(const Set& s) {
  const auto v = members(s);
  return std::set<std::string>(v.begin(), v.end());
}

// What a set built by adding `model`'s members one at a time reports.
std::string_view built_encoding(const std::set<std::string>& model, size_t cap) {
  const bool ints = std::all_of(model.begin(), model.end(), is_int);
  return ints && model.size() <= cap ? "intset" : "hashtable";
}

// True if an intset's members come ascending, numerically.
bool ascending(const Set& s) {
  std::vector<long long> v;
  for (const std::string& m : members(s)) {
    long long x;
    if (!string_to_ll(m, &x)) return false;
    v.push_back(x);
  }
  return std::is_sorted(v.begin(), v.end());
}

Set make(std::initializer_list<std::string> items, const SetOptions& opts = {}) {
  Set s;
  for (const std::string& m : items) s.add(m, opts);
  return s;
}

}  // namespace

TEST_CASE("set: intset while all members are integers and few enough, then a hash table for good") {
  SetOptions opts{.max_intset_entries = 4};
  Set s;
  CHECK(s.encoding() == "intset");
  for (const char* m : {"3", "-1", "2", "10"}) CHECK(s.add(m, opts));
  CHECK_FALSE(s.add("3", opts));
  CHECK(s.encoding() == "intset");
  CHECK(members(s) == std::vector<std::string>{"-1", "2", "3", "10"});
  // Not integers as Redis reads them: each would convert.
  for (const char* m : {"03", "+1", " 1", "1.0", "-0", "9223372036854775808", "abc", ""}) {
    Set t = make({"1"}, opts);
    CHECK(t.add(m, opts));
    CHECK(t.encoding() == "hashtable");
    CHECK(t.contains(m));
    CHECK(t.contains("1"));
  }
  CHECK(s.add("-9223372036854775808", opts));  // the fifth member: too many
  CHECK(s.encoding() == "hashtable");
  CHECK(s.size() == 5);
  for (const char* m : {"3", "-1", "2", "10", "-9223372036854775808"}) CHECK(s.contains(m));
  // Back to one member: still a hash table.
  for (const char* m : {"3", "-1", "2", "10"}) CHECK(s.remove(m));
  CHECK(s.encoding() == "hashtable");
  // set-max-intset-entries 0: the first member converts.
  Set z;
  CHECK(z.add("1", SetOptions{.max_intset_entries = 0}));
  CHECK(z.encoding() == "hashtable");
}

TEST_CASE("set: integer members meet string members across encodings") {
  const Set ints = make({"1", "2", "300000"});
  const Set strs = make({"1", "x", "300000"});
  REQUIRE(ints.is_intset());
  REQUIRE_FALSE(strs.is_intset());
  CHECK(strs.contains(Member::of_int(300000)));
  CHECK_FALSE(strs.contains(Member::of_int(2)));
  CHECK(ints.contains(Member::of_bytes("300000")));
  CHECK_FALSE(ints.contains(Member::of_bytes("0300000")));
  CHECK_FALSE(ints.contains("x"));
  CHECK_FALSE(ints.contains("99999999999999999999"));
}

TEST_CASE("set: random operations against std::set, with the encoding checked after each") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const size_t cap = seed % 3 == 0 ? 512 : 1 + rng() % 40;
    const SetOptions opts{.max_intset_entries = cap, .seeds = &rng};
    Set s;
    std::set<std::string> model;
    bool table = false;  // a hash table once, a hash table for good
    auto member = [&]() -> std::string {
      const uint64_t r = rng() % 100;
      if (r < 80 - seed * 5) return std::to_string(static_cast<int64_t>(rng() % 100) - 50);
      if (r < 90) return std::to_string(static_cast<int64_t>(rng()));
      return "m" + std::to_string(rng() % 30);
    };
    for (int op = 0; op < 3000; ++op) {
      const std::string m = member();
      switch (rng() % 9) {
        case 0:
        case 1:
        case 2:
          if (s.add(m, opts)) {
            CHECK(model.insert(m).second);
            if (!is_int(m) || model.size() > cap) table = true;
          } else {
            CHECK(model.count(m) == 1);
          }
          break;
        case 3:
        case 4: CHECK(s.remove(m) == (model.erase(m) == 1)); break;
        case 5:
          if (!model.empty()) {
            const std::string r = s.random(rng).to_string();
            CHECK(model.count(r) == 1);
          }
          break;
        case 6:
          if (model.size() > 1) {
            // SPOP with a count below the size.
            const size_t count = 1 + rng() % (model.size() - 1);
            const size_t left = model.size() - count;
            std::set<std::string> popped;
            s.pop_many(count, opts, rng, [&](const Member& p) { CHECK(popped.insert(p.to_string()).second); });
            CHECK(popped.size() == count);
            for (const std::string& p : popped) CHECK(model.erase(p) == 1);
            // A rebuild (few left) makes a set built anew.
            if (left * 5 <= count) table = built_encoding(model, cap) == "hashtable";
          }
          break;
        case 7:
          if (!model.empty()) {
            // SPOP key: the member handed out is the one removed.
            std::string popped;
            s.pop_random(rng, [&](const Member& p) { popped = p.to_string(); });
            CHECK(model.erase(popped) == 1);
            CHECK_FALSE(s.contains(popped));
          }
          break;
        default: CHECK(s.contains(m) == (model.count(m) == 1)); break;
      }
      REQUIRE(s.size() == model.size());
      REQUIRE(s.encoding() == (table ? "hashtable" : "intset"));
    }
    CHECK(as_set(s) == model);
    if (s.is_intset()) CHECK(ascending(s));
    const Set copy(s);
    CHECK(as_set(copy) == model);
    if (s.is_intset()) CHECK(members(copy) == members(s));
    CHECK(copy.encoding() == s.encoding());
  }
}

TEST_CASE("set: SPOP's rebuild can turn a hash table back into an intset") {
  std::mt19937_64 rng(5);
  const SetOptions opts{.max_intset_entries = 512, .seeds = &rng};
  Set s = make({"a", "b", "c", "d", "e", "f", "g", "h", "i"}, opts);
  s.add("7", opts);
  REQUIRE(s.encoding() == "hashtable");
  // Pop 9 of 10: 1 * 5 <= 9, so the one member left is drawn into a new set,
  // an intset when it is "7".
  int intsets = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Set t(s);
    std::vector<std::string> popped;
    t.pop_many(9, opts, rng, [&](const Member& m) { popped.push_back(m.to_string()); });
    REQUIRE(popped.size() == 9);
    REQUIRE(t.size() == 1);
    CHECK(t.encoding() == (t.contains("7") ? "intset" : "hashtable"));
    intsets += t.is_intset();
  }
  CHECK(intsets > 0);
}

TEST_CASE("set algebra: against std::set, with Redis's result encodings") {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const size_t cap = 1 + rng() % 30;
    const SetOptions opts{.max_intset_entries = cap, .seeds = &rng};
    const int n = 1 + static_cast<int>(rng() % 4);
    std::vector<Set> storage(static_cast<size_t>(n));
    std::vector<std::set<std::string>> models(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int size = static_cast<int>(rng() % 40);
      for (int k = 0; k < size; ++k) {
        const std::string m = rng() % 6 == 0 ? "s" + std::to_string(rng() % 10) : std::to_string(rng() % 40);
        storage[i].add(m, opts);
        models[i].insert(m);
      }
    }
    std::vector<const Set*> sets;
    for (const Set& s : storage) sets.push_back(&s);
    if (rng() % 3 == 0) sets.push_back(sets[0]);  // a key named twice

    std::set<std::string> inter = models[0], uni, diff = models[0];
    for (int i = 1; i < n; ++i) {
      std::set<std::string> next;
      for (const std::string& m : inter)
        if (models[i].count(m)) next.insert(m);
      inter = next;
    }
    for (const auto& m : models) uni.insert(m.begin(), m.end());
    for (int i = 1; i < n; ++i)
      for (const std::string& m : models[i]) diff.erase(m);
    if (sets.size() > static_cast<size_t>(n)) diff.clear();

    std::vector<std::string> listed;
    const size_t found = intersect(sets, 0, [&](const Member& m) { listed.push_back(m.to_string()); });
    CHECK(found == inter.size());
    CHECK(std::set<std::string>(listed.begin(), listed.end()) == inter);
    // In the order of the smallest set (the first of the smallest).
    const Set* smallest = *std::min_element(sets.begin(), sets.end(),
                                            [](const Set* a, const Set* b) { return a->size() < b->size(); });
    std::vector<std::string> order;
    for (const std::string& m : members(*smallest))
      if (inter.count(m)) order.push_back(m);
    CHECK(listed == order);
    if (!inter.empty()) CHECK(intersect(sets, 1, [](const Member&) {}) == 1);

    const auto u = union_of(sets, opts);
    CHECK(as_set(*u) == uni);
    CHECK(u->encoding() == built_encoding(uni, cap));
    const auto d = difference_of(sets, opts);
    CHECK(as_set(*d) == diff);
    if (u->is_intset()) CHECK(ascending(*u));
  }
}

TEST_CASE("set algebra: SDIFF passes through a hash table when Redis's second algorithm does") {
  const SetOptions opts{.max_intset_entries = 8};
  const Set big = make({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"});
  const Set one = make({"1"}), two = make({"2"}), three = make({"3"});
  // Algorithm 1 (|first| per set, halved, <= the sum of sizes): built from
  // what is left, 9 integers, more than 8: a hash table.
  const Set* few[] = {&big, &one};
  CHECK(difference_of(few, opts)->encoding() == "hashtable");
  const Set* small_first[] = {&one, &big};
  CHECK(difference_of(small_first, opts)->empty());
  // Algorithm 2 (10 * 4 / 2 = 20 > 10 + 3): all of big first, 10 > 8, so a
  // hash table even though 7 integers are left.
  const Set* many[] = {&big, &one, &two, &three};
  const auto d = difference_of(many, opts);
  CHECK(d->size() == 7);
  CHECK(d->encoding() == "hashtable");
  // {a, 1, 2} - {a}: algorithm 1 adds 1 and 2 only: an intset.
  const Set mixed = make({"a", "1", "2"}), a = make({"a"});
  const Set* m[] = {&mixed, &a};
  const auto r = difference_of(m, opts);
  CHECK(r->encoding() == "intset");
  CHECK(members(*r) == std::vector<std::string>{"1", "2"});
  // A missing first key: empty; a missing other key: nothing taken away.
  const Set* missing_first[] = {nullptr, &one};
  CHECK(difference_of(missing_first, opts)->empty());
  const Set* missing_other[] = {&one, nullptr};
  CHECK(members(*difference_of(missing_other, opts)) == std::vector<std::string>{"1"});
}

TEST_CASE("set algebra: sample_distinct draws distinct members, every one equally often") {
  std::mt19937_64 rng(11);
  for (bool strings : {false, true}) {
    Set s;
    for (int i = 0; i < 30; ++i) s.add(strings ? "m" + std::to_string(i) : std::to_string(i * 7), {});
    for (size_t count : {1, 5, 9, 10, 11, 29}) {  // both strategies: count * 3 > 30 or not
      CAPTURE(count);
      std::map<std::string, int> hits;
      for (int round = 0; round < 3000; ++round) {
        const auto picked = sample_distinct(s, count, rng);
        REQUIRE(picked.size() == count);
        std::set<std::string> distinct;
        for (const Member& m : picked) {
          REQUIRE(s.contains(m));
          distinct.insert(m.to_string());
          ++hits[m.to_string()];
        }
        REQUIRE(distinct.size() == count);
      }
      CHECK(hits.size() == 30);
      const double expected = 3000.0 * static_cast<double>(count) / 30.0;
      for (const auto& [m, n] : hits) CHECK(std::abs(n - expected) < 6 * std::sqrt(expected) + 1);
    }
  }
}

TEST_CASE("set: memory grows with members and the copy is deep") {
  Set s;
  const size_t empty = s.memory_bytes();
  for (int i = 0; i < 100; ++i) s.add(std::to_string(i), {});
  CHECK(s.memory_bytes() == empty + 8 + 100 * 2);
  s.add("x", {});
  const size_t table = s.memory_bytes();
  CHECK(table > empty + 101 * 8);
  const auto copy = s.clone();
  CHECK(copy->memory_bytes() == table);
  s.remove("x");
  CHECK(static_cast<const Set&>(*copy).contains("x"));
}

}  // namespace lawnkv::types
