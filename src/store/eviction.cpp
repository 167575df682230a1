#include "store/eviction.hpp"

#include "core/ascii.hpp"

namespace lawnkv::store {

std::optional<Policy> parse_policy(std::string_view name) {
  static constexpr std::pair<std::string_view, Policy> kNames[] = {
      {"noeviction", Policy::kNoEviction},         {"allkeys-lru", Policy::kAllkeysLru},
      {"allkeys-lfu", Policy::kAllkeysLfu},        {"allkeys-random", Policy::kAllkeysRandom},
      {"volatile-lru", Policy::kVolatileLru},      {"volatile-lfu", Policy::kVolatileLfu},
      {"volatile-random", Policy::kVolatileRandom}, {"volatile-ttl", Policy::kVolatileTtl},
  };
  for (const auto& [n, p] : kNames)
    if (iequals(name, n)) return p;
  return std::nullopt;
}

AccessMode access_mode(Policy p) {
  switch (p) {
    case Policy::kAllkeysLru:
    case Policy::kVolatileLru: return AccessMode::kLru;
    case Policy::kAllkeysLfu:
    case Policy::kVolatileLfu: return AccessMode::kLfu;
    default: return AccessMode::kNone;
  }
}

void UseCounter::lfu_increment(Entry& e) {
  const uint8_t c = e.use();
  if (c >= Entry::kMaxUse) return;
  // Redis's LFULogIncr: the higher the counter, the less likely a step.
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  const double r = static_cast<double>(rng_ >> 11) * 0x1.0p-53;
  if (r < 1.0 / (static_cast<double>(c) * static_cast<double>(log_factor_) + 1.0)) e.set_use(c + 1);
}


}  // namespace lawnkv::store
