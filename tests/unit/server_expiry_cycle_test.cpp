// server::timer_delay_us: the wait the expiry cycle sets its timer for, from the
// clock's now (us) and the next deadline (ms). A table of edge values: due
// already, due in the next ms, mid-millisecond rounding, and deadlines so far
// away that (deadline + 1) * 1000 overflows int64 (PXAT 1e16 .. kNever - 1).

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>

#include "expiry/timer.hpp"
#include "server/expiry_cycle.hpp"

namespace lawnkv::server {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;  // Unix ms
constexpr int64_t kNowUs = kNow * 1000;

TEST_CASE("timer_delay_us: kNever arms no timer") {
  CHECK(timer_delay_us(kNowUs, expiry::kNever) == std::nullopt);
  CHECK(timer_delay_us(0, expiry::kNever) == std::nullopt);
}

TEST_CASE("timer_delay_us: due once now > deadline, never early") {
  struct Row {
    int64_t now_us;
    int64_t deadline_ms;
    uint64_t delay_us;
  };
  const Row rows[] = {
      {kNowUs, kNow - 1'000'000, 0},  // long past
      {kNowUs, kNow - 1, 0},          // due now
      {kNowUs, kNow, 1'000},          // still exists at now == deadline
      {kNowUs, kNow + 1, 2'000},
      {kNowUs + 1, kNow, 999},        // mid-millisecond: to the microsecond
      {kNowUs + 999, kNow, 1},
      {kNowUs + 999, kNow - 1, 0},
      {kNowUs, kNow + 3'600'000, 3'600'001'000},
      {0, 0, 1'000},
      {-1, -1, 1},  // a clock stepped before 1970: due at 0 us
      {-1'500, -2, 500},
      {-1'000, -2, 0},
  };
  for (const Row& r : rows) {
    INFO("now_us ", r.now_us, ", deadline ", r.deadline_ms);
    CHECK(timer_delay_us(r.now_us, r.deadline_ms) == r.delay_us);
  }
}

TEST_CASE("timer_delay_us: a deadline too far to wait for gets the longest timer, not 0") {
  const int64_t far[] = {
      kNow + static_cast<int64_t>(kMaxTimerDelayUs / 1000),
      10'000'000'000'000'000,     // PXAT 1e16: (deadline + 1) * 1000 overflows
      4'600'000'000'000'000'000,  // PXAT 4.6e18
      expiry::kNever - 1,
  };
  for (int64_t deadline : far) {
    INFO("deadline ", deadline);
    CHECK(timer_delay_us(kNowUs, deadline) == kMaxTimerDelayUs);
    CHECK(timer_delay_us(0, deadline) == kMaxTimerDelayUs);
    CHECK(timer_delay_us(INT64_MIN, deadline) == kMaxTimerDelayUs);
  }
  // Just under the cap is exact.
  CHECK(timer_delay_us(kNowUs, kNow + static_cast<int64_t>(kMaxTimerDelayUs / 1000) - 2) ==
        kMaxTimerDelayUs - 1000);
  // A clock moved to the far end of time (DEBUG ADVANCE-TIME).
  CHECK(timer_delay_us(INT64_MAX, 0) == 0);
  CHECK(timer_delay_us(INT64_MAX, INT64_MAX / 1000 - 1) == 0);
  CHECK(timer_delay_us(INT64_MAX, expiry::kNever - 1) == kMaxTimerDelayUs);
}

}  // namespace
}  // namespace lawnkv::server
