#include "store/eviction_picker.hpp"

#include "store/keyspace.hpp"

namespace lawnkv::store {

namespace {

bool is_volatile(Policy p) {
  return p == Policy::kVolatileLru || p == Policy::kVolatileLfu || p == Policy::kVolatileRandom ||
         p == Policy::kVolatileTtl;
}

}  // namespace

Db* EvictionPicker::draw_db(Keyspace& ks, bool volatile_only, std::mt19937_64& rng) {
  const int n = ks.databases();
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += volatile_only ? ks.db(i).expires() : ks.db(i).size();
  if (total == 0) return nullptr;
  size_t r = rng() % total;
  for (int i = 0; i < n; ++i) {
    const size_t count = volatile_only ? ks.db(i).expires() : ks.db(i).size();
    if (r < count) return &ks.db(i);
    r -= count;
  }
  return nullptr;
}

uint64_t& EvictionPicker::hand_of(const Db& db) {
  if (hands_.size() <= static_cast<size_t>(db.id())) hands_.resize(db.id() + 1, 0);
  return hands_[db.id()];
}

Entry* EvictionPicker::clock(Db& db, bool volatile_only) {
  uint64_t& hand = hand_of(db);
  // db holds a candidate (draw_db), whose counter the hand lowers at each
  // pass: the walk ends within kMaxUse + 1 passes, one amortised over the
  // evictions that follow it.
  Entry* victim = nullptr;
  while (victim == nullptr) {
    hand = db.dict().scan(hand, [&](Entry& e) {
      if (victim != nullptr || (volatile_only && !e.has_ttl())) return;
      const uint8_t use = e.use();
      if (use == 0) {
        victim = &e;
      } else if (lower(use)) {
        db.set_use(e, use - 1);
      }
    });
  }
  return victim;
}

Entry* EvictionPicker::clock_bounded(Db& db) {
  uint64_t& hand = hand_of(db);
  // While the probation is larger than its share, the keys at 0 are at
  // least that share of db, all candidates: one pass finds one. The count
  // of visits makes that true even if the probation count were wrong; then
  // the walk ends as clock()'s does.
  Entry* victim = nullptr;
  const size_t size = db.size();
  size_t visited = 0;
  while (victim == nullptr) {
    hand = db.dict().scan(hand, [&](Entry& e) {
      if (victim != nullptr) return;
      const uint8_t use = e.use();
      if (use == 0) {
        victim = &e;
      } else if ((++visited > size || db.probation() * kProbationShare <= size) && lower(use)) {
        db.set_use(e, use - 1);
      }
    });
  }
  return victim;
}

bool EvictionPicker::lower(uint8_t c) {
  if (c == 1) return true;
  coin_ ^= coin_ << 13;
  coin_ ^= coin_ >> 7;
  coin_ ^= coin_ << 17;
  return (coin_ & ((uint64_t{1} << (c - 1)) - 1)) == 0;
}

Entry* EvictionPicker::random(Db& db, bool volatile_only, std::mt19937_64& rng) {
  Entry* e = db.random_entry(rng);
  if (!volatile_only || e->has_ttl()) return e;
  // The first key with a TTL from a random place (db holds one: draw_db).
  uint64_t cursor = rng();
  Entry* found = nullptr;
  while (found == nullptr)
    cursor = db.dict().scan(cursor, [&](Entry& c) {
      if (found == nullptr && c.has_ttl()) found = &c;
    });
  return found;
}

Evicted EvictionPicker::take(Keyspace& ks, Policy p, std::mt19937_64& rng) {
  const bool volatile_only = is_volatile(p);
  if (p == Policy::kVolatileTtl) {
    Db* best = nullptr;
    int64_t earliest = expiry::kNever;
    for (int i = 0; i < ks.databases(); ++i) {
      Db& db = ks.db(i);
      if (db.expires() == 0) continue;
      const int64_t d = db.next_deadline();  // a lower bound: exact within a db, not across
      if (best == nullptr || d < earliest) {
        best = &db;
        earliest = d;
      }
    }
    if (best == nullptr) return {};
    return {best->id(), best->take_nearest_deadline()};
  }
  Db* db = draw_db(ks, volatile_only, rng);
  if (db == nullptr) return {};
  Entry* victim = nullptr;
  switch (p) {
    case Policy::kAllkeysRandom:
    case Policy::kVolatileRandom: victim = random(*db, volatile_only, rng); break;
    case Policy::kAllkeysLfu: victim = clock_bounded(*db); break;
    default: victim = clock(*db, volatile_only); break;
  }
  if (victim == nullptr) return {};
  return {db->id(), db->detach(victim->key())};
}

}  // namespace lawnkv::store
