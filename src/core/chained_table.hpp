#pragma once
// An intrusive chained hash table that resizes incrementally: the one table
// behind the keyspace (store/dict.hpp), set members (types/member_table.hpp),
// a sorted set's members (types/zset_tree.hpp) and a dehydrator's ids
// (dehydrator/id_table.hpp). It owns its bucket arrays only: nodes belong to
// the caller, who allocates them, links them in and frees them after
// unlinking. It keeps no count of its nodes (each user has one already, and
// a set's table must stay small): operations that may resize take it.
//
// Nodes carry their chain link (a 32-bit arena::Ref or a pointer, as the
// traits choose) and nothing else of the table's: no cached hash unless the
// node has one of its own (Traits::hash(const Node&) is called again when a
// node moves). Buckets are Links too: 4 bytes each with 32-bit links, at a
// load of 1/2 to 1, so at most 8 bytes of buckets per node after growing.
//
//   Traits {
//     using Node; using Link; using Key;          // Link: Node* or arena::Ref<Node>
//     static Link& next(Node&);                   // the node's chain link
//     uint64_t hash(Key) const;                   // the hash of a key
//     uint64_t hash(const Node&) const;           // the hash of a node's key
//     bool equal(const Node&, Key, uint64_t hash) const;
//   }
//
// A traits object is kept in the table (a hash seed; nothing if empty). The
// object is 2 pointers, the traits, a 32-bit rehash position and the log2
// of both array sizes: 24 bytes with empty traits, 32 with a seed.
//
// Resizing, as Redis's dict: growing (at load > 1) or shrinking (at load
// < 1/8, to the smallest power of two >= twice the nodes) allocates the new
// bucket array (zeroed pages: no write until used, core/page_allocator.hpp),
// then moves the old one's chains over a few at a time: each call of
// rehash_step() moves up to kRehashBuckets chains, visiting at most 10
// empty buckets per chain. Users call it once per insert and erase (the
// keyspace also once per lookup). Meanwhile a node whose old bucket is below
// rehash_at_ is in the new array, else in the old one. The new array is at
// least twice (or at most half) the old and the load must double (or fall
// eightfold) before the next resize, which waits until this one ends; 2
// buckets per step at least, so a growth ends before the table holds twice
// as many nodes. A table of at most kResizeAtOnce buckets moves at once, and
// an emptied table goes back to kMinBuckets at once (nothing to move).
//
// scan() is Redis's dictScan: a reverse-binary cursor over buckets
// (core/scan_cursor.hpp); during a rehash a step visits the cursor's bucket
// in the smaller array and every bucket of the larger one that expands it.
// A node present for the whole scan is returned at least once, across any
// number of resizes (possibly twice after a shrink).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>

#include "core/page_allocator.hpp"
#include "core/scan_cursor.hpp"

namespace lawnkv {

// The sizes every ChainedTable shares, whatever its traits.
struct ChainedTableSizes {
  static constexpr size_t kMinBuckets = 4;
  // Chains moved per rehash_step() while a rehash is under way.
  static constexpr size_t kRehashBuckets = 2;
  // Arrays of at most this many buckets resize at once: moving a few dozen
  // nodes costs less than keeping two arrays.
  static constexpr size_t kResizeAtOnce = 64;
  // Buckets past the rehash position whose chain heads a step prefetches.
  static constexpr size_t kRehashPrefetch = 8;
};

template <class Traits>
class ChainedTable : public ChainedTableSizes {
 public:
  using Node = typename Traits::Node;
  using Link = typename Traits::Link;
  using Key = typename Traits::Key;

  // An empty table with buckets for `expected` nodes (no resize until it
  // holds more).
  explicit ChainedTable(Traits traits = Traits(), size_t expected = 0)
      : traits_(std::move(traits)), table_bits_(bits_for(expected)) {
    table_ = allocate(table_bits_);
  }
  ~ChainedTable() {
    release(table_, table_bits_);
    if (next_) release(next_, next_bits_);
  }
  ChainedTable(const ChainedTable&) = delete;
  ChainedTable& operator=(const ChainedTable&) = delete;
  // The moved-from table is empty, with the traits it had.
  ChainedTable(ChainedTable&& other) noexcept : traits_(other.traits_), table_bits_(bits_for(0)) {
    table_ = allocate(table_bits_);
    swap(other);
  }
  ChainedTable& operator=(ChainedTable&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(ChainedTable& other) noexcept {
    std::swap(table_, other.table_);
    std::swap(next_, other.next_);
    std::swap(traits_, other.traits_);
    std::swap(rehash_at_, other.rehash_at_);
    std::swap(table_bits_, other.table_bits_);
    std::swap(next_bits_, other.next_bits_);
  }

  const Traits& traits() const { return traits_; }
  uint64_t hash(Key key) const { return traits_.hash(key); }

  Node* find(Key key) const { return find(key, hash(key)); }
  Node* find(Key key, uint64_t h) const {
    for (Node* n = bucket(h); n; n = Traits::next(*n))
      if (traits_.equal(*n, key, h)) return n;
    return nullptr;
  }
  // The link that points at key's node, or the null link ending its chain.
  Link* link_to(Key key, uint64_t h) {
    Link* link = &bucket(h);
    while (*link != nullptr && !traits_.equal(**link, key, h)) link = &Traits::next(**link);
    return link;
  }
  // The link that points at n, which is in the table (pointers compared).
  Link* link_to(const Node* n) {
    Link* link = &bucket(traits_.hash(*n));
    while (*link != n) link = &Traits::next(**link);
    return link;
  }
  // Links n in at the head of its bucket (no node with its key present).
  void push(Node* n) { push(n, traits_.hash(*n)); }
  void push(Node* n, uint64_t h) {
    Link& head = bucket(h);
    Traits::next(*n) = head;
    head = n;
  }
  // Takes *link's node (not null) out of its chain and returns it.
  Node* unlink(Link* link) {
    Node* n = *link;
    *link = Traits::next(*n);
    Traits::next(*n) = nullptr;
    return n;
  }
  // Puts fresh (the same key) where *link's node is; returns the old one.
  Node* replace(Link* link, Node* fresh) {
    Node* old = *link;
    Traits::next(*fresh) = Traits::next(*old);
    *link = fresh;
    Traits::next(*old) = nullptr;
    return old;
  }

  // Moves a few chains if a rehash is under way.
  void rehash_step() {
    if (next_) rehash(kRehashBuckets);
  }
  // After an insert or erase, with `count` nodes now: starts a resize if the
  // load calls for one and none is under way.
  void fit(size_t count) {
    if (count == 0) {
      if (next_ || table_bits_ > bits_for(0)) reset();
      return;
    }
    if (next_) return;  // one at a time; see the header
    const size_t n = size_t{1} << table_bits_;
    if (count > n) {
      start(table_bits_ + 1);
    } else if (n > kMinBuckets && count * 8 < n) {
      start(bits_for(count * 2));
    }
  }

  // The bucket count the table has, or is rehashing to.
  size_t bucket_count() const { return size_t{1} << (next_ ? next_bits_ : table_bits_); }
  bool rehashing() const { return next_ != nullptr; }
  // Bytes of the bucket arrays.
  size_t memory_bytes() const {
    return ((size_t{1} << table_bits_) + (next_ ? size_t{1} << next_bits_ : 0)) * sizeof(Link);
  }
  // The bucket a key of hash h lives in, in whichever array holds it now
  // (for prefetching: &bucket(h), then its head).
  Link& bucket(uint64_t h) const {
    const size_t i = h & mask(table_bits_);
    // rehash_at_ is 0 unless a rehash is under way.
    return i < rehash_at_ ? next_[h & mask(next_bits_)] : table_[i];
  }

  // Calls fn(Node&) for every node; an fn that returns bool stops the walk
  // with false. fn must not change the table.
  template <class F>
  void for_each(F&& fn) const;
  // Unlinks every node, calling dispose(Node*) on each after, and goes back
  // to kMinBuckets.
  template <class F>
  void clear(F&& dispose);
  // Calls fn(Node&) for the nodes of the bucket(s) at cursor and returns
  // the next cursor (0 = the scan is complete). fn must not change the table.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const;

  // A uniformly random node of a table that is not empty, by rejection:
  // a random bucket and a random place in [0, *longest_chain); a place past
  // the chain's end draws again. Picking a random node of a random non-empty
  // chain instead favours nodes alone in their bucket (one that shares its
  // bucket with two others comes a third as often). *longest_chain (start
  // it at 1) is the longest chain met so far, kept by the caller across
  // calls: a chain longer than it raises it before any draw of that call is
  // taken. Costs about (buckets / nodes) * longest chain bucket reads.
  template <class Rng>
  Node* random(Rng& rng, size_t* longest_chain) const;

 private:
  static constexpr size_t mask(uint8_t bits) { return (size_t{1} << bits) - 1; }
  static uint8_t bits_for(size_t count) {
    uint8_t b = 2;
    static_assert(kMinBuckets == 4);
    while ((size_t{1} << b) < count) ++b;
    return b;
  }
  static Link* allocate(uint8_t bits) { return PageAllocator<Link>().allocate(size_t{1} << bits); }
  static void release(Link* links, uint8_t bits) { PageAllocator<Link>().deallocate(links, size_t{1} << bits); }

  void start(uint8_t bits) {
    next_ = allocate(bits);
    next_bits_ = bits;
    rehash_at_ = 0;
    const size_t old = size_t{1} << table_bits_;
    rehash(old <= kResizeAtOnce ? old : kRehashBuckets);
  }
  // Back to kMinBuckets, empty.
  void reset() {
    release(table_, table_bits_);
    if (next_) release(next_, next_bits_);
    next_ = nullptr;
    next_bits_ = 0;
    rehash_at_ = 0;
    table_bits_ = bits_for(0);
    table_ = allocate(table_bits_);
  }
  // Moves up to chains non-empty buckets of table_ to next_.
  void rehash(size_t chains);

  Link* table_;
  Link* next_ = nullptr;  // non-null while a rehash is under way
  [[no_unique_address]] Traits traits_;
  uint32_t rehash_at_ = 0;  // table_'s buckets below this have moved to next_
  uint8_t table_bits_;      // table_ has 2^table_bits_ buckets
  uint8_t next_bits_ = 0;
};

template <class Traits>
void ChainedTable<Traits>::rehash(size_t chains) {
  const size_t from = size_t{1} << table_bits_;
  const size_t to_mask = mask(next_bits_);
  for (size_t empty_visits = chains * 10; chains > 0 && rehash_at_ < from;) {
    Node* n = std::exchange(table_[rehash_at_++], nullptr);
    if (n) {
      --chains;
    } else if (--empty_visits == 0) {
      break;
    }
    while (n) {
      Node* after = Traits::next(*n);
      Link& head = next_[traits_.hash(*n) & to_mask];
      Traits::next(*n) = head;
      head = n;
      n = after;
    }
  }
  if (rehash_at_ < from) {
    // The heads of the chains the next steps move, asked for now: a step
    // runs once a command, so by the next one they are in cache instead of
    // each node's read waiting on memory (the bucket array itself is read
    // in order, which the hardware prefetches).
    const size_t end = std::min(from, rehash_at_ + kRehashPrefetch);
    for (size_t i = rehash_at_; i < end; ++i)
      if (Node* head = table_[i]) __builtin_prefetch(head);
    return;
  }
  release(table_, table_bits_);
  table_ = std::exchange(next_, nullptr);
  table_bits_ = std::exchange(next_bits_, 0);
  rehash_at_ = 0;
}

template <class Traits>
template <class F>
void ChainedTable<Traits>::for_each(F&& fn) const {
  for (Link* t : {table_, next_}) {
    if (!t) continue;
    const size_t count = size_t{1} << (t == table_ ? table_bits_ : next_bits_);
    for (size_t i = 0; i < count; ++i)
      for (Node* n = t[i]; n; n = Traits::next(*n)) {
        if constexpr (std::is_same_v<decltype(fn(*n)), bool>) {
          if (!fn(*n)) return;
        } else {
          fn(*n);
        }
      }
  }
}

template <class Traits>
template <class F>
void ChainedTable<Traits>::clear(F&& dispose) {
  for (Link* t : {table_, next_}) {
    if (!t) continue;
    const size_t count = size_t{1} << (t == table_ ? table_bits_ : next_bits_);
    for (size_t i = 0; i < count; ++i)
      for (Node* n = t[i]; n;) {
        Node* after = Traits::next(*n);
        Traits::next(*n) = nullptr;
        dispose(n);
        n = after;
      }
  }
  reset();
}

template <class Traits>
template <class F>
uint64_t ChainedTable<Traits>::scan(uint64_t cursor, F&& fn) const {
  auto visit = [&](const Link* t, uint8_t bits, uint64_t v) {
    for (Node* n = t[v & mask(bits)]; n; n = Traits::next(*n)) fn(*n);
  };
  if (!next_) {
    visit(table_, table_bits_, cursor);
    return next_scan_cursor(cursor, mask(table_bits_));
  }
  const bool table_small = table_bits_ < next_bits_;
  const Link* small = table_small ? table_ : next_;
  const Link* large = table_small ? next_ : table_;
  const uint8_t small_bits = table_small ? table_bits_ : next_bits_;
  const uint8_t large_bits = table_small ? next_bits_ : table_bits_;
  const uint64_t m0 = mask(small_bits);
  const uint64_t m1 = mask(large_bits);
  visit(small, small_bits, cursor);
  // Every bucket of the larger array whose low bits are the cursor's.
  do {
    visit(large, large_bits, cursor);
    cursor = next_scan_cursor(cursor, m1);
  } while (cursor & (m0 ^ m1));
  return cursor;
}

template <class Traits>
template <class Rng>
typename ChainedTable<Traits>::Node* ChainedTable<Traits>::random(Rng& rng, size_t* longest_chain) const {
  // Buckets that may hold nodes: table_'s from rehash_at_ on, then next_'s.
  const size_t in_table = (size_t{1} << table_bits_) - rehash_at_;
  const size_t buckets = in_table + (next_ ? size_t{1} << next_bits_ : 0);
  if (*longest_chain == 0) *longest_chain = 1;
  for (;;) {
    const size_t r = rng() % buckets;
    Node* head = r < in_table ? table_[rehash_at_ + r] : next_[r - in_table];
    if (!head) continue;
    size_t len = 0;
    for (Node* n = head; n; n = Traits::next(*n)) ++len;
    if (len > *longest_chain) {
      *longest_chain = len;
      continue;
    }
    size_t pick = rng() % *longest_chain;
    if (pick >= len) continue;
    Node* n = head;
    while (pick--) n = Traits::next(*n);
    return n;
  }
}

}  // namespace lawnkv
