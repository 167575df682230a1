#pragma once
// Counters the keyspace keeps for INFO stats: hits, misses, expired keys, and
// how late active expiry reaped keys (the lag users have asked Redis for).

#include <array>
#include <cstddef>
#include <cstdint>

namespace lawnkv::store {

// Lag of each actively reaped key: reap time minus deadline, in ms. A key is
// due once now > deadline, so 1 ms is the earliest possible reap. Exact
// buckets to 255 ms, then one per power of two (upper bound reported).
class LagHistogram {
 public:
  void record(int64_t lag_ms);
  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  // The smallest lag L such that at least q (0..1) of the samples are <= L.
  int64_t percentile(double q) const;
  void reset() { *this = LagHistogram(); }

 private:
  static constexpr int kExact = 256;
  static constexpr int kLog = 56;
  std::array<uint64_t, kExact + kLog> buckets_{};
  uint64_t count_ = 0;
  int64_t max_ = 0;
};

struct KeyspaceStats {
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_keys = 0;        // by active and lazy expiry
  uint64_t expired_active = 0;      // of which reaped by the expiry engine
  uint64_t expired_subkeys = 0;     // hash fields whose TTL passed
  // Written by the server's expiry cycle (server/expiry_cycle.hpp); a cycle
  // is one run of it, at most one budget of work.
  uint64_t expire_cycles = 0;  // cycles that reaped at least one key
  // Cycles that stopped at their budget with keys still due: what Redis
  // counts in expired_time_cap_reached_count.
  uint64_t expired_time_cap_reached_count = 0;
  uint64_t expire_cycle_time_us = 0;  // wall time spent in cycles, all of them
  LagHistogram lag;

  void reset() { *this = KeyspaceStats(); }
};

}  // namespace lawnkv::store
