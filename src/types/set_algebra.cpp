#include "types/set_algebra.hpp"

#include <unordered_set>

namespace lawnkv::types {

std::unique_ptr<Set> union_of(std::span<const Set* const> sets, const SetOptions& opts) {
  auto out = std::make_unique<Set>();
  for (const Set* s : sets)
    if (s) s->for_each([&](const Member& m) { out->add(m, opts); });
  return out;
}

std::unique_ptr<Set> difference_of(std::span<const Set* const> sets, const SetOptions& opts) {
  auto out = std::make_unique<Set>();
  const Set* first = sets[0];
  if (!first) return out;
  // A key named twice as sets[0] and another: nothing is left.
  for (size_t j = 1; j < sets.size(); ++j)
    if (sets[j] == first) return out;

  // Redis's choice: algorithm 1 costs about |first| per other set (halved,
  // as it stops at the first set holding a member), algorithm 2 the sum of
  // the sizes.
  size_t one = 0, two = 0;
  for (const Set* s : sets) {
    if (!s) continue;
    one += first->size();
    two += s->size();
  }
  if (one / 2 <= two) {
    // 1: each member of the first set that no other set holds. (Redis also
    // orders the others largest first, which changes no result.)
    first->for_each([&](const Member& m) {
      for (size_t j = 1; j < sets.size(); ++j)
        if (sets[j] && sets[j]->contains(m)) return;
      out->add(m, opts);
    });
    return out;
  }
  // 2: the first set, minus every member of the others.
  first->for_each([&](const Member& m) { out->add(m, opts); });
  for (size_t j = 1; j < sets.size() && !out->empty(); ++j) {
    if (!sets[j]) continue;
    sets[j]->for_each([&](const Member& m) {
      out->remove(m);
      return !out->empty();
    });
  }
  return out;
}

std::vector<Member> sample_distinct(const Set& s, size_t count, std::mt19937_64& rng) {
  std::vector<Member> out;
  out.reserve(count);
  if (count * 3 > s.size()) {
    // Close to the whole set: a partial shuffle of all its members.
    std::vector<Member> all;
    all.reserve(s.size());
    s.for_each([&](const Member& m) { all.push_back(m); });
    for (size_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + rng() % (all.size() - i)]);
      out.push_back(all[i]);
    }
    return out;
  }
  // A small part of the set: draw until count distinct members came up
  // (at most 3 draws a member on average).
  if (s.is_intset()) {
    std::unordered_set<int64_t> seen;
    while (out.size() < count) {
      const Member m = s.random(rng);
      if (seen.insert(m.value).second) out.push_back(m);
    }
  } else {
    std::unordered_set<std::string_view> seen;
    while (out.size() < count) {
      const Member m = s.random(rng);
      if (seen.insert(m.bytes).second) out.push_back(m);
    }
  }
  return out;
}

}  // namespace lawnkv::types
