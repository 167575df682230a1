#include "core/clock.hpp"

#include <ctime>

#include "core/deadline.hpp"

namespace lawnkv {

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

}  // namespace lawnkv
