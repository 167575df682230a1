#pragma once
// Deadline and timeout arithmetic: the one place where a time, a TTL or a
// timeout is added, multiplied or converted. Everything here is exact or says
// it could not be: a sum or product that does not fit in 64 bits is nullopt
// (the caller replies Redis's error), never a wrapped value.
//
// Units. A deadline is absolute Unix ms in int64 (as Redis stores it); a
// thing is due once now > deadline. kNoDeadline (INT64_MAX) is also "never"
// for whoever needs a sentinel (expiry::kNever is the same value): a deadline
// that large is never reached anyway.
//
// Worked example, now = 1,700,000,000,000 ms (pinned by
// tests/unit/core_deadline_test.cpp):
//
//   call                                     result
//   deadline_after(now, 5000)                1,700,000,005,000
//   deadline_after(now, INT64_MAX)           nullopt (EXPIRE: "invalid expire time")
//   seconds_to_ms(9,223,372,036,854,775)     9,223,372,036,854,775,000
//   seconds_to_ms(9,223,372,036,854,776)     nullopt
//   rounded_seconds(INT64_MAX)               9,223,372,036,854,776 (no wrap)
//   us_until_due(now, now * 1000)            1000 (due at now + 1 ms)
//   us_until_due(2^62, now * 1000)           UINT64_MAX (saturates; no wrap to 0)
//   timeout_deadline(0.0015, now)            {kOk, now + 2} (ceil to the ms)
//   timeout_deadline(1e16, now)              {kOutOfRange}

#include <cstdint>
#include <optional>

namespace lawnkv {

inline constexpr int64_t kNoDeadline = INT64_MAX;

// a + b, or nullopt when it does not fit in int64 (either way).
constexpr std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a * b, or nullopt when it does not fit in int64.
constexpr std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, clamped to [INT64_MIN, INT64_MAX].
constexpr int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

// The deadline of a TTL given at now_ms, or nullopt when now_ms + ttl_ms does
// not fit (Redis: "invalid expire time").
constexpr std::optional<int64_t> deadline_after(int64_t now_ms, int64_t ttl_ms) {
  return checked_add(now_ms, ttl_ms);
}

// Seconds in ms, or nullopt when the product does not fit (Redis's
// `when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000`).
constexpr std::optional<int64_t> seconds_to_ms(int64_t seconds) { return checked_mul(seconds, 1000); }

// ms in seconds, rounded half up as Redis's TTL and EXPIRETIME reply them,
// (ms + 500) / 1000, computed without overflow (EXPIRETIME of a key whose
// deadline is INT64_MAX is 9223372036854776, as redis-server replies).
constexpr int64_t rounded_seconds(int64_t ms) {
  return static_cast<int64_t>((static_cast<__int128>(ms) + 500) / 1000);
}

// How long a timer set at now_us must wait, in microseconds, for
// deadline_ms to be passed (due at deadline_ms + 1 ms, never early): 0 if it
// already is. Exact for every deadline; a wait beyond uint64 saturates.
constexpr uint64_t us_until_due(int64_t deadline_ms, int64_t now_us) {
  const __int128 wait_us = (static_cast<__int128>(deadline_ms) + 1) * 1000 - now_us;
  if (wait_us <= 0) return 0;
  return wait_us > static_cast<__int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(wait_us);
}

// A blocking command's timeout in seconds (BLPOP, REDE.BPOLL), as Redis's
// getTimeoutFromObjectOrReply turns it into a deadline: ms = ceil(seconds *
// 1000) in long double; 0 means no timeout.
enum class TimeoutStatus {
  kOk,          // deadline_ms: now_ms + ms, or kNoDeadline when ms is 0
  kNegative,    // ms < 0 (-0.0001 s is not negative: ceil gives 0, no timeout)
  kOutOfRange,  // ms, or now_ms + ms, does not fit in int64
};
struct TimeoutDeadline {
  TimeoutStatus status;
  int64_t deadline_ms = 0;
};
TimeoutDeadline timeout_deadline(long double seconds, int64_t now_ms);

}  // namespace lawnkv
