#pragma once
// The TTL frequency table: which TTLs are hot (have a Lawn queue), and how
// often the cold ones have arrived lately.
//
// Two parts:
//   - hot map: TTL -> queue, open addressing with linear probing and
//     backward-shift deletion, load <= 1/2, 16 bytes a slot; so 32 to 64
//     bytes per hot TTL. One probe, usually one cache line, per add.
//   - sketch: 256 buckets x 4 ways of (TTL, count), 16 KiB, allocated on the
//     first cold arrival. A cold TTL counts its arrivals in its bucket; on a
//     miss it replaces the way with the smallest count. Every 4,096 misses all
//     counts halve, so "hot" means "arrived kHotAfter times recently", not
//     "ever": under a continuous spread of TTLs (1 ms..1 h) almost nothing
//     turns hot, and a TTL seen once costs one bucket probe plus a wheel
//     insert.
//
// Example: SET k1 v PX 5000, then k2, k3 with PX 5000: TTL 5000 has count 1,
// 2, 3 in the sketch and k1..k3 go to the wheel. k4 (4th arrival) makes 5000
// hot: its sketch way is freed, the index creates queue q and records
// 5000 -> q here, and k4 is q's first entry. k5 onwards: one hot-map probe and
// an append.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "expiry/lawn_queue.hpp"

namespace lawnkv::expiry {

class TtlTable {
 public:
  static constexpr uint32_t kHotAfter = 4;  // arrivals that make a TTL hot
  static constexpr int kSketchBuckets = 256;
  static constexpr int kSketchWays = 4;
  static constexpr uint32_t kAgeEvery = 4096;  // sketch misses between halvings

  // The queue of a hot ttl (> 0), or nullptr.
  LawnQueue* find(int64_t ttl) const {
    if (hot_count_ == 0) return nullptr;
    for (size_t i = hash(ttl) >> hot_shift_;; i = (i + 1) & hot_mask_) {
      const HotSlot& s = hot_[i];
      if (s.ttl == ttl) return s.queue;
      if (s.ttl == 0) return nullptr;
    }
  }

  // Counts an arrival of a cold ttl (> 0). True when it has now arrived
  // kHotAfter times lately: the caller makes it hot (make_hot) or drops it.
  bool arrival(int64_t ttl);

  // Records ttl -> queue (ttl not hot yet), or forgets a hot ttl.
  void make_hot(int64_t ttl, LawnQueue* queue);
  void make_cold(int64_t ttl);

  size_t hot_count() const { return hot_count_; }
  size_t memory_bytes() const {
    return hot_.capacity() * sizeof(HotSlot) + sketch_.capacity() * sizeof(Candidate);
  }
  void clear();

 private:
  struct HotSlot {
    int64_t ttl = 0;  // 0 = empty
    LawnQueue* queue = nullptr;
  };
  struct Candidate {
    int64_t ttl = 0;  // 0 = empty way
    uint32_t count = 0;
  };
  static uint64_t hash(int64_t ttl) {
    return static_cast<uint64_t>(ttl) * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: use the top bits
  }
  void grow();
  void age();

  std::vector<HotSlot> hot_;
  size_t hot_mask_ = 0;
  int hot_shift_ = 64;
  size_t hot_count_ = 0;
  std::vector<Candidate> sketch_;
  uint32_t misses_ = 0;
};

}  // namespace lawnkv::expiry
