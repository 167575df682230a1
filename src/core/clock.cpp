#include "core/clock.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "core/deadline.hpp"

namespace lawnkv {

namespace {

// steady_ns's counter and scale: ns = ticks * mult >> 32, ticks counted
// from origin. mult 0: CLOCK_MONOTONIC instead.
struct TickScale {
  uint64_t origin = 0;
  uint64_t mult = 0;
};

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

#if defined(__x86_64__)
bool kernel_times_with_tsc() {
  std::FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (f == nullptr) return false;
  char name[32] = {};
  const bool read = std::fgets(name, sizeof name, f) != nullptr;
  std::fclose(f);
  return read && std::strcmp(name, "tsc\n") == 0;
}

// A (counter, CLOCK_MONOTONIC) pair read back to back: the counter is the
// mean of a read before and after, retried while the two lie far apart
// (the thread lost its CPU in between).
bool tick_pair(uint64_t* ticks, int64_t* ns) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint64_t before = __rdtsc();
    const int64_t t = monotonic_ns();
    const uint64_t after = __rdtsc();
    if (after - before < 20000) {
      *ticks = before + (after - before) / 2;
      *ns = t;
      return true;
    }
  }
  return false;
}

// The counter's rate over 2 ms of CLOCK_MONOTONIC, once per process.
TickScale measure_ticks() {
  TickScale scale;
  if (!kernel_times_with_tsc()) return scale;
  uint64_t t0, t1;
  int64_t n0, n1;
  if (!tick_pair(&t0, &n0)) return scale;
  do {
    if (!tick_pair(&t1, &n1)) return scale;
  } while (n1 - n0 < 2'000'000);
  const uint64_t ticks = t1 - t0;
  const uint64_t ns = static_cast<uint64_t>(n1 - n0);
  // 100 MHz to 20 GHz, or the reading is not to be trusted.
  if (ticks < ns / 10 || ticks > ns * 20) return scale;
  scale.origin = t0;
  scale.mult = static_cast<uint64_t>((static_cast<unsigned __int128>(ns) << 32) / ticks);
  return scale;
}
#else
TickScale measure_ticks() { return {}; }
#endif

// Measured before main, read-only after.
const TickScale kTicks = measure_ticks();

}  // namespace

int64_t Clock::steady_ns() {
#if defined(__x86_64__)
  if (kTicks.mult != 0) {
    // Signed: a CPU whose counter trails the first one's by a few ticks
    // reads a little before the origin, not 2^64 after it.
    const auto ticks = static_cast<int64_t>(__rdtsc() - kTicks.origin);
    return static_cast<int64_t>((static_cast<__int128>(ticks) * static_cast<__int128>(kTicks.mult)) >> 32);
  }
#endif
  return monotonic_ns();
}

int64_t Clock::wall_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool Clock::advance_ms(int64_t delta_ms) {
  const std::optional<int64_t> delta_us = checked_mul(delta_ms, 1000);
  if (!delta_us) return false;
  const std::optional<int64_t> offset = checked_add(offset_us_, *delta_us);
  if (!offset) return false;
  const std::optional<int64_t> now = checked_add(now_us() - offset_us_, *offset);
  if (!now || *now < 0 || *now > kMaxUs) return false;
  offset_us_ = *offset;
  return true;
}

int64_t Clock::thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace lawnkv
