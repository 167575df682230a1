#include "engine/evictor.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "core/allocator.hpp"
#include "store/keyspace.hpp"

namespace lawnkv {

namespace {

uint64_t steady_us() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

uint64_t Evictor::time_limit_us(int64_t tenacity) {
  if (tenacity <= 10) return 50 * static_cast<uint64_t>(tenacity > 0 ? tenacity : 0);
  if (tenacity < 100) return static_cast<uint64_t>(500.0 * std::pow(1.15, static_cast<double>(tenacity - 10)));
  return std::numeric_limits<uint64_t>::max();
}

void Evictor::configure(const config::Values& cfg, store::Keyspace& keyspace) {
  policy_ = store::parse_policy(cfg.maxmemory_policy).value_or(store::Policy::kNoEviction);
  store::UseCounter& use = keyspace.use_counter();
  use.set_mode(store::access_mode(policy_));
  use.set_log_factor(cfg.lfu_log_factor);
}

uint64_t Evictor::current_exceeded_us() const {
  return stats_.exceeded_since_us < 0 ? 0 : steady_us() - static_cast<uint64_t>(stats_.exceeded_since_us);
}

void Evictor::mark_over(bool over) {
  if (over && stats_.exceeded_since_us < 0) {
    stats_.exceeded_since_us = static_cast<int64_t>(steady_us());
  } else if (!over && stats_.exceeded_since_us >= 0) {
    stats_.exceeded_time_us += steady_us() - static_cast<uint64_t>(stats_.exceeded_since_us);
    stats_.exceeded_since_us = -1;
  }
}

Evictor::Result Evictor::perform(store::Keyspace& keyspace, EvictionListener& listener,
                                 const config::Values& cfg) {
  pending_ = false;
  const uint64_t limit = static_cast<uint64_t>(cfg.maxmemory);
  if (limit == 0 || allocator::used_bytes() <= limit) {
    mark_over(false);
    return Result::kOk;
  }
  mark_over(true);
  if (policy_ == store::Policy::kNoEviction) return Result::kFail;
  const uint64_t budget = time_limit_us(cfg.maxmemory_eviction_tenacity);
  const uint64_t start = steady_us();
  size_t evicted = 0;
  while (allocator::used_bytes() > limit) {
    store::Evicted victim = picker_.take(keyspace, policy_, rng_);
    if (!victim.entry) return Result::kFail;
    // Redis's order: the key is gone, then WATCH and blocked clients hear
    // of it, then `evicted` is published; the entry is freed last (the
    // events read its name).
    const std::string_view key = victim.entry->key();
    ++stats_.evicted_keys;
    listener.key_evicted(victim.db, key);
    victim.entry.reset();
    // The clock is read every 16 keys, as Redis does.
    if ((++evicted & 15) == 0 && steady_us() - start > budget) {
      if (allocator::used_bytes() <= limit) break;
      pending_ = true;
      return Result::kRunning;
    }
  }
  mark_over(false);
  return Result::kOk;
}

}  // namespace lawnkv
