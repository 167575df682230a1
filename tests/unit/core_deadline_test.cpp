// Deadline and timeout arithmetic (src/core/deadline.hpp): the header's
// worked example, then every helper at the int64 edges, where a wrapped
// result would pass for a valid one.

#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>

#include "core/clock.hpp"
#include "core/deadline.hpp"

using namespace lawnkv;

namespace {

constexpr int64_t kNow = 1'700'000'000'000;
constexpr int64_t kMax = INT64_MAX;
constexpr int64_t kMin = INT64_MIN;

}  // namespace

TEST_CASE("deadline: the header's worked example") {
  CHECK(deadline_after(kNow, 5000) == 1'700'000'005'000);
  CHECK(deadline_after(kNow, kMax) == std::nullopt);
  CHECK(seconds_to_ms(9'223'372'036'854'775) == 9'223'372'036'854'775'000);
  CHECK(seconds_to_ms(9'223'372'036'854'776) == std::nullopt);
  CHECK(rounded_seconds(kMax) == 9'223'372'036'854'776);
  CHECK(us_until_due(kNow, kNow * 1000) == 1000);
  const TimeoutDeadline t = timeout_deadline(0.0015L, kNow);
  CHECK(t.status == TimeoutStatus::kOk);
  CHECK(t.deadline_ms == kNow + 2);
  CHECK(timeout_deadline(1e16L, kNow).status == TimeoutStatus::kOutOfRange);
}

TEST_CASE("deadline: checked and saturating sums and products at the int64 edges") {
  CHECK(checked_add(kMax, 0) == kMax);
  CHECK(checked_add(kMax, 1) == std::nullopt);
  CHECK(checked_add(kMin, -1) == std::nullopt);
  CHECK(checked_add(kMin, kMax) == -1);
  CHECK(checked_add(kMax - kNow, kNow) == kMax);
  CHECK(checked_add(kMax - kNow + 1, kNow) == std::nullopt);
  CHECK(checked_mul(kMax / 1000, 1000) == kMax / 1000 * 1000);
  CHECK(checked_mul(kMax / 1000 + 1, 1000) == std::nullopt);
  CHECK(checked_mul(kMin / 1000, 1000) == kMin / 1000 * 1000);
  CHECK(checked_mul(kMin / 1000 - 1, 1000) == std::nullopt);
  CHECK(checked_mul(kMin, -1) == std::nullopt);
  CHECK(saturating_add(kMax, 1) == kMax);
  CHECK(saturating_add(kNow, kMax) == kMax);
  CHECK(saturating_add(kMin, -1) == kMin);
  CHECK(saturating_add(-5, kMin) == kMin);
  CHECK(saturating_add(kMax, kMin) == -1);
  // EXPIRE's seconds, both ways (Redis: when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000).
  CHECK(seconds_to_ms(-9'223'372'036'854'775) == -9'223'372'036'854'775'000);
  CHECK(seconds_to_ms(-9'223'372'036'854'776) == std::nullopt);
  CHECK(seconds_to_ms(0) == 0);
}

TEST_CASE("deadline: rounded_seconds is (ms + 500) / 1000 over the whole range") {
  for (int64_t ms : {int64_t{0}, int64_t{499}, int64_t{500}, int64_t{1499}, kNow + 499, kNow + 500, kMax - 500,
                     kMax - 499, kMax}) {
    CAPTURE(ms);
    CHECK(rounded_seconds(ms) == static_cast<int64_t>((static_cast<__int128>(ms) + 500) / 1000));
  }
  CHECK(rounded_seconds(499) == 0);
  CHECK(rounded_seconds(500) == 1);
  CHECK(rounded_seconds(kMax - 307) == 9'223'372'036'854'776);  // ...775,500: rounds up
  CHECK(rounded_seconds(kMax - 308) == 9'223'372'036'854'775);
}

TEST_CASE("deadline: us_until_due never fires early and never wraps to 'at once'") {
  const int64_t now_us = kNow * 1000 + 250;  // 0.25 ms into kNow
  CHECK(us_until_due(kNow - 1, now_us) == 0);    // already passed
  CHECK(us_until_due(kNow, now_us) == 750);      // due at kNow + 1 ms
  CHECK(us_until_due(kNow + 10, now_us) == 10'750);
  // Every deadline far ahead waits about as long as it is far, none 0
  // (the old (next + 1) * 1000 wrapped for 2^62: the loop spun).
  for (int shift = 41; shift <= 53; ++shift) {
    const int64_t deadline = int64_t{1} << shift;
    CAPTURE(shift);
    CHECK(us_until_due(deadline, now_us) == static_cast<uint64_t>(deadline - kNow + 1) * 1000 - 250);
  }
  CHECK(us_until_due(int64_t{1} << 62, now_us) == UINT64_MAX);  // past uint64's µs: saturates
  CHECK(us_until_due(kMax, now_us) == UINT64_MAX);  // saturates
  CHECK(us_until_due(kMax, 0) == UINT64_MAX);
  CHECK(us_until_due(kMin, now_us) == 0);
}

TEST_CASE("deadline: timeouts as Redis 7.2's getTimeoutFromObjectOrReply") {
  struct Row {
    long double seconds;
    TimeoutStatus status;
    int64_t deadline;  // when kOk
  };
  const Row rows[] = {
      {0, TimeoutStatus::kOk, kNoDeadline},
      {-0.0001L, TimeoutStatus::kOk, kNoDeadline},  // ceil(-0.1) is -0: no timeout, as Redis
      {-0.001L, TimeoutStatus::kOk, kNoDeadline},  // -0.99999999999999999997 ms in long double: -0
      {-0.002L, TimeoutStatus::kNegative, 0},
      {-1, TimeoutStatus::kNegative, 0},
      {-1e300L, TimeoutStatus::kNegative, 0},
      {-INFINITY, TimeoutStatus::kNegative, 0},
      {1e-300L, TimeoutStatus::kOk, kNow + 1},  // rounded up to 1 ms
      {0.5L, TimeoutStatus::kOk, kNow + 500},
      {1, TimeoutStatus::kOk, kNow + 1000},
      {2147483648.0L, TimeoutStatus::kOk, kNow + 2'147'483'648'000},
      {9007199254740992.0L, TimeoutStatus::kOk, kNow + 9'007'199'254'740'992'000},  // 2^53 s
      {9223370336854776.0L, TimeoutStatus::kOutOfRange, 0},  // ms fit, now + ms does not
      {9223372036854775.0L, TimeoutStatus::kOutOfRange, 0},
      {(kMax - kNow) / 1000, TimeoutStatus::kOk, kNow + (kMax - kNow) / 1000 * 1000},
      {1e16L, TimeoutStatus::kOutOfRange, 0},
      {1e300L, TimeoutStatus::kOutOfRange, 0},
      {9223372036854775807.0L, TimeoutStatus::kOutOfRange, 0},
      {INFINITY, TimeoutStatus::kOutOfRange, 0},
      {NAN, TimeoutStatus::kOutOfRange, 0},  // the parser refuses NaN first; still no UB here
  };
  for (const Row& r : rows) {
    CAPTURE(static_cast<double>(r.seconds));
    const TimeoutDeadline t = timeout_deadline(r.seconds, kNow);
    CHECK(t.status == r.status);
    if (r.status == TimeoutStatus::kOk) CHECK(t.deadline_ms == r.deadline);
  }
  // now + ms == INT64_MAX still fits (and is never reached); one more does not.
  CHECK(timeout_deadline(0.001L, kMax - 1).deadline_ms == kMax);
  CHECK(timeout_deadline(0.002L, kMax - 1).status == TimeoutStatus::kOutOfRange);
}

TEST_CASE("clock: DEBUG ADVANCE-TIME cannot move it below 0 or past kMaxUs") {
  Clock clock;
  const int64_t before = clock.now_ms();
  CHECK_FALSE(clock.advance_ms(kMax));
  CHECK_FALSE(clock.advance_ms(kMin));
  CHECK_FALSE(clock.advance_ms(-before - 1'000'000));
  CHECK_FALSE(clock.advance_ms(Clock::kMaxUs / 1000));
  CHECK(clock.offset_ms() == 0);
  CHECK(clock.advance_ms(-before + 1'000'000));  // to about 1000 s after 1970
  CHECK(clock.now_ms() >= 1'000'000);
  CHECK(clock.now_ms() < 2'000'000);
  CHECK(clock.advance_ms(before - 1'000'000));
  CHECK(clock.now_ms() >= before);
}

TEST_CASE("clock: a frozen clock holds its reading while the wall clock runs; advance_ms still moves it") {
  Clock clock;
  CHECK(clock.advance_ms(5'000));
  clock.freeze(true);
  CHECK(clock.frozen());
  const int64_t frozen = clock.now_us();
  // 2 ms of real time (the wall clock's own reading), spun for, at most 5 s.
  const int64_t start = Clock::wall_ns();
  const int64_t give_up = Clock::steady_ns() + 5'000'000'000;
  while (Clock::wall_ns() - start < 2'000'000 && Clock::steady_ns() < give_up) {
  }
  REQUIRE(Clock::wall_ns() - start >= 2'000'000);
  CHECK(clock.now_us() == frozen);
  // A command's snapshot (us_at of a wall reading) is frozen too.
  CHECK(clock.us_at(Clock::wall_ns()) == frozen);
  clock.freeze(true);  // again: nothing changes
  CHECK(clock.now_us() == frozen);
  CHECK(clock.advance_ms(-1'000));
  CHECK(clock.now_us() == frozen - 1'000'000);
  // Thawed: the wall clock plus the offset (4 s), as if never frozen, so
  // the 2 ms spun show at once.
  clock.freeze(false);
  CHECK_FALSE(clock.frozen());
  CHECK(clock.offset_ms() == 4'000);
  const int64_t thawed = clock.now_us();
  CHECK(thawed >= frozen - 1'000'000 + 2'000);
  CHECK(thawed - Clock::wall_ns() / 1000 <= 4'000'000);
  CHECK(thawed - Clock::wall_ns() / 1000 > 4'000'000 - 1'000'000);
}
