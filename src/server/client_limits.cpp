#include "server/client_limits.hpp"

#include <algorithm>

namespace lawnkv::server {

namespace {

// Whole Unix seconds (floor), as Redis's server.unixtime.
int64_t unix_seconds(int64_t ms) { return ms / 1000 - (ms % 1000 < 0 ? 1 : 0); }

}  // namespace

bool idle_timed_out(const Session& s, int64_t now_ms, int64_t timeout_s) {
  if (timeout_s <= 0 || s.blocked || s.subscribed()) return false;
  return unix_seconds(now_ms) - unix_seconds(s.last_interaction_ms) > timeout_s;
}

size_t clients_per_tick(size_t clients, int64_t hz) {
  constexpr size_t kMinPerTick = 5;  // Redis's CLIENTS_CRON_MIN_ITERATIONS
  const size_t share = clients / static_cast<size_t>(std::max<int64_t>(hz, 1));
  return share >= kMinPerTick ? share : std::min(clients, kMinPerTick);
}

}  // namespace lawnkv::server
