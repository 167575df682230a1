#pragma once
// maxmemory: freeing memory by evicting keys, as Redis 7.0's
// performEvictions, with the victims chosen by store/eviction.hpp.
//
// Before every command (when maxmemory is set) dispatch calls perform(): it
// evicts until the used memory is at or under the limit. A command with the
// denyoom flag (or an EXEC whose queue holds one) is refused with Redis's
// OOM error when nothing more can be evicted. Each eviction deletes the key,
// signals it modified (WATCH, blocked clients), counts it and publishes
// `evicted` (class e), in Redis's order.
//
// Bounded work: one call evicts for at most the time
// maxmemory-eviction-tenacity allows (Redis's evictionTimeLimitUs); memory
// still over the limit then leaves the eviction pending, the command runs
// (Redis's EVICT_RUNNING), and the server goes on evicting in slices from
// its event loop (pending()) without blocking in poll, so one huge overshoot
// never stalls clients.

#include <cstdint>
#include <random>
#include <string_view>

#include "config/config.hpp"
#include "store/eviction_picker.hpp"

namespace lawnkv {

namespace store {
class Keyspace;
}

// Hears of each key evicted, after it left its db and before it is freed
// (Dataset: the DEL record, WATCH and blocked clients, `evicted`).
class EvictionListener {
 public:
  virtual ~EvictionListener() = default;
  virtual void key_evicted(int db, std::string_view key) = 0;
};

struct EvictionStats {
  uint64_t evicted_keys = 0;
  uint64_t exceeded_time_us = 0;        // total time spent over the limit
  int64_t exceeded_since_us = -1;       // over the limit since (steady clock), -1: not now
};

class Evictor {
 public:
  enum class Result {
    kOk,       // under the limit (or no limit)
    kRunning,  // still over, out of time: more in the event loop; commands run
    kFail,     // still over, nothing left to evict: denyoom commands are refused
  };

  // Takes maxmemory-policy and lfu-log-factor into the keyspace's use
  // counters and here. At start and after every CONFIG SET.
  void configure(const config::Values& cfg, store::Keyspace& keyspace);

  // Evicts from keyspace, telling listener of each key, until memory is
  // under maxmemory or the time budget is spent.
  Result perform(store::Keyspace& keyspace, EvictionListener& listener, const config::Values& cfg);
  bool pending() const { return pending_; }

  store::Policy policy() const { return policy_; }
  const EvictionStats& stats() const { return stats_; }
  void reset_stats() { stats_ = EvictionStats{.exceeded_since_us = stats_.exceeded_since_us}; }
  // Microseconds over the limit so far in the current episode (0 if under).
  uint64_t current_exceeded_us() const;

  // Redis's evictionTimeLimitUs for a tenacity of 0..100 (100: no limit).
  static uint64_t time_limit_us(int64_t tenacity);

 private:
  void mark_over(bool over);

  store::Policy policy_ = store::Policy::kNoEviction;
  store::EvictionPicker picker_;
  std::mt19937_64 rng_{std::random_device{}()};
  EvictionStats stats_;
  bool pending_ = false;
};

}  // namespace lawnkv
