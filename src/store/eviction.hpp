#pragma once
// Choosing keys to evict when memory passes maxmemory: Redis 7.0's eight
// policies, with lawnkv's own ways of choosing.
//
// Use counters, not timestamps. Redis keeps 24 bits per key (an LRU clock,
// or an LFU counter and its decrement time) and samples 5 keys per eviction.
// lawnkv keeps a 3-bit use counter in spare bits of the key's header
// (Entry::use(), no memory per key) and a clock hand per db that walks the
// dictionary in SCAN order. A new key starts at 0: until it is used again it
// is on probation, and the hand's first visit evicts it (one-hit wonders and
// scans leave before keys in use, as in 2Q or S3-FIFO).
//   - LRU is CLOCK (second chance): an access sets the counter to 1; the
//     hand clears a 1 and passes on, and evicts a key it finds at 0, i.e.
//     one not used since the hand last came by.
//   - LFU is a frequency CLOCK with a bounded probation: an access raises
//     the counter with Redis's logarithmic rule, probability
//     1 / (counter * lfu-log-factor + 1), up to 7, and the hand evicts a key
//     it finds at 0. The keys at 0 (new ones not used since, and ones decayed
//     to 0) are the probation, and Db counts them (Db::probation()). While
//     they are more than a fifth of the db (kProbationShare) the hand passes
//     keys in use untouched; at a fifth or less it lowers a counter c with
//     probability 1 / 2^(c - 1) (decay: a key left alone at c survives about
//     2^c - 1 lowering passes). So keys in use decay only as fast as keys
//     leave the probation by being used again, as S3-FIFO's main queue
//     gives up a key only when its small queue of new keys is at or under
//     its share: a key used once in a while stays, while one-hit wonders and
//     scans go through the probation alone. A fifth, not S3-FIFO's tenth:
//     lawnkv has no ghost queue (the names of keys recently evicted from
//     the small queue, admitted straight to the main one when they come
//     back), so the probation itself must last long enough for a key of
//     moderate use to be seen twice. The price is slower forgetting when
//     popularity drifts (bench/results/eviction-notes.md has both).
//     volatile-lfu keeps the unbounded rule (the hand lowers at every
//     visit): the count covers every key, not the ones with a TTL.
// Worked examples (pinned by tests/unit/store_eviction_test.cpp), hand at
// a, keys a b c d in SCAN order:
//   LRU, counters 1 0 1 1. The hand clears a, evicts b. Next eviction: it
//   clears c and d, wraps, finds a at 0 and evicts it (a was not used since
//   the hand cleared it).
//   allkeys-lfu, counters 1 0 0 1. Probation 2 of 4, more than a fifth:
//   the hand passes a, evicts b; then (1 of 3) evicts c. Now 0 of 2: it
//   lowers d to 0, the probation (1 of 2) is over its share again, so it
//   passes a and evicts d; a stays at 1 (the unbounded rule clears a and d
//   on its way and evicts a).
//
// Cost: the hand visits each key at most once per counter step, so one
// eviction is amortised O(1) entries under LRU and O(7) under LFU. A db is
// drawn only if it holds a candidate, so a walk always ends with a victim;
// the longest walk (every counter at its top) is kMaxUse + 1 passes. Under
// allkeys-lfu a walk that passes keys untouched has at least a fifth of the
// db at 0, all candidates, before it: a pass at most (the walk counts its
// visits and lowers again after one pass, whatever the count says).

#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "store/entry.hpp"

namespace lawnkv::store {

enum class Policy : uint8_t {
  kNoEviction,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};
// maxmemory-policy's names, any case.
std::optional<Policy> parse_policy(std::string_view name);

// What an access does to a key's use counter.
enum class AccessMode : uint8_t { kNone, kLru, kLfu };
AccessMode access_mode(Policy p);

// Use counter rules (see above): what an access does. A new key's counter
// is 0 (Entry's default).
class UseCounter {
 public:
  void set_mode(AccessMode m) { mode_ = m; }
  AccessMode mode() const { return mode_; }
  void set_log_factor(int64_t f) { log_factor_ = f < 0 ? 0 : f; }

  void on_access(Entry& e) {
    if (mode_ == AccessMode::kNone) return;
    if (mode_ == AccessMode::kLru) return e.set_use(1);
    lfu_increment(e);
  }

 private:
  void lfu_increment(Entry& e);

  AccessMode mode_ = AccessMode::kNone;
  int64_t log_factor_ = 10;
  uint64_t rng_ = 0x9E3779B97F4A7C15ull;  // xorshift state: one per server is enough
};


}  // namespace lawnkv::store
