#pragma once
// A command's latencies as Redis 7.0 keeps them for `latency-tracking`
// (INFO latencystats, LATENCY HISTOGRAM): an HdrHistogram from 1 ns to
// 1 s with 2 significant digits, so percentiles round as Redis's do and
// the numbers mean the same.
//
// Layout (HdrHistogram's, for lowest 1, highest 1e9, 2 digits): 256
// sub-buckets to tell values apart to 1 part in 200; bucket 0 holds
// 0..255 exactly, bucket b >= 1 holds values of 8 + b bits in 128 slots of
// 2^b each, up to bucket 22 (1e9 < 2^30), 24 * 128 = 3072 counters.
// Worked example: 1500 ns has 11 bits, bucket 3, slot 1500 >> 3 = 187
// (index 4 * 128 + 187 - 128 = 571); the slot holds 1496..1503, so
// its lowest equivalent value is 1496 and its highest 1503. Recording is
// a bit scan, a shift and an increment.
//
// A value is recorded in ns, clamped to 1 ns .. 1 s. Redis measures whole
// microseconds and records them times 1000 (a 0 us command as 1 ns);
// callers do the same.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace lawnkv {

class LatencyHistogram {
 public:
  static constexpr int64_t kLowest = 1;
  static constexpr int64_t kHighest = 1'000'000'000;

  void record(int64_t ns) {
    ns = ns < kLowest ? kLowest : ns > kHighest ? kHighest : ns;
    ++counts_[index_of(ns)];
    ++total_;
  }
  uint64_t total() const { return total_; }

  // hdr_value_at_percentile: the highest value equivalent to the one at
  // percentile (0..100) of the recorded values (at 0: the lowest).
  int64_t value_at_percentile(double percentile) const;

  // LATENCY HISTOGRAM's steps (hdr_iter_log from 1024 ns, base 2): for
  // each power of two of 1024 ns up to the largest value, the highest
  // value equivalent to it in us and how many values were at or below it,
  // the steps that added none left out.
  std::vector<std::pair<int64_t, uint64_t>> cumulative_steps() const;

 private:
  static constexpr int kHalfMagnitude = 7;         // 128 slots per bucket past the first
  static constexpr int64_t kHalfCount = 1 << kHalfMagnitude;
  static constexpr int kBuckets = 23;
  static constexpr size_t kCounts = (kBuckets + 1) * kHalfCount;

  static int bucket_of(int64_t v) { return 64 - __builtin_clzll(static_cast<uint64_t>(v) | 255) - 8; }
  static size_t index_of(int64_t v) {
    const int b = bucket_of(v);
    return static_cast<size_t>(((b + 1) << kHalfMagnitude) + ((v >> b) - kHalfCount));
  }
  static int64_t value_at_index(size_t index);
  static int64_t lowest_equivalent(int64_t v) {
    const int b = bucket_of(v);
    return (v >> b) << b;
  }
  static int64_t highest_equivalent(int64_t v) { return lowest_equivalent(v) + (int64_t{1} << bucket_of(v)) - 1; }

  std::array<uint64_t, kCounts> counts_{};
  uint64_t total_ = 0;
};

}  // namespace lawnkv
