#include "store/stats.hpp"

#include <bit>

namespace lawnkv::store {

void LagHistogram::record(int64_t lag_ms) {
  if (lag_ms < 0) lag_ms = 0;
  size_t b;
  if (lag_ms < kExact) {
    b = static_cast<size_t>(lag_ms);
  } else {
    // 256..511 -> kExact, 512..1023 -> kExact + 1, ...
    b = kExact + (std::bit_width(static_cast<uint64_t>(lag_ms)) - 9);
    if (b >= buckets_.size()) b = buckets_.size() - 1;
  }
  ++buckets_[b];
  ++count_;
  if (lag_ms > max_) max_ = lag_ms;
}

int64_t LagHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const double want = q * static_cast<double>(count_);
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (static_cast<double>(seen) >= want && buckets_[b] > 0) {
      if (b < kExact) return static_cast<int64_t>(b);
      int64_t upper = (int64_t{512} << (b - kExact)) - 1;
      return upper < max_ ? upper : max_;
    }
  }
  return max_;
}

}  // namespace lawnkv::store
