#pragma once
// The server's one clock: Unix time in milliseconds and microseconds, read
// through this object only, so tests can move it (DEBUG ADVANCE-TIME) instead of
// sleeping. Readers take a snapshot once per loop iteration and once per
// command (as Redis's commandTimeSnapshot); the clock itself is never cached.

#include <cstdint>

namespace lawnkv {

class Clock {
 public:
  // Wall-clock Unix time plus the injected offset.
  int64_t now_us() const;
  int64_t now_ms() const { return now_us() / 1000; }

  // The clock never reads outside [0, kMaxUs] (year 146,000): every "now"
  // is >= 0, and now + anything the wall clock may add still fits.
  static constexpr int64_t kMaxUs = INT64_MAX / 2;

  // Moves this clock by delta_ms (forward or back) for everyone who reads it,
  // and returns true; false (nothing moves) if that would take it out of
  // [0, kMaxUs].
  bool advance_ms(int64_t delta_ms);
  int64_t offset_ms() const { return offset_us_ / 1000; }

 private:
  int64_t offset_us_ = 0;
};

}  // namespace lawnkv
