#include "core/clock.hpp"

#include <ctime>

namespace lawnkv {

int64_t Clock::now_us() const {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000 + offset_us_;
}

}  // namespace lawnkv
