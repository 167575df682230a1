#include "core/latency_histogram.hpp"

namespace lawnkv {

int64_t LatencyHistogram::value_at_index(size_t index) {
  int bucket = static_cast<int>(index >> kHalfMagnitude) - 1;
  int64_t slot = static_cast<int64_t>(index & (kHalfCount - 1)) + kHalfCount;
  if (bucket < 0) {
    slot -= kHalfCount;
    bucket = 0;
  }
  return slot << bucket;
}

int64_t LatencyHistogram::value_at_percentile(double percentile) const {
  const double p = percentile < 100.0 ? percentile : 100.0;
  uint64_t wanted = static_cast<uint64_t>(p / 100 * static_cast<double>(total_) + 0.5);
  if (wanted == 0) wanted = 1;
  int64_t value = 0;
  uint64_t seen = 0;
  for (size_t i = 0; i < kCounts; ++i) {
    seen += counts_[i];
    if (seen >= wanted) {
      value = value_at_index(i);
      break;
    }
  }
  return percentile == 0.0 ? lowest_equivalent(value) : highest_equivalent(value);
}

std::vector<std::pair<int64_t, uint64_t>> LatencyHistogram::cumulative_steps() const {
  // HdrHistogram's logarithmic iterator, step by step: walk the counters
  // until one at or past the next reporting level (1024 ns, then twice
  // that...), report there.
  std::vector<std::pair<int64_t, uint64_t>> out;
  int64_t level = 1024;
  int64_t level_low = lowest_equivalent(level);
  long index = -1;              // the counter walked to last
  int64_t value = 0;            // its value
  int64_t highest = 0;          // its highest equivalent value
  uint64_t cumulative = 0;
  uint64_t reported = 0;
  auto report = [&] {
    if (cumulative > reported) out.emplace_back(highest / 1000, cumulative);
    reported = cumulative;
  };
  for (;;) {
    const bool more_past_level =
        index < static_cast<long>(kCounts) && value_at_index(static_cast<size_t>(index + 1)) > level_low;
    if (cumulative >= total_ && !more_past_level) break;
    for (;;) {
      if (value >= level_low) {
        level *= 2;
        level_low = lowest_equivalent(level);
        break;
      }
      if (++index >= static_cast<long>(kCounts)) break;
      cumulative += counts_[static_cast<size_t>(index)];
      value = value_at_index(static_cast<size_t>(index));
      highest = highest_equivalent(value);
    }
    report();
    if (index >= static_cast<long>(kCounts)) break;
  }
  return out;
}

}  // namespace lawnkv
