#include "commands/keys_ops.hpp"

#include <limits>

#include "core/glob.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

// A keyspace notification for key in db, which need not be the selected one.
void notify_in(DbContext& call, int db, uint32_t cls, std::string_view event, std::string_view key) {
  call.data.notifier.notify(cls, event, key, db);
}

// The deadline an attach() call needs to keep e's TTL: -1 for none.
int64_t deadline_of(const store::Entry& e) { return e.has_ttl() ? e.deadline() : -1; }

// Before SWAPDB: what the WATCHes of db `emptied` see when its contents are
// replaced by those of db `incoming` (Redis's touchAllWatchedKeysInDb). A
// watched key present on either side is a change, unless it is expired on
// the incoming side: then a watcher that saw it expired sees no change.
// (WatchTable::touch_db's predicate is used to list the watched keys.)
void touch_watched_for_swap(store::Keyspace& ks, int emptied, int incoming, int64_t now_ms) {
  std::vector<std::string> watched;
  ks.watches().touch_db(emptied, [&](std::string_view key) {
    watched.emplace_back(key);
    return false;
  });
  for (const std::string& key : watched) {
    const bool was_there = ks.db(emptied).peek(key) != nullptr;
    const store::Entry* next = ks.db(incoming).peek(key);
    if (next != nullptr && !next->expired_at(now_ms))
      ks.watches().touch(emptied, key, true);   // a live value arrives: every watcher
    else if (was_there)
      ks.watches().touch(emptied, key, false);  // the key leaves, or arrives expired
  }
}

}  // namespace

std::string_view type_name(const store::Entry* e) {
  if (e == nullptr) return "none";
  switch (e->type()) {
    case store::Type::kString: return "string";
    case store::Type::kDehydrator: return "dehy-type";
    case store::Type::kHash: return "hash";
    case store::Type::kHashField: break;  // never a key
    case store::Type::kSet: return "set";
    case store::Type::kList: return "list";
    case store::Type::kZSet: return "zset";
    case store::Type::kStream: return "stream";
  }
  return "none";
}

bool op_delete(DbContext& call, std::string_view key) {
  if (lookup_write(call, key) == nullptr) return false;
  call.db().remove(key);
  call.modified(key, pubsub::kGeneric, "del");
  return true;
}

OpStatus op_rename(DbContext& call, std::string_view from, std::string_view to, bool nx) {
  store::Entry* src = lookup_write(call, from);
  if (src == nullptr) return OpStatus::kNoKey;
  if (from == to) return OpStatus::kSkipped;
  const int64_t deadline = deadline_of(*src);
  store::Db& db = call.db();
  if (lookup_write(call, to) != nullptr) {
    if (nx) return OpStatus::kKeyExists;
    db.remove(to);
  }
  store::EntryPtr moving = db.detach(from);
  db.attach(store::Entry::take_value(*moving, to, deadline >= 0), deadline);
  call.notify(pubsub::kNew, "new", to);
  call.modified(from);
  call.modified(to);
  call.notify(pubsub::kGeneric, "rename_from", from);
  call.notify(pubsub::kGeneric, "rename_to", to);
  return OpStatus::kOk;
}

OpStatus op_copy(DbContext& call, std::string_view from, int dst_db, std::string_view to,
                   bool replace) {
  const store::Entry* src = lookup_read(call, from);
  if (src == nullptr) return OpStatus::kNoKey;
  store::Db& dst = call.data.keyspace.db(dst_db);
  const bool target_exists = dst.lookup(to, call.now_ms) != nullptr;
  if (target_exists && !replace) return OpStatus::kKeyExists;
  const int64_t deadline = deadline_of(*src);
  store::EntryPtr copy = store::Entry::make_copy(*src, to, deadline >= 0);
  if (target_exists) dst.remove(to);
  dst.attach(std::move(copy), deadline);
  notify_in(call, dst_db, pubsub::kNew, "new", to);
  call.data.modified(dst_db, to);
  notify_in(call, dst_db, pubsub::kGeneric, "copy_to", to);
  return OpStatus::kOk;
}

OpStatus op_move(DbContext& call, std::string_view key, int dst_db) {
  store::Entry* src = lookup_write(call, key);
  if (src == nullptr) return OpStatus::kNoKey;
  const int64_t deadline = deadline_of(*src);
  store::Db& dst = call.data.keyspace.db(dst_db);
  if (dst.lookup(key, call.now_ms) != nullptr) return OpStatus::kKeyExists;
  dst.attach(call.db().detach(key), deadline);
  notify_in(call, dst_db, pubsub::kNew, "new", key);
  call.modified(key);
  call.data.modified(dst_db, key);
  call.notify(pubsub::kGeneric, "move_from", key);
  notify_in(call, dst_db, pubsub::kGeneric, "move_to", key);
  return OpStatus::kOk;
}

void op_swap_dbs(DbContext& call, int a, int b) {
  store::Keyspace& ks = call.data.keyspace;
  touch_watched_for_swap(ks, a, b, call.now_ms);
  touch_watched_for_swap(ks, b, a, call.now_ms);
  ks.swap_dbs(a, b);
  call.data.changed();
  // Cached keys carry no db: whatever a client cached from either db may
  // have changed, so every tracking client is told so (a null, as after a
  // flush). Redis 7.0 tells none.
  call.data.tracking.invalidate_all();
  // Clients blocked on a key of either db may find it ready now.
  if (!call.data.blocking.empty()) {
    call.data.blocking.signal_db(a);
    call.data.blocking.signal_db(b);
  }
}

std::vector<std::string_view> op_keys(DbContext& call, std::string_view pattern) {
  const bool all = pattern == "*";
  std::vector<std::string_view> keys;
  call.db().dict().for_each([&](const store::Entry& e) {
    if (e.expired_at(call.now_ms)) return;
    if (all || glob_match(pattern, e.key())) keys.emplace_back(e.key());
  });
  return keys;
}

const store::Entry* op_random_key(DbContext& call) {
  store::Db& db = call.db();
  // A keyspace that keeps expired keys (a replica, a pause) may hold only
  // those: after 100 draws one is answered, as Redis's dbRandomKey does on
  // a replica.
  int tries = 100;
  for (;;) {
    const store::Entry* e = db.random_entry(call.data.keyspace.rng());
    if (e == nullptr || !e->expired_at(call.now_ms)) return e;
    if (call.data.keyspace.keep_expired() && --tries == 0) return e;
    db.lookup_untouched(e->key(), call.now_ms);  // deletes it: the draw starts over
  }
}

uint64_t op_scan(DbContext& call, uint64_t cursor, const ScanOptions& opts,
                 std::vector<std::string>* keys) {
  store::Db& db = call.db();
  const size_t count = static_cast<size_t>(opts.count);
  long long max_steps = opts.count > std::numeric_limits<long long>::max() / 10
                            ? std::numeric_limits<long long>::max()
                            : opts.count * 10;
  std::vector<std::string> found;
  do {
    cursor = db.dict().scan(cursor, [&](const store::Entry& e) { found.emplace_back(e.key()); });
  } while (cursor != 0 && max_steps-- > 0 && found.size() < count);

  keys->clear();
  for (std::string& key : found) {
    if (opts.use_pattern && !glob_match(opts.pattern, key)) continue;
    if (opts.has_type && !iequals(opts.type, type_name(lookup_read_untouched(call, key)))) continue;
    const store::Entry* e = db.peek(key);
    if (e != nullptr && e->expired_at(call.now_ms)) {
      db.lookup_untouched(key, call.now_ms);  // lazy expiry, as Redis's SCAN does
      continue;
    }
    keys->push_back(std::move(key));
  }
  return cursor;
}

}  // namespace lawnkv
