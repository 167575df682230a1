#include "store/keyspace.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace lawnkv::store {

Db::~Db() { clear(); }

Entry* Db::lookup(std::string_view key, int64_t now_ms, bool touch) {
  dict_.rehash_step();
  Entry* e = dict_.find(key);
  if (e == nullptr) return nullptr;
  if (e->expired_at(now_ms) && !owner_.primary_view_) {
    if (!owner_.keep_expired()) expire(*e, now_ms, false);
    return nullptr;
  }
  if (touch) {
    e->clear_idle();
    const bool was_new = e->use() == 0;
    owner_.use_.on_access(*e);
    probation_ -= was_new && e->use() != 0;
  }
  return e;
}

void Db::prefetch(const std::string_view* keys, size_t n) const {
  // While one key's bucket is on its way from memory, the next key is
  // hashed: up to 16 misses overlap instead of each stalling its command.
  uint64_t hashes[kPrefetchKeys];
  n = std::min(n, kPrefetchKeys);
  for (size_t i = 0; i < n; ++i) {
    hashes[i] = dict_.hash_of(keys[i]);
    dict_.prefetch_bucket(hashes[i]);
  }
  for (size_t i = 0; i < n; ++i) dict_.prefetch_chain(hashes[i]);
}

bool Db::contains_live(std::string_view key, int64_t now_ms) const {
  const Entry* e = dict_.find(key);
  return e && (owner_.primary_view_ || !e->expired_at(now_ms));
}

Entry& Db::add_string(std::string_view key, std::string_view value, bool with_timer) {
  EntryPtr e = Entry::make_string(key, value, with_timer);
  Entry& ref = *e;
  dict_.insert(std::move(e));
  joined(ref);
  return ref;
}

Entry& Db::add_object(std::string_view key, std::unique_ptr<Object> obj) {
  EntryPtr e = Entry::make_object(key, std::move(obj), false);
  Entry& ref = *e;
  dict_.insert(std::move(e));
  joined(ref);
  attached(ref);
  return ref;
}

Entry& Db::attach(EntryPtr e, int64_t deadline_ms) {
  if (deadline_ms >= 0 && !e->has_timer_slot()) e = Entry::take_value(*e, e->key(), true);
  Entry& ref = *e;
  dict_.insert(std::move(e));
  joined(ref);
  if (deadline_ms >= 0) set_deadline(ref, deadline_ms, 0);
  attached(ref);
  return ref;
}

EntryPtr Db::detach(std::string_view key) {
  Entry* e = dict_.find(key);
  if (!e) return nullptr;
  clear_deadline(*e);
  detaching(*e);
  leaving(*e);
  return dict_.remove(key);
}

bool Db::remove(std::string_view key) { return detach(key) != nullptr; }

Entry& Db::replace(Entry& e, EntryPtr fresh) {
  Entry& ref = *fresh;
  ref.set_use(e.use());
  if (e.has_ttl()) index_.relocate(e.timer(), ref.timer());
  dict_.replace(&e, std::move(fresh));  // frees e
  return ref;
}

Entry& Db::set_deadline(Entry& entry, int64_t deadline_ms, int64_t ttl_ms) {
  Entry& e = entry.has_timer_slot() ? entry : replace(entry, Entry::take_value(entry, entry.key(), true));
  expiry::Timer* t = e.timer();
  if (e.has_ttl()) {
    deadline_sum_ -= t->deadline;
    index_.reschedule(t, deadline_ms, ttl_ms);
  } else {
    index_.add(t, deadline_ms, ttl_ms);
  }
  deadline_sum_ += deadline_ms;
  return e;
}

void Db::clear_deadline(Entry& e) {
  if (!e.has_ttl()) return;
  deadline_sum_ -= e.deadline();
  index_.cancel(e.timer());
}

Entry& Db::set_string(Entry& e, std::string_view value) {
  if (e.assign_in_place(value)) {
    e.clear_idle();
    return e;
  }
  return replace(e, Entry::make_string(e.key(), value, e.has_timer_slot()));
}

int64_t Db::avg_ttl(int64_t now_ms) const {
  const size_t n = expires();
  if (n == 0) return 0;
  const int64_t avg = static_cast<int64_t>(deadline_sum_ / static_cast<__int128>(n)) - now_ms;
  return avg > 0 ? avg : 0;
}

size_t Db::clear() {
  const size_t n = dict_.size();
  dict_.clear([this](Entry& e) {
    clear_deadline(e);
    detaching(e);
  });
  deadline_sum_ = 0;
  probation_ = 0;
  return n;
}

size_t Db::reap(int64_t now_ms, const ReapLimit& limit) {
  // Due fields and keys holding long strings are expired in batches: what
  // each one's expiry will read (a field's bucket in its hash; the heap
  // string of a key's value, read to free it) is requested from memory as the
  // index hands it out, and read when the batch is full, so the misses of a
  // batch overlap instead of each stalling in turn (a field flood spent a
  // third of its time waiting for buckets). An entry stays where it is until
  // its batch runs. Any other due key first runs the batch, so keys
  // and fields still go in deadline order; if fields of the key's own hash
  // are waiting, the key's timer goes back in the index first, because
  // their expiry may delete the key (its last field gone) and cancel that
  // timer: the drain hands the key out again if it is still there. A string
  // key owns no field, and its expiry frees nothing but itself. (Batching
  // short values too cost a 16-byte flood a quarter more CPU a key.)
  Entry* batch[kReapBatch];
  size_t batched = 0;
  size_t handed_back = 0;  // keys the drain handed out twice
  size_t until_clock = ReapLimit::kKeysPerClockRead;
  const auto run_batch = [&] {
    for (size_t i = 0; i < batched; ++i) {
      if (batch[i]->type() == Type::kHashField) {
        expire_field(*batch[i]);
      } else {
        expire(*batch[i], now_ms, true);
      }
    }
    batched = 0;
  };
  // Whether the drain goes on after a key or field: false once the limit's
  // time is spent.
  const auto go_on = [&] {
    if (limit.clock == nullptr || --until_clock > 0) return true;
    until_clock = ReapLimit::kKeysPerClockRead;
    return limit.clock->now_ns() < limit.stop_ns;
  };
  const size_t n = index_.drain(now_ms, limit.keys, [&](expiry::Timer* t) {
    Entry* e = Entry::from_timer(t);
    if (e->type() == Type::kHashField) {
      e->field_owner()->prefetch_part(*e);
      batch[batched++] = e;
      if (batched == kReapBatch) run_batch();
      return go_on();
    }
    const Object* own = e->obj();
    if (own != nullptr && std::any_of(batch, batch + batched, [&](Entry* f) { return f->field_owner() == own; })) {
      index_.add(t, t->deadline, 0);
      ++handed_back;
      run_batch();
      return true;
    }
    deadline_sum_ -= t->deadline;
    owner_.stats_.lag.record(now_ms - t->deadline);
    // A long string value: freeing it reads its heap string first.
    if (const std::string* v = e->heap_str()) {
      __builtin_prefetch(v);
      batch[batched++] = e;
      if (batched == kReapBatch) run_batch();
      return go_on();
    }
    run_batch();
    expire(*e, now_ms, true);
    return go_on();
  });
  run_batch();
  return n - handed_back;
}

EntryPtr Db::take_nearest_deadline() {
  if (expires() == 0) return nullptr;
  // drain hands out timers in deadline order: with no bound, the first is
  // the nearest. A cascade cut short by its move bound yields nothing; the
  // next call goes on. Hash fields met on the way go back.
  Entry* nearest = nullptr;
  std::vector<Entry*> fields;
  while (nearest == nullptr)
    index_.drain(expiry::kNever, 1, [&](expiry::Timer* t) {
      Entry* e = Entry::from_timer(t);
      if (e->type() == Type::kHashField) return fields.push_back(e);
      nearest = e;
      deadline_sum_ -= t->deadline;
    });
  for (Entry* f : fields) index_.add(f->timer(), f->deadline(), 0);
  detaching(*nearest);
  leaving(*nearest);
  return dict_.remove(nearest->key());
}

void Db::set_field_deadline(Entry& field, int64_t deadline_ms, int64_t ttl_ms) {
  expiry::Timer* t = field.timer();
  if (expiry::Index::scheduled(t)) {
    index_.reschedule(t, deadline_ms, ttl_ms);
  } else {
    index_.add(t, deadline_ms, ttl_ms);
    ++field_timers_;
  }
}

void Db::clear_field_deadline(Entry& field) {
  expiry::Timer* t = field.timer();
  if (!expiry::Index::scheduled(t)) return;
  index_.cancel(t);
  --field_timers_;
}

void Db::expire_field(Entry& field) {
  // drain has unlinked the timer already.
  --field_timers_;
  ++owner_.stats_.expired_subkeys;
  Object* hash = field.field_owner();
  const std::string key(hash->attached_key());
  // The name outlives the field for the listener's report.
  std::string name = owner_.listener_ ? std::string(field.key()) : std::string();
  const bool emptied = hash->expire_part(field);  // frees field
  if (emptied) {
    Entry* e = dict_.find(key);
    clear_deadline(*e);
    detaching(*e);
    leaving(*e);
    dict_.remove(key);
  }
  owner_.modified(id_, key);
  if (owner_.listener_) owner_.expired_parts_.add(id_, key, std::move(name), emptied);
}

void Db::expire(Entry& e, int64_t now_ms, bool active) {
  // The entry leaves the dict first (the key is gone when subscribers hear
  // of it) and is freed last (the listener reads its name).
  clear_deadline(e);
  detaching(e);
  leaving(e);
  EntryPtr owned = dict_.remove(e.key());
  owner_.on_expired(*this, *owned, now_ms, active);
}

Keyspace::Keyspace(int databases) {
  dbs_.reserve(databases);
  for (int i = 0; i < databases; ++i) dbs_.push_back(std::make_unique<Db>(*this, i));
}

void Keyspace::swap_dbs(int a, int b) {
  std::swap(dbs_[a], dbs_[b]);
  dbs_[a]->id_ = a;
  dbs_[b]->id_ = b;
}

size_t Keyspace::total_keys() const {
  size_t n = 0;
  for (const auto& d : dbs_) n += d->size();
  return n;
}

size_t Keyspace::total_expires() const {
  size_t n = 0;
  for (const auto& d : dbs_) n += d->expires();
  return n;
}

void Keyspace::modified(int db, std::string_view key) {
  if (watches_.empty()) return;
  watches_.touch(db, key, dbs_[db]->peek(key) != nullptr);
}

size_t Keyspace::reap(int64_t now_ms, const ReapLimit& limit) {
  const ReapPass pass(*this);
  size_t done = 0;
  bool reaped_any_db = false;
  for (auto& d : dbs_) {
    if (done >= limit.keys) break;
    if (d->next_deadline() >= now_ms) continue;
    // A db after one that reaped: only while time is left.
    if (reaped_any_db && limit.clock != nullptr && limit.clock->now_ns() >= limit.stop_ns) break;
    ReapLimit rest = limit;
    rest.keys = limit.keys - done;
    done += d->reap(now_ms, rest);
    reaped_any_db = true;
  }
  return done;
}

size_t Keyspace::stage_ahead(size_t moves) {
  size_t moved = 0;
  for (auto& d : dbs_) {
    if (moved >= moves) break;
    if (d->next_deadline() == expiry::kNever) continue;
    moved += d->stage_ahead(moves - moved);
  }
  return moved;
}

size_t Keyspace::drop_due(int64_t now_ms) {
  ExpiryListener* listener = listener_;
  const KeyspaceStats stats = stats_;
  listener_ = nullptr;
  size_t n = 0;
  for (size_t step; (step = reap(now_ms, SIZE_MAX)) > 0;) n += step;
  listener_ = listener;
  stats_ = stats;
  return n;
}

int64_t Keyspace::next_deadline() const {
  int64_t next = expiry::kNever;
  for (const auto& d : dbs_) next = std::min(next, d->next_deadline());
  return next;
}

double Keyspace::stale_fraction(int64_t now_ms) {
  if (next_deadline() >= now_ms) return 0;
  const size_t with_ttl = total_expires();
  if (with_ttl == 0) return 0;
  int sampled = 0, stale = 0;
  for (int draw = 0; draw < kStaleDraws && sampled < kStaleSamples; ++draw) {
    // A db in proportion to its keys with a TTL, then any of its keys.
    size_t r = rng_() % with_ttl;
    const Db* db = nullptr;
    for (const auto& d : dbs_) {
      if (r < d->expires()) {
        db = d.get();
        break;
      }
      r -= d->expires();
    }
    const Entry* e = db->random_entry(rng_);
    if (!e->has_ttl()) continue;
    ++sampled;
    if (e->expired_at(now_ms)) ++stale;
  }
  return sampled ? static_cast<double>(stale) / sampled : 0;
}

void Keyspace::on_expired(Db& db, Entry& e, int64_t now_ms, bool active) {
  ++stats_.expired_keys;
  if (active) ++stats_.expired_active;
  if (!watches_.empty()) watches_.touch(db.id(), e.key(), false);
  if (!listener_) return;
  // A hash whose fields went earlier in this pass: those first.
  if (!expired_parts_.empty())
    expired_parts_.drain_key(db.id(), e.key(), [&](const ExpiredParts::Group& g) {
      listener_->parts_expired(g.db, g.key, g.parts, g.key_deleted);
    });
  listener_->key_expired(db.id(), e.key());
}

void Keyspace::report_parts() {
  if (expired_parts_.empty()) return;
  // The listener may be gone (drop_due) since the fields were noted.
  expired_parts_.drain([&](const ExpiredParts::Group& g) {
    if (listener_) listener_->parts_expired(g.db, g.key, g.parts, g.key_deleted);
  });
}

}  // namespace lawnkv::store
