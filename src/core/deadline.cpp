#include "core/deadline.hpp"

#include <cmath>

namespace lawnkv {

TimeoutDeadline timeout_deadline(long double seconds, int64_t now_ms) {
  // Redis 7.2's checks (7.0.15 has none: its replies to such timeouts are
  // what its undefined conversions happen to give, see
  // commands/time_args.hpp). ceill first: every integer above INT64_MAX is
  // >= 2^63, exactly representable, so the comparison is exact; NaN fails it.
  const long double ms = std::ceil(seconds * 1000.0L);
  if (ms < 0) return {TimeoutStatus::kNegative};
  if (!(ms < 0x1p63L)) return {TimeoutStatus::kOutOfRange};
  const int64_t timeout_ms = static_cast<int64_t>(ms);
  if (timeout_ms == 0) return {TimeoutStatus::kOk, kNoDeadline};
  const std::optional<int64_t> at = deadline_after(now_ms, timeout_ms);
  if (!at) return {TimeoutStatus::kOutOfRange};
  return {TimeoutStatus::kOk, *at};
}

}  // namespace lawnkv
