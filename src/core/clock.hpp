#pragma once
// The server's one clock: Unix time in milliseconds and microseconds, read
// through this object only, so tests can move it (DEBUG ADVANCE-TIME) instead of
// sleeping, and stop it (DEBUG FREEZE-TIME) so that the real time their
// round trips take moves nothing. Readers take a snapshot once per loop
// iteration and once per command (as Redis's commandTimeSnapshot); the clock
// itself is never cached.

#include <cstdint>

namespace lawnkv {

class Clock {
 public:
  // Wall-clock Unix time plus the injected offset (while frozen, the wall
  // clock as it read when it froze, plus the offset).
  int64_t now_us() const { return us_at(wall_ns()); }
  int64_t now_ms() const { return now_us() / 1000; }

  // The wall clock's own reading in nanoseconds, without the offset; and
  // now_us() as of such a reading (a command's snapshot). Every reader of
  // the server's time goes through us_at, so a freeze holds for all of
  // them: commands, the loop's snapshots, the expiry cycle, the crons.
  static int64_t wall_ns();
  int64_t us_at(int64_t wall_ns) const { return (frozen_ ? frozen_wall_ns_ : wall_ns) / 1000 + offset_us_; }

  // The clock of durations (commandstats, the slow log, the latency
  // monitor, a script's time limit): nanoseconds from an arbitrary origin,
  // never going back, unmoved by DEBUG ADVANCE-TIME. Where the kernel keeps
  // its own time with the CPU's time-stamp counter (its clocksource is
  // "tsc": a constant rate, the same on every CPU), it is that counter
  // scaled by its rate, measured against CLOCK_MONOTONIC when the process
  // starts: a read costs a third of a clock_gettime on a virtual machine,
  // and a script times each command it runs. Elsewhere CLOCK_MONOTONIC.
  static int64_t steady_ns();
  // CPU time the calling thread has used, in nanoseconds
  // (CLOCK_THREAD_CPUTIME_ID): what a piece of work cost the thread, which
  // other processes competing for the CPU do not change (a system call,
  // about a microsecond on a virtual machine).
  static int64_t thread_cpu_ns();

  // The clock never reads outside [0, kMaxUs] (year 146,000): every "now"
  // is >= 0, and now + anything the wall clock may add still fits.
  static constexpr int64_t kMaxUs = INT64_MAX / 2;

  // Moves this clock by delta_ms (forward or back) for everyone who reads it,
  // and returns true; false (nothing moves) if that would take it out of
  // [0, kMaxUs].
  bool advance_ms(int64_t delta_ms);
  int64_t offset_ms() const { return offset_us_ / 1000; }

  // Stops the clock (true) or lets it run again (false); a test's hook
  // (DEBUG FREEZE-TIME), so that no assertion depends on how fast the
  // machine is. While frozen the clock reads the wall clock of the moment
  // it froze plus the offset: only advance_ms moves it. Unfrozen, it reads
  // the wall clock plus the offset again, as if it had never stopped: it
  // jumps forward by the real time spent frozen, and the offset stays the
  // sum of what advance_ms added. Freezing a frozen clock, or thawing a
  // running one, changes nothing. steady_ns is never frozen (durations are
  // real), nor is the static wall_ns.
  void freeze(bool on) {
    if (on && !frozen_) frozen_wall_ns_ = wall_ns();
    frozen_ = on;
  }
  bool frozen() const { return frozen_; }

 private:
  int64_t offset_us_ = 0;
  bool frozen_ = false;
  int64_t frozen_wall_ns_ = 0;  // the wall clock when it froze
};

}  // namespace lawnkv
