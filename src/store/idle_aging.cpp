#include "store/idle_aging.hpp"

namespace lawnkv::store {

bool IdleAging::due(const Keyspace& ks, int64_t now_ms) const {
  return running_ || (now_ms >= next_start_ms_ && ks.total_keys() > 0);
}

uint8_t IdleAging::class_for(int64_t idle_s, int64_t now_ms) const {
  // During a pass the key may yet be met by it: the pass under way is the
  // next one, at no wait.
  if (running_) return idle_class_for(idle_s, pass_ - 1, 0);
  const int64_t wait_ms = next_start_ms_ > now_ms ? next_start_ms_ - now_ms : 0;
  return idle_class_for(idle_s, pass_, wait_ms);
}

bool IdleAging::step(Keyspace& ks, int64_t now_ms, size_t budget) {
  if (!running_) {
    // The clock went back (DEBUG ADVANCE-TIME, a wall clock step): a pass
    // in at most one period.
    if (next_start_ms_ > now_ms + kPassPeriodMs) next_start_ms_ = now_ms + kPassPeriodMs;
    if (now_ms < next_start_ms_ || ks.total_keys() == 0) return false;
    running_ = true;
    ++pass_;
    started_ms_ = now_ms;
    db_ = 0;
    cursor_ = 0;
  }
  // Work counts buckets as well as keys: a sparse table costs its walk.
  size_t work = 0;
  auto visit = [this, &work](Entry& e) {
    const uint8_t c = e.idle_class();
    if (pass_raises(c, pass_)) e.set_idle_class(static_cast<uint8_t>(c + 1));
    ++work;
  };
  while (db_ < ks.databases()) {
    const Dict& dict = ks.db(db_).dict();
    if (dict.size() != 0) {
      cursor_ = dict.scan(cursor_, visit);
      ++work;
    } else {
      cursor_ = 0;
    }
    if (cursor_ == 0) ++db_;
    if (work >= budget && db_ < ks.databases()) return true;
  }
  running_ = false;
  next_start_ms_ = started_ms_ + kPassPeriodMs;
  return false;
}

}  // namespace lawnkv::store
