#pragma once
// The hash type: field -> value, in the two representations Redis 7.0 names.
//
//   listpack   up to hash-max-listpack-entries fields (128) whose fields and
//              values are at most hash-max-listpack-value bytes (64): one
//              byte buffer of [varint length][bytes] pairs in insertion order
//              (HGETALL lists them so, as Redis does), searched linearly,
//              reallocated to its exact size on each change, as a listpack
//              is. A field costs its bytes plus 2 length bytes; the hash
//              object beside it is 64 bytes (the hashtable's state and the
//              key its expired fields are reported under live in a Table
//              allocated on conversion).
//   hashtable  past either limit, for good (Redis never converts back): a
//              store::Dict of store::Entry blocks, the keyspace's own table:
//              8 bytes of header and a 4-byte bucket per field beside its bytes.
//
// A TTL on a field (Redis 7.4's HEXPIRE family) makes the hash a hashtable,
// and the field an
// Entry of type kHashField: its block carries an expiry Timer, linked in the
// expiry index of the db the hash is stored in, beside the keys' timers, and
// a pointer back to this hash. OBJECT ENCODING still says what Redis 7.4
// would: a listpack given a field TTL becomes "listpackex" (kept when the
// TTLs go, as in Redis), and "hashtable" only once the hash passes the
// listpack limits. Fields given one relative TTL join one Lawn
// queue: 10,000 fields with HEXPIRE 60 are 10,000 appends. The Db reaps a
// due field (expire_part) as it reaps keys: on time, never early, in bounded
// slices. While the hash is not in a db (being renamed or moved), its
// fields' timers are out of every index and keep their deadlines.
//
// Knows nothing of commands; the command family (commands/hashes_family.cpp)
// turns results into replies and events.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "store/dict.hpp"
#include "store/entry.hpp"

namespace lawnkv::types {

class Hash final : public store::Object {
 public:
  // hash-max-listpack-entries / -value.
  struct Limits {
    int64_t max_listpack_entries = 128;
    int64_t max_listpack_value = 64;
  };

  // HEXPIRE's NX | XX | GT | LT.
  enum class Condition { kNone, kNx, kXx, kGt, kLt };
  // Per-field results, as Redis 7.4 replies them.
  static constexpr int kNoField = -2;
  static constexpr int kNoTtl = -1;
  static constexpr int kConditionNotMet = 0;
  static constexpr int kSet = 1;
  static constexpr int kDeleted = 2;

  Hash() = default;
  ~Hash() override;
  Hash(const Hash&) = delete;
  Hash& operator=(const Hash&) = delete;
  store::Type type() const override { return store::Type::kHash; }
  size_t memory_bytes() const override;
  std::unique_ptr<store::Object> clone() const override;
  std::string_view encoding() const override {
    return table_ ? (table_->listpack_ex ? "listpackex" : "hashtable") : "listpack";
  }

  size_t size() const { return table_ ? table_->size() : count_; }
  bool empty() const { return size() == 0; }
  std::optional<std::string_view> get(std::string_view field) const;
  // Sets field to value; true if the field is new. May convert to hashtable.
  // A TTL the field had is dropped (HSET), or kept with keep_ttl (HINCRBY).
  bool set(std::string_view field, std::string_view value, const Limits& limits, bool keep_ttl = false);
  // True if the field was there.
  bool remove(std::string_view field);

  // Field TTLs (the hash must be in a db: on_attach). deadline_ms absolute;
  // ttl_ms the relative TTL it came from (0 for *AT forms), for the Lawn
  // queues. A deadline <= now deletes the field (kDeleted).
  // key: what the hash is stored under while attached (the events of its
  // expired fields name it); any value when it is not attached.
  int set_ttl(std::string_view key, std::string_view field, int64_t deadline_ms, int64_t ttl_ms, Condition cond,
              int64_t now_ms);
  // kNoField, kNoTtl, or the field's deadline.
  int64_t deadline_of(std::string_view field) const;
  // kNoField, kNoTtl, or 1 when the TTL was removed.
  int persist(std::string_view field);
  // Fields with a TTL.
  size_t ttl_fields() const { return table_ ? table_->ttl_fields : 0; }
  // Removes every field whose deadline is < now (lazy expiry); how many.
  // Their names go to *removed when given.
  size_t expire_due(int64_t now_ms, std::vector<std::string>* removed = nullptr);

  void on_attach(store::Db& db, std::string_view key) override;
  void on_detach(store::Db& db) override;
  std::string_view attached_key() const override { return table_ ? std::string_view(table_->key) : std::string_view(); }
  bool expire_part(store::Entry& part) override;
  // The field's bucket: reaping a field walks its chain from there.
  void prefetch_part(const store::Entry& part) const override {
    if (table_) table_->prefetch_bucket(table_->hash_of(part.key()));
  }

  // fn(field, value) for every field: insertion order for listpack, table
  // order for hashtable. fn must not change the hash.
  template <class F>
  void for_each(F&& fn) const;
  // The i-th field in for_each order (i < size()): HRANDFIELD's draws.
  std::pair<std::string_view, std::string_view> at(size_t i) const;
  // A random field (not empty).
  std::pair<std::string_view, std::string_view> random(std::mt19937_64& rng) const;

  // HSCAN step: calls fn(field, value) for the fields at cursor and returns
  // the next cursor (0 = done). A listpack is returned whole in one step, as
  // Redis does.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const;

 private:
  // listpack: where field i begins in buf_ (found by walking).
  static size_t read_len(std::string_view buf, size_t* pos);
  static void write_len(std::string& out, size_t n);
  // Position of field's pair in buf_, or npos.
  size_t find(std::string_view field) const;
  void convert(const Limits& limits);

  // Removes a kHashField's timer from its db's index (if scheduled).
  void unschedule(store::Entry& field);
  template <class F>
  void for_each_ttl_field(F&& fn);

  // The hashtable form, and what only it needs (a listpack hash has no
  // field TTLs), allocated on conversion: a listpack hash is the buffer, a
  // count, this pointer and the db.
  struct Table : store::Dict {
    size_t ttl_fields = 0;     // kHashField entries
    // Stands for Redis 7.4's listpackex: made by a field TTL on a listpack
    // hash, until the hash passes the listpack limits.
    bool listpack_ex = false;
    std::string key;           // the key, while attached (for expired fields' events)
  };

  // Replaces remove bytes of buf_ at at by insert, leaving buf_ no larger
  // than it needs (one allocation of the exact size, as a listpack is
  // reallocated), so a small hash holds no spare room.
  void splice(size_t at, size_t remove, std::string_view insert);

  std::string buf_;              // listpack pairs
  size_t count_ = 0;             // listpack fields
  std::unique_ptr<Table> table_;  // hashtable (fields are Entries)
  store::Db* db_ = nullptr;      // where the fields' timers are, while attached
};

template <class F>
void Hash::for_each(F&& fn) const {
  if (table_) {
    table_->for_each([&](const store::Entry& e) { fn(e.key(), e.str()); });
    return;
  }
  size_t pos = 0;
  while (pos < buf_.size()) {
    const size_t flen = read_len(buf_, &pos);
    const std::string_view f(buf_.data() + pos, flen);
    pos += flen;
    const size_t vlen = read_len(buf_, &pos);
    const std::string_view v(buf_.data() + pos, vlen);
    pos += vlen;
    fn(f, v);
  }
}

template <class F>
uint64_t Hash::scan(uint64_t cursor, F&& fn) const {
  if (!table_) {
    for_each(fn);
    return 0;
  }
  return table_->scan(cursor, [&](const store::Entry& e) { fn(e.key(), e.str()); });
}

}  // namespace lawnkv::types
