#pragma once
// The keyspace's hash table: chained buckets, a power-of-two bucket count,
// entries linked through Entry::next_in_bucket (no node allocation). Buckets
// and chain links are 32-bit arena links: 4 bytes a bucket, at most 8 a key
// at load 1/2 just after growing. Entries cache no hash: a chain is walked
// comparing lengths, then bytes, and moving an entry hashes its name again.
//
// Resizing is incremental, as in Redis: growing (at load 1) or shrinking (at
// load 1/8, to the smallest power of two >= twice the keys) allocates the new
// bucket array and then moves the old one's buckets over a few at a time:
// every insert and remove, and every Db lookup, moves up to kRehashBuckets
// chains (visiting at most 10 empty buckets per chain). Meanwhile an entry is
// in the old table if its bucket there is not yet moved, else in the new one.
// Rebuilding a 2M-key table at once took 220 ms in one insert; spread out, no
// operation pays more than a few chains. The new table is at least twice as
// large (or at most half) as the old, and a table must fill (or empty) by that
// much before the next resize, so one rehash always ends before the next.
//
// SCAN walks buckets with Redis's reverse-binary cursor: the cursor's bits are
// incremented from the top, so when the table doubles or halves between two
// calls every bucket not yet visited maps to buckets the cursor has still to
// reach. During a rehash a step visits the cursor's bucket in the smaller
// table and every bucket of the larger one that expands it (Redis's dictScan).
// A key present for the whole scan is therefore returned at least once,
// across any number of resizes (it may be returned twice after a shrink).

#include <cstdint>
#include <memory>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "core/page_allocator.hpp"
#include "core/scan_cursor.hpp"
#include "store/entry.hpp"

namespace lawnkv::store {

class Dict {
 public:
  // Chains moved per operation while a rehash is under way.
  static constexpr size_t kRehashBuckets = 2;

  Dict();
  ~Dict();
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  Dict(Dict&& other) noexcept;
  Dict& operator=(Dict&& other) noexcept;

  Entry* find(std::string_view key) const;
  // Takes ownership; no entry with the same key may be present.
  void insert(EntryPtr e);
  // Unlinks the entry and hands it back (nullptr if absent).
  EntryPtr remove(std::string_view key);
  // Puts fresh (same key) where old is, and hands old back.
  EntryPtr replace(Entry* old, EntryPtr fresh);
  // Deletes every entry, calling before_delete(Entry&) on each first.
  template <class F>
  void clear(F&& before_delete);
  // Moves a few chains if a rehash is under way (reads call it: a table
  // that is only read still finishes its rehash).
  void rehash_step() {
    if (rehashing()) rehash(kRehashBuckets);
  }

  size_t size() const { return size_; }
  // The bucket count the table has, or is rehashing to.
  size_t bucket_count() const { return (rehashing() ? next_ : table_).size(); }
  bool rehashing() const { return !next_.empty(); }

  // Calls fn(Entry&) for every entry in the bucket(s) at cursor and returns
  // the next cursor (0 = the scan is complete). fn must not insert or remove.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const;

  template <class F>
  void for_each(F&& fn) const {
    for (const Buckets* t : {&table_, &next_})
      for (Entry* head : *t)
        for (Entry* e = head; e; e = e->next_in_bucket) fn(*e);
  }

  // A uniformly random entry (nullptr when empty), by rejection: a random
  // bucket and a random place in [0, longest chain); a place past the
  // chain's end draws again. Picking a random entry of a random non-empty
  // chain instead favours entries alone in their bucket (a field that
  // shares its bucket with two others comes a third as often). Costs about
  // (buckets / entries) * longest chain bucket reads: a few at the loads
  // the table keeps.
  Entry* random(std::mt19937_64& rng) const;

  uint64_t hash_of(std::string_view key) const;
  // Starts loading the bucket of a key with this hash (no wait).
  void prefetch_bucket(uint64_t hash) const { __builtin_prefetch(&bucket_of(hash)); }
  // Starts loading the first entry of that bucket's chain: one load of the
  // bucket, which prefetch_bucket should have brought in.
  void prefetch_chain(uint64_t hash) const {
    if (const Entry* e = bucket_of(hash)) __builtin_prefetch(e);
  }
  size_t memory_bytes() const { return (table_.capacity() + next_.capacity()) * sizeof(Link); }

 private:
  using Link = arena::Ref<Entry>;
  using Buckets = std::vector<Link, PageAllocator<Link>>;

  // Starts a rehash into n buckets (or resizes at once while the table is
  // tiny).
  void resize(size_t n);
  // Moves up to chains non-empty buckets of table_ to next_.
  void rehash(size_t chains);
  // Whether the table should grow or shrink now, and to what size.
  void maybe_resize();
  static size_t mask(const Buckets& t) { return t.size() - 1; }
  // The bucket key's chain lives in, in whichever table holds it now.
  const Link& bucket_of(uint64_t hash) const;
  Link& bucket_of(uint64_t hash) { return const_cast<Link&>(std::as_const(*this).bucket_of(hash)); }
  // The link that points at key's entry (or the null link ending its chain).
  Link* link_to(std::string_view key);

  Buckets table_;
  Buckets next_;        // non-empty while a rehash is under way
  size_t rehash_at_ = 0;  // table_'s buckets below this have moved to next_
  size_t size_ = 0;
  uint64_t seed_;
  // The longest chain random() has met: the bound of its draws. It only
  // grows (a chain longer than it, once met, raises it before any draw of
  // that call is taken), so a table that shrank draws a little more often.
  mutable size_t longest_chain_ = 1;
};

template <class F>
void Dict::clear(F&& before_delete) {
  for (Buckets* t : {&table_, &next_}) {
    for (Link& head : *t) {
      Entry* e = head;
      while (e) {
        Entry* next = e->next_in_bucket;
        before_delete(*e);
        EntryDeleter()(e);
        e = next;
      }
      head = nullptr;
    }
  }
  size_ = 0;
  next_ = Buckets();
  rehash_at_ = 0;
  table_ = Buckets(4);
}

template <class F>
uint64_t Dict::scan(uint64_t cursor, F&& fn) const {
  auto visit = [&](const Buckets& t, uint64_t v) {
    for (Entry* e = t[v & mask(t)]; e; e = e->next_in_bucket) fn(*e);
  };
  if (!rehashing()) {
    visit(table_, cursor);
    return next_scan_cursor(cursor, mask(table_));
  }
  const Buckets& small = table_.size() < next_.size() ? table_ : next_;
  const Buckets& large = table_.size() < next_.size() ? next_ : table_;
  const uint64_t m0 = mask(small);
  const uint64_t m1 = mask(large);
  visit(small, cursor);
  // Every bucket of the larger table whose low bits are the cursor's.
  do {
    visit(large, cursor);
    cursor = next_scan_cursor(cursor, m1);
  } while (cursor & (m0 ^ m1));
  return cursor;
}

}  // namespace lawnkv::store
