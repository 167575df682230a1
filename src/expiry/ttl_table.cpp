#include "expiry/ttl_table.hpp"

#include <bit>
#include <cassert>

namespace lawnkv::expiry {

bool TtlTable::arrival(int64_t ttl) {
  if (sketch_.empty()) sketch_.resize(kSketchBuckets * kSketchWays);
  constexpr int kBucketBits = std::countr_zero(static_cast<unsigned>(kSketchBuckets));
  Candidate* b = &sketch_[(hash(ttl) >> (64 - kBucketBits)) * kSketchWays];
  Candidate* victim = b;
  for (int w = 0; w < kSketchWays; ++w) {
    if (b[w].ttl == ttl) {
      if (++b[w].count < kHotAfter) return false;
      b[w] = Candidate{};
      return true;
    }
    if (b[w].count < victim->count) victim = &b[w];
  }
  *victim = Candidate{ttl, 1};
  if (++misses_ == kAgeEvery) age();
  return kHotAfter <= 1;
}

void TtlTable::age() {
  misses_ = 0;
  for (Candidate& c : sketch_) c.count >>= 1;
}

void TtlTable::make_hot(int64_t ttl, LawnQueue* queue) {
  assert(ttl > 0 && find(ttl) == nullptr);
  if ((hot_count_ + 1) * 2 > hot_.size()) grow();
  size_t i = hash(ttl) >> hot_shift_;
  while (hot_[i].ttl != 0) i = (i + 1) & hot_mask_;
  hot_[i] = HotSlot{ttl, queue};
  ++hot_count_;
}

void TtlTable::make_cold(int64_t ttl) {
  if (hot_count_ == 0) return;
  size_t i = hash(ttl) >> hot_shift_;
  while (hot_[i].ttl != ttl) {
    if (hot_[i].ttl == 0) return;
    i = (i + 1) & hot_mask_;
  }
  // Backward-shift deletion: pull later members of the probe run into the
  // hole unless their home lies cyclically in (hole, j].
  for (size_t j = i;;) {
    j = (j + 1) & hot_mask_;
    if (hot_[j].ttl == 0) break;
    const size_t home = hash(hot_[j].ttl) >> hot_shift_;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    hot_[i] = hot_[j];
    i = j;
  }
  hot_[i] = HotSlot{};
  --hot_count_;
}

void TtlTable::grow() {
  std::vector<HotSlot> old = std::move(hot_);
  const size_t capacity = old.empty() ? 16 : old.size() * 2;
  hot_.assign(capacity, HotSlot{});
  hot_mask_ = capacity - 1;
  hot_shift_ = 64 - std::countr_zero(capacity);
  for (const HotSlot& s : old) {
    if (s.ttl == 0) continue;
    size_t i = hash(s.ttl) >> hot_shift_;
    while (hot_[i].ttl != 0) i = (i + 1) & hot_mask_;
    hot_[i] = s;
  }
}

void TtlTable::clear() {
  hot_.clear();
  hot_mask_ = 0;
  hot_shift_ = 64;
  hot_count_ = 0;
  sketch_.clear();
  misses_ = 0;
}

}  // namespace lawnkv::expiry
