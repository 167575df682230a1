#pragma once
// The keyspace: numbered databases of keys, each with its own expiry index.
//
// Every expiry hook lives here and nowhere else: setting and clearing a
// deadline, lazy expiry on lookup, active expiry (reap), and what happens when
// a key dies of old age (stats, WATCH, the listener that publishes `expired`).
// Commands never touch the expiry index directly.

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "expiry/index.hpp"
#include "store/dict.hpp"
#include "store/entry.hpp"
#include "store/eviction.hpp"
#include "store/expired_parts.hpp"
#include "store/reap_limit.hpp"
#include "store/stats.hpp"
#include "store/watch.hpp"

namespace lawnkv::store {

class Keyspace;

// Told about keys that expire; implemented by keyspace notifications.
class ExpiryListener {
 public:
  virtual ~ExpiryListener() = default;
  // key was just deleted from db because its deadline passed (found by the
  // expiry engine or by a lazy lookup). Called exactly once per key.
  virtual void key_expired(int db, std::string_view key) = 0;
  // Parts of key's value (hash fields, named in parts in the order they
  // expired) were reaped in one pass (Keyspace::ReapPass); key_deleted: the
  // last of them took the key along. Called once per key and pass.
  virtual void parts_expired(int db, std::string_view key, std::span<const std::string> parts,
                             bool key_deleted) {}
};

class Db {
 public:
  Db(Keyspace& owner, int id) : owner_(owner), id_(id) {}
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  int id() const { return id_; }

  // The live entry for key, or nullptr. A key found expired at now_ms is
  // deleted here (lazy expiry) and reported as expired, unless the keyspace
  // keeps expired keys (Keyspace::set_keep_expired, set_replica_expiry). A
  // live key counts as used: its eviction use counter, and its idle class
  // back to 0. Under Keyspace::PrimaryView every key is live.
  Entry* lookup(std::string_view key, int64_t now_ms) { return lookup(key, now_ms, true); }
  // The same without counting a use (OBJECT looks without touching).
  Entry* lookup_untouched(std::string_view key, int64_t now_ms) { return lookup(key, now_ms, false); }
  // The entry whatever its deadline (no expiry check, no deletion).
  Entry* peek(std::string_view key) const { return dict_.find(key); }
  bool contains_live(std::string_view key, int64_t now_ms) const;
  // Starts the cache misses of looking these keys up (a pipelined batch's
  // keys, before any of its commands runs): the buckets of all of them, then
  // the first entry of each chain. At most kPrefetchKeys are used.
  static constexpr size_t kPrefetchKeys = 16;
  void prefetch(const std::string_view* keys, size_t n) const;

  // Adds an absent key holding a string, without a TTL. with_timer: it is
  // about to be given one (SET ... EX), so its block is made with the Timer.
  Entry& add_string(std::string_view key, std::string_view value, bool with_timer = false);
  // Adds an absent key holding obj, without a TTL.
  Entry& add_object(std::string_view key, std::unique_ptr<Object> obj);
  // Adds an entry detached from this or another db (RENAME, MOVE, COPY):
  // its key must be absent here. deadline_ms < 0: no TTL.
  Entry& attach(EntryPtr e, int64_t deadline_ms);
  // Takes the key out with its TTL cancelled (nullptr if absent); no expiry
  // check.
  EntryPtr detach(std::string_view key);
  // Deletes the key (no expiry check). True if it was there.
  bool remove(std::string_view key);

  // set_deadline and set_string take an entry of this db and return it: it
  // may have moved to a new block (entry.hpp), so use the returned one.
  //
  // ttl_ms > 0: the deadline came from a relative TTL of that length (it may
  // join that TTL's Lawn queue); ttl_ms <= 0: an absolute deadline.
  Entry& set_deadline(Entry& e, int64_t deadline_ms, int64_t ttl_ms);
  void clear_deadline(Entry& e);
  // Makes e hold the string value, whatever type it held; the TTL stays. A
  // new value is a new object, idle class 0, as Redis's new robj.
  Entry& set_string(Entry& e, std::string_view value);

  // Hash fields with a TTL (kHashField entries) share the keys' expiry
  // index: their deadline is set and cleared here, and reaped with the keys'.
  void set_field_deadline(Entry& field, int64_t deadline_ms, int64_t ttl_ms);
  void clear_field_deadline(Entry& field);

  size_t size() const { return dict_.size(); }
  // Keys whose eviction use counter is 0 (store/eviction.hpp): new keys not
  // used since, and keys the clock hand lowered to 0. Kept as counters move.
  size_t probation() const { return probation_; }
  // Sets e's use counter (the hand, a value rebuilt in place of an old one).
  void set_use(Entry& e, uint8_t u) {
    probation_ += (u == 0) - (e.use() == 0);
    e.set_use(u);
  }
  // Keys with a TTL (the index also holds hash fields).
  size_t expires() const { return index_.size() - field_timers_; }
  // Mean remaining TTL in ms of the keys that have one (0 if none).
  int64_t avg_ttl(int64_t now_ms) const;
  // Deletes every key. Returns how many there were.
  size_t clear();

  const Dict& dict() const { return dict_; }
  Entry* random_entry(std::mt19937_64& rng) const { return dict_.random(rng); }
  int64_t next_deadline() const { return index_.next_deadline(); }
  // Takes the key with the nearest deadline out (volatile-ttl eviction):
  // nullptr if no key has a TTL.
  EntryPtr take_nearest_deadline();
  size_t index_memory_bytes() const { return index_.memory_bytes(); }
  // Sorts timers of the expiry index's next wheel slot ahead of time
  // (expiry::Index::stage), up to moves of them; returns how many moved.
  size_t stage_ahead(size_t moves) {
    const size_t before = moves;
    index_.stage(moves);
    return before - moves;
  }

 private:
  friend class Keyspace;
  Entry* lookup(std::string_view key, int64_t now_ms, bool touch);
  // Reaps keys whose deadline is < now_ms, within limit.
  size_t reap(int64_t now_ms, const ReapLimit& limit);
  // Due hash fields expired together by reap (see there).
  static constexpr size_t kReapBatch = 16;
  void expire(Entry& e, int64_t now_ms, bool active);
  // A hash field's timer came due: the hash removes it, and goes if emptied.
  void expire_field(Entry& field);
  // Tells a value with parts that its key entered or leaves this db.
  void attached(Entry& e) {
    if (Object* o = e.obj()) o->on_attach(*this, e.key());
  }
  void detaching(Entry& e) {
    if (Object* o = e.obj()) o->on_detach(*this);
  }
  // Puts fresh (e's key) in e's place, in the dictionary and in the expiry
  // index, and frees e.
  Entry& replace(Entry& e, EntryPtr fresh);
  // Keeps probation_ as an entry joins or leaves the dictionary.
  void joined(const Entry& e) { probation_ += e.use() == 0; }
  void leaving(const Entry& e) { probation_ -= e.use() == 0; }

  Keyspace& owner_;
  int id_;
  Dict dict_;
  expiry::Index index_;
  __int128 deadline_sum_ = 0;  // of keys with a TTL, for avg_ttl
  size_t field_timers_ = 0;    // hash fields in index_
  size_t probation_ = 0;       // keys with use() == 0
};

class Keyspace {
 public:
  explicit Keyspace(int databases);

  int databases() const { return static_cast<int>(dbs_.size()); }
  Db& db(int i) { return *dbs_[i]; }
  const Db& db(int i) const { return *dbs_[i]; }
  // SWAPDB: the contents change places, the numbers stay.
  void swap_dbs(int a, int b);
  size_t total_keys() const;
  size_t total_expires() const;

  KeyspaceStats& stats() { return stats_; }
  const KeyspaceStats& stats() const { return stats_; }
  WatchTable& watches() { return watches_; }
  void set_listener(ExpiryListener* l) { listener_ = l; }
  std::mt19937_64& rng() { return rng_; }

  // How lookups and new keys set use counters (the eviction policy's).
  UseCounter& use_counter() { return use_; }

  // While set (clients paused: engine/client_pause.hpp), a lookup that finds
  // a key expired answers nullptr but leaves the key, as Redis's
  // expireIfNeeded during a pause: the dataset stands still.
  void set_keep_expired(bool keep) { keep_expired_ = keep; }
  bool keep_expired() const { return keep_expired_ || replica_expiry_; }

  // A replica's keyspace (REPLICAOF host port): keys expire only when the
  // primary's DEL arrives, as in Redis 7.0's expireIfNeeded on a replica.
  // A lookup that finds a key past its deadline answers nullptr and leaves
  // it (clients read it as absent); the server's expiry cycle reaps nothing
  // meanwhile. Promoted (REPLICAOF NO ONE), the keys due are reaped at once.
  void set_replica_expiry(bool on) { replica_expiry_ = on; }
  bool replica_expiry() const { return replica_expiry_; }
  // While one lives, lookups find every key whatever its deadline: the
  // primary's commands on a replica see the dataset as the primary did when
  // it sent them (Redis: the master client never expires a key), so a write
  // to a key the replica's clock already passed updates it, not a second
  // copy.
  class PrimaryView {
   public:
    explicit PrimaryView(Keyspace& ks) : ks_(ks), was_(ks.primary_view_) { ks_.primary_view_ = true; }
    ~PrimaryView() { ks_.primary_view_ = was_; }
    PrimaryView(const PrimaryView&) = delete;
    PrimaryView& operator=(const PrimaryView&) = delete;

   private:
    Keyspace& ks_;
    bool was_;
  };

  // Tells WATCH that key in db changed (Redis's signalModifiedKey).
  void modified(int db, std::string_view key);

  // Active expiry: reaps up to budget due keys over all dbs, earliest db
  // first. Returns how many were reaped; a full budget means more may be due.
  // Hash fields reaped are reported to the listener per key when the pass
  // ends: at the end of this call, or of the ReapPass it runs in.
  size_t reap(int64_t now_ms, size_t budget) { return reap(now_ms, ReapLimit{budget}); }
  // The same within limit's keys and time (store/reap_limit.hpp): fewer than
  // limit.keys also when its time ran out.
  size_t reap(int64_t now_ms, const ReapLimit& limit);
  // Spends up to moves sorting each db's next wheel slot ahead of time
  // (Db::stage_ahead), earliest db first; returns how many moved (0: none
  // is left to sort).
  size_t stage_ahead(size_t moves);
  // One pass of active expiry over several reap calls (the expiry cycle's
  // chunks): the listener hears of each hash's fields once, at the end.
  class ReapPass {
   public:
    explicit ReapPass(Keyspace& ks) : ks_(ks) { ++ks_.passes_; }
    ~ReapPass() {
      if (--ks_.passes_ == 0) ks_.report_parts();
    }
    ReapPass(const ReapPass&) = delete;
    ReapPass& operator=(const ReapPass&) = delete;

   private:
    Keyspace& ks_;
  };
  // After loading a dataset: removes every key and field whose deadline is
  // < now_ms, telling no listener and counting nothing (they expired while
  // nothing served them). Returns how many.
  size_t drop_due(int64_t now_ms);
  // The earliest deadline of any key (or a lower bound), expiry::kNever if none.
  int64_t next_deadline() const;
  // Which share (0..1) of the keys with a TTL are due at now_ms but not yet
  // deleted: what Redis's expired_stale_perc estimates. Exactly 0 when no
  // deadline has passed (the usual case while the expiry cycle keeps up);
  // otherwise the share among up to kStaleSamples keys with a TTL picked at
  // random, in at most kStaleDraws picks of O(1) (fewer samples where most
  // keys have no TTL; 0 if none was found).
  static constexpr int kStaleSamples = 20;
  static constexpr int kStaleDraws = 100;
  double stale_fraction(int64_t now_ms);

 private:
  friend class Db;
  void on_expired(Db& db, Entry& e, int64_t now_ms, bool active);
  // Tells the listener of the fields reaped since the pass began.
  void report_parts();

  ExpiredParts expired_parts_;  // reaped this pass, not reported yet
  int passes_ = 0;              // open ReapPasses
  bool keep_expired_ = false;
  bool replica_expiry_ = false;
  bool primary_view_ = false;

  std::vector<std::unique_ptr<Db>> dbs_;
  KeyspaceStats stats_;
  WatchTable watches_;
  ExpiryListener* listener_ = nullptr;
  UseCounter use_;
  std::mt19937_64 rng_{std::random_device{}()};
};

}  // namespace lawnkv::store
