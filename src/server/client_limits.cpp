#include "server/client_limits.hpp"

#include <algorithm>

namespace lawnkv::server {

bool idle_timed_out(const Session& s, int64_t now_ms, int64_t timeout_s) {
  if (timeout_s <= 0 || s.blocked || s.subscribed() || s.replica || s.master) return false;
  return unix_seconds(now_ms) - unix_seconds(s.last_interaction_ms) > timeout_s;
}

size_t clients_per_tick(size_t clients, int64_t hz) {
  constexpr size_t kMinPerTick = 5;  // Redis's CLIENTS_CRON_MIN_ITERATIONS
  const size_t share = clients / static_cast<size_t>(std::max<int64_t>(hz, 1));
  return share >= kMinPerTick ? share : std::min(clients, kMinPerTick);
}

bool output_limit_reached(int64_t used, const config::OutputLimit& lim, int64_t now_ms, int64_t* soft_since_ms) {
  const bool hard = lim.hard_bytes > 0 && used >= lim.hard_bytes;
  const bool soft = lim.soft_bytes > 0 && used >= lim.soft_bytes;
  bool soft_reached = false;
  if (!soft) {
    *soft_since_ms = -1;
  } else if (*soft_since_ms < 0) {
    *soft_since_ms = now_ms;  // first seen over it: the clock starts
  } else {
    soft_reached = unix_seconds(now_ms) - unix_seconds(*soft_since_ms) > lim.soft_seconds;
  }
  return hard || soft_reached;
}

int64_t pause_output_bytes(const config::OutputLimit& lim) {
  return std::max({kPauseOutputBytes, lim.hard_bytes, lim.soft_bytes});
}

}  // namespace lawnkv::server
