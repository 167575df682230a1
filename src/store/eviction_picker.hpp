#pragma once
// Which key to evict next (Redis's evictionPoolPopulate and its pool, done
// differently): the use counters' rules are in store/eviction.hpp, whose
// header explains the hand, the sampling and the worked examples.

#include <cstdint>
#include <random>
#include <vector>

#include "store/eviction.hpp"

namespace lawnkv::store {

class Db;
class Keyspace;

// A key the picker took out of its db (no TTL left in the index), for the
// caller to announce and free.
struct Evicted {
  int db = -1;
  EntryPtr entry;  // nullptr: no key qualified
};

class EvictionPicker {
 public:
  // Takes the next key to evict under p (not kNoEviction) out of its db: a
  // db drawn in proportion to its candidate keys, then the key its hand (or
  // the random draw, or the expiry index) gives. Changes use counters as the
  // hand passes. entry is nullptr when no key qualifies.
  Evicted take(Keyspace& ks, Policy p, std::mt19937_64& rng);

  // allkeys-lfu lowers counters only while the keys at 0 are at most
  // 1 / kProbationShare of the db.
  static constexpr size_t kProbationShare = 5;

 private:
  // The db to evict from: one with candidates, drawn by their count.
  Db* draw_db(Keyspace& ks, bool volatile_only, std::mt19937_64& rng);
  uint64_t& hand_of(const Db& db);
  // The key the db's hand evicts: the unbounded rule (LRU, volatile-lfu),
  // and allkeys-lfu's, which lowers a counter only while the probation is
  // at most 1 / kProbationShare of db (see above).
  Entry* clock(Db& db, bool volatile_only);
  Entry* clock_bounded(Db& db);
  // Whether the hand lowers counter c (> 0) this time: probability 2^-(c-1).
  bool lower(uint8_t c);
  Entry* random(Db& db, bool volatile_only, std::mt19937_64& rng);

  std::vector<uint64_t> hands_;  // per db: a SCAN cursor
  uint64_t coin_ = 0x2545F4914F6CDD1Dull;  // xorshift state for lower()
};

}  // namespace lawnkv::store
