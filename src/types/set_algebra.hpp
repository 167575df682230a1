#pragma once
// Operations over several sets (SINTER, SINTERCARD, SUNION, SDIFF and their
// STORE forms) and SRANDMEMBER's sampling without repetition.
//
// They follow Redis 7.0's t_set.c step for step where the steps show: a
// result is built by adding members one at a time to a new set, so it is an
// intset exactly when Redis's would be (all members integers, and never more
// than set-max-intset-entries of them along the way), and replies walk it in
// the same kind of order (ascending for an intset). SDIFF picks between
// Redis's two algorithms with Redis's cost estimate, since the second one
// may pass through a hash table on the way to a small integer result.
//
// A null set stands for a missing key: an empty set.

#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "types/set.hpp"

namespace lawnkv::types {

// SINTER over sets (none null): calls fn(const Member&) for each member that
// every set holds, in the order of the smallest set (the first of the
// smallest, when sizes tie), and stops after limit of them (0: no limit).
// Returns how many.
template <class F>
size_t intersect(std::span<const Set* const> sets, size_t limit, F&& fn);

// SUNION: every member of any set.
std::unique_ptr<Set> union_of(std::span<const Set* const> sets, const SetOptions& opts);
// SDIFF: the members of sets[0] that no other set holds.
std::unique_ptr<Set> difference_of(std::span<const Set* const> sets, const SetOptions& opts);

// SRANDMEMBER key count, 0 < count < s.size(): count distinct members in a
// random order, each subset equally likely.
std::vector<Member> sample_distinct(const Set& s, size_t count, std::mt19937_64& rng);

template <class F>
size_t intersect(std::span<const Set* const> sets, size_t limit, F&& fn) {
  std::vector<const Set*> by_size(sets.begin(), sets.end());
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const Set* a, const Set* b) { return a->size() < b->size(); });
  const Set* smallest = by_size[0];
  size_t found = 0;
  smallest->for_each([&](const Member& m) {
    for (size_t j = 1; j < by_size.size(); ++j)
      if (by_size[j] != smallest && !by_size[j]->contains(m)) return true;
    fn(m);
    return ++found != limit;
  });
  return found;
}

}  // namespace lawnkv::types
