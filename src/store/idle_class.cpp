#include "store/idle_class.hpp"

namespace lawnkv::store {

uint8_t idle_class_for(int64_t idle_s, uint64_t last_pass, int64_t next_pass_in_ms) {
  if (idle_s >= idle_floor_s(kMaxIdleClass)) return kMaxIdleClass;
  for (uint8_t c = kMaxIdleClass; c > 0; --c) {
    if (idle_floor_s(c) > idle_s) continue;
    if (c == kMaxIdleClass) return c;
    // The next pass that raises c: the first after last_pass with c
    // trailing zeros, k passes from now.
    uint64_t k = 1;
    while (!pass_raises(c, last_pass + k)) ++k;
    const int64_t wait_ms = next_pass_in_ms + static_cast<int64_t>(k - 1) * kPassPeriodMs;
    if (idle_s * 1000 + wait_ms >= idle_floor_s(static_cast<uint8_t>(c + 1)) * 1000) return c;
  }
  return 0;
}

}  // namespace lawnkv::store
