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
  int64_t now_us() const { return us_at(wall_ns()); }
  int64_t now_ms() const { return now_us() / 1000; }

  // The wall clock's own reading in nanoseconds, without the offset; and
  // now_us() as of such a reading. A command's snapshot and the start of
  // its duration in commandstats are one reading (as Redis's call() takes
  // one ustime() for both): a clock read is a few percent of a small
  // command's cost. Durations of wall_ns() readings are unmoved by DEBUG
  // ADVANCE-TIME.
  static int64_t wall_ns();
  int64_t us_at(int64_t wall_ns) const { return wall_ns / 1000 + offset_us_; }

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
