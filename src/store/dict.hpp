#pragma once
// The keyspace's hash table: chained buckets, a power-of-two bucket count,
// entries linked through Entry::next_in_bucket (no node allocation). Buckets
// and chain links are 32-bit arena links: 4 bytes a bucket, at most 8 a key
// at load 1/2 just after growing. Entries cache no hash: a chain is walked
// comparing lengths, then bytes, and a resize hashes every name again.
//
// SCAN walks buckets with Redis's reverse-binary cursor: the cursor's bits are
// incremented from the top, so when the table doubles or halves between two
// calls every bucket not yet visited maps to buckets the cursor has still to
// reach. A key present for the whole scan is therefore returned at least once,
// across any number of resizes (it may be returned twice after a shrink).
//
// Resizes happen all at once on insert (grow at load 1) and on erase (shrink at
// load 1/8); the cost is one pass over the entries.

#include <cstdint>
#include <memory>
#include <random>
#include <string_view>
#include <vector>

#include "core/page_allocator.hpp"
#include "store/entry.hpp"

namespace lawnkv::store {

inline uint64_t reverse_bits(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

class Dict {
 public:
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

  size_t size() const { return size_; }
  size_t bucket_count() const { return buckets_.size(); }

  // Calls fn(Entry&) for every entry in the bucket(s) at cursor and returns
  // the next cursor (0 = the scan is complete). fn must not insert or remove.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const;

  template <class F>
  void for_each(F&& fn) const {
    for (Entry* head : buckets_)
      for (Entry* e = head; e; e = e->next_in_bucket) fn(*e);
  }

  // A random entry (nullptr when empty): a random non-empty bucket, then a
  // random entry of its chain.
  Entry* random(std::mt19937_64& rng) const;

  uint64_t hash_of(std::string_view key) const;
  size_t memory_bytes() const { return buckets_.capacity() * sizeof(Link); }

 private:
  using Link = arena::Ref<Entry>;
  void resize(size_t buckets);
  size_t mask() const { return buckets_.size() - 1; }
  // The link that points at key's entry (or the null link ending its chain).
  Link* link_to(std::string_view key);

  using Buckets = std::vector<Link, PageAllocator<Link>>;
  Buckets buckets_;
  size_t size_ = 0;
  uint64_t seed_;
};

template <class F>
void Dict::clear(F&& before_delete) {
  for (Link& head : buckets_) {
    Entry* e = head;
    while (e) {
      Entry* next = e->next_in_bucket;
      before_delete(*e);
      EntryDeleter()(e);
      e = next;
    }
    head = nullptr;
  }
  size_ = 0;
  resize(4);
}

template <class F>
uint64_t Dict::scan(uint64_t cursor, F&& fn) const {
  const uint64_t m = mask();
  for (Entry* e = buckets_[cursor & m]; e; e = e->next_in_bucket) fn(*e);
  // Increment the bits covered by the mask from the most significant one.
  cursor |= ~m;
  cursor = reverse_bits(cursor);
  ++cursor;
  return reverse_bits(cursor);
}

}  // namespace lawnkv::store
