#pragma once
// The passes that age the keys' idle classes (store/idle_class.hpp has the
// rule and its bounds): a pass over every db in SCAN order, in steps of
// bounded work, every kPassPeriodMs. The server runs the steps from its
// loop (server/aging_cron.hpp); tests call step() on their own clock.

#include <cstddef>
#include <cstdint>

#include "store/idle_class.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::store {

// The aging passes: one starts when the previous has ended and kPassPeriodMs
// have gone by since it started (the first at once), and runs in steps.
class IdleAging {
 public:
  // Keys (and buckets) visited a step: at most that many cache misses.
  static constexpr size_t kPassStep = 512;

  // Whether a step has something to do at now_ms: a pass under way, or one
  // due (and keys to visit).
  bool due(const Keyspace& ks, int64_t now_ms) const;
  // When the next pass starts (Unix ms); meaningful while no pass runs.
  int64_t next_start_ms() const { return next_start_ms_; }
  bool running() const { return running_; }
  // The number of the pass under way, or of the last one (0: none yet).
  uint64_t pass() const { return pass_; }

  // Starts a pass if one is due, then visits up to budget keys of the pass
  // under way. Returns true if the pass is not over.
  bool step(Keyspace& ks, int64_t now_ms, size_t budget = kPassStep);

  // idle_class_for at now_ms.
  uint8_t class_for(int64_t idle_s, int64_t now_ms) const;

 private:
  uint64_t pass_ = 0;
  bool running_ = false;
  int64_t started_ms_ = 0;     // of the pass under way
  int64_t next_start_ms_ = 0;  // the first pass starts at once
  int db_ = 0;                 // the pass's place: db, and SCAN cursor in it
  uint64_t cursor_ = 0;
};

}  // namespace lawnkv::store
