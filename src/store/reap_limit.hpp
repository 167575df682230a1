#pragma once
// How far one call of active expiry (Keyspace::reap) may go: a number of
// keys and, optionally, a time. The server's expiry cycle gives each chunk
// the end of the cycle's budget, so that a chunk whose keys happen to be
// dear (values whose memory the allocator hands back to the system as they
// are freed, cold cache lines) stops there instead of after its full count.
//
// The clock is read after every kKeysPerClockRead keys (and hash fields)
// yielded: a read of Clock::steady_ns costs about 10 ns, a reaped key
// 0.3-1 us with short values, so that is under 1% of the work, and a chunk
// overruns its stop time by at most that many keys. At least that many keys
// are reaped by each call, so a cycle always makes progress. Stopping
// midway loses nothing: the keys left due stay in the index in deadline
// order (expiry::Index::drain) and the next call takes them first.

#include <cstddef>
#include <cstdint>

#include "core/clock.hpp"

namespace lawnkv::store {

// A monotonic clock in nanoseconds; tests inject their own.
class ReapClock {
 public:
  virtual int64_t now_ns() const = 0;

 protected:
  ~ReapClock() = default;
};

// The process's steady clock (core/clock.hpp).
class SteadyReapClock final : public ReapClock {
 public:
  int64_t now_ns() const override { return Clock::steady_ns(); }
};

struct ReapLimit {
  static constexpr size_t kKeysPerClockRead = 4;

  size_t keys;
  // When set: the call stops at the first read of clock that gives stop_ns
  // or later.
  const ReapClock* clock = nullptr;
  int64_t stop_ns = INT64_MAX;
};

}  // namespace lawnkv::store
