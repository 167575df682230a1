// The clock of durations (Clock::steady_ns, src/core/clock.hpp): it never
// goes back, and it runs at CLOCK_MONOTONIC's rate (the time-stamp
// counter's measured rate, where the kernel keeps time with it).

#include <doctest/doctest.h>

#include <cstdint>
#include <ctime>

#include "core/clock.hpp"

using namespace lawnkv;

namespace {

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

TEST_CASE("clock: steady_ns never goes back") {
  int64_t last = Clock::steady_ns();
  for (int i = 0; i < 100000; ++i) {
    const int64_t now = Clock::steady_ns();
    REQUIRE(now >= last);
    last = now;
  }
}

// A steady reading and a CLOCK_MONOTONIC one taken together: the steady
// one is the mean of a reading before and after, retried while those lie
// far apart (the thread lost its CPU in between).
void pair(int64_t* steady, int64_t* mono) {
  for (;;) {
    const int64_t before = Clock::steady_ns();
    const int64_t m = monotonic_ns();
    const int64_t after = Clock::steady_ns();
    if (after - before < 50'000) {
      *steady = before + (after - before) / 2;
      *mono = m;
      return;
    }
  }
}

TEST_CASE("clock: steady_ns runs at CLOCK_MONOTONIC's rate") {
  // 50 ms of CLOCK_MONOTONIC, spun rather than slept: a scale wrong by more
  // than 1% (a mismeasured rate, a tick taken for a nanosecond) shows.
  int64_t s0, m0, s1, m1;
  pair(&s0, &m0);
  do {
    pair(&s1, &m1);
  } while (m1 - m0 < 50'000'000);
  const double ratio = static_cast<double>(s1 - s0) / static_cast<double>(m1 - m0);
  CAPTURE(ratio);
  CHECK(ratio > 0.99);
  CHECK(ratio < 1.01);
}

}  // namespace
