#pragma once
// Operations over several sorted sets (ZUNION, ZINTER, ZDIFF, their STORE
// forms, and ZINTERCARD's count), beside the plain sets' (set_algebra.hpp).
//
// They follow Redis 7.0's zunionInterDiffGenericCommand: an input is a
// sorted set, a set whose members score 1, or a missing key (empty); for
// union and intersection the inputs are taken smallest first (stably),
// which fixes the order in which scores are summed; a sum that is NaN
// (inf + -inf) is 0, and so is a weighted score that is NaN (inf * 0).

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "types/set.hpp"
#include "types/zset.hpp"

namespace lawnkv::types {

enum class ZSetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// One input: a sorted set, a set (scores 1), or neither (a missing key).
struct ZSource {
  const ZSet* zset = nullptr;
  const Set* set = nullptr;
  double weight = 1;

  size_t size() const { return zset ? zset->size() : set ? set->size() : 0; }
};

// The result of op over inputs (weights applied, scores combined by how;
// ZDIFF keeps the first input's scores). Reorders inputs for union and
// intersection. *max_len is the longest member's length, for
// ZSet::compact_if_fits.
std::unique_ptr<ZSet> combine(std::span<ZSource> inputs, ZSetOp op, Aggregate how, const ZSetOptions& opts,
                              size_t* max_len);

// ZINTERCARD: how many members every input holds, counting up to limit
// (0: no limit). Reorders inputs.
size_t intersection_size(std::span<ZSource> inputs, size_t limit);

}  // namespace lawnkv::types
