#pragma once
// The keyspace's hash table: core/chained_table.hpp over the entries,
// linked through Entry::next_in_bucket (no node allocation). Buckets and
// chain links are 32-bit arena links: 4 bytes a bucket, at most 8 a key at
// load 1/2 just after growing. Entries cache no hash: a chain is walked
// comparing lengths, then bytes, and moving an entry hashes its name again.
//
// Resizing is incremental (see chained_table.hpp): every insert and remove,
// and every Db lookup, moves up to kRehashBuckets chains, so no operation
// pays for rebuilding a table of millions of keys. SCAN's cursor is Redis's
// reverse-binary one: a key present for the whole scan is returned at least
// once, across any number of resizes (it may be returned twice after a
// shrink).

#include <cstdint>
#include <memory>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "core/byte_hash.hpp"
#include "core/bytes.hpp"
#include "core/chained_table.hpp"
#include "store/entry.hpp"

namespace lawnkv::store {

// How the keyspace's table reaches an entry's chain link, name and hash.
struct DictTraits {
  using Node = Entry;
  using Link = arena::Ref<Entry>;
  using Key = std::string_view;
  uint64_t seed = 0;

  static Link& next(Entry& e) { return e.next_in_bucket; }
  uint64_t hash(std::string_view key) const { return hash_bytes(key, seed); }
  uint64_t hash(const Entry& e) const { return hash_bytes(e.key(), seed); }
  // Inline for keys of a few dozen bytes (core/bytes.hpp).
  bool equal(const Entry& e, std::string_view key, uint64_t) const {
    const std::string_view k = e.key();
    return k.size() == key.size() && equal_bytes(k.data(), key.data(), key.size());
  }
};

class Dict {
 public:
  using Table = ChainedTable<DictTraits>;
  // Chains moved per operation while a rehash is under way.
  static constexpr size_t kRehashBuckets = Table::kRehashBuckets;

  Dict();
  ~Dict();
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  Dict(Dict&& other) noexcept;
  Dict& operator=(Dict&& other) noexcept;

  Entry* find(std::string_view key) const { return table_.find(key); }
  // Takes ownership; no entry with the same key may be present.
  void insert(EntryPtr e);
  // Unlinks the entry and hands it back (nullptr if absent).
  EntryPtr remove(std::string_view key);
  // Puts fresh (same key) where old is, and hands old back.
  EntryPtr replace(Entry* old, EntryPtr fresh);
  // Deletes every entry, calling before_delete(Entry&) on each first.
  template <class F>
  void clear(F&& before_delete) {
    table_.clear([&](Entry* e) {
      before_delete(*e);
      EntryDeleter()(e);
    });
    size_ = 0;
  }
  // Moves a few chains if a rehash is under way (reads call it: a table
  // that is only read still finishes its rehash).
  void rehash_step() { table_.rehash_step(); }

  size_t size() const { return size_; }
  // The bucket count the table has, or is rehashing to.
  size_t bucket_count() const { return table_.bucket_count(); }
  bool rehashing() const { return table_.rehashing(); }

  // Calls fn(Entry&) for every entry in the bucket(s) at cursor and returns
  // the next cursor (0 = the scan is complete). fn must not insert or remove.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const {
    return table_.scan(cursor, fn);
  }

  template <class F>
  void for_each(F&& fn) const {
    table_.for_each([&](Entry& e) { fn(e); });
  }

  // A uniformly random entry (nullptr when empty); see ChainedTable::random.
  Entry* random(std::mt19937_64& rng) const { return size_ == 0 ? nullptr : table_.random(rng, &longest_chain_); }

  uint64_t hash_of(std::string_view key) const { return table_.hash(key); }
  // Starts loading the bucket of a key with this hash (no wait). Both
  // prefetches are inlined by force: GCC judges a function whose only effect
  // is a prefetch to be pure, and a call to it, whose result nobody reads,
  // is then deleted (it dropped prefetch_chain from Db::prefetch).
  [[gnu::always_inline]] void prefetch_bucket(uint64_t hash) const { __builtin_prefetch(&table_.bucket(hash)); }
  // Starts loading the first entry of that bucket's chain: one load of the
  // bucket, which prefetch_bucket should have brought in.
  [[gnu::always_inline]] void prefetch_chain(uint64_t hash) const {
    if (const Entry* e = table_.bucket(hash)) __builtin_prefetch(e);
  }
  size_t memory_bytes() const { return table_.memory_bytes(); }

 private:
  Table table_;
  size_t size_ = 0;
  // The bound of random()'s draws: the longest chain it has met. It only
  // grows, so a table that shrank draws a little more often.
  mutable size_t longest_chain_ = 1;
};

}  // namespace lawnkv::store
