#pragma once
// The "skiplist" encoding of a sorted set (types/zset.hpp): a skip list
// ordered by (score, member bytes) whose levels count the elements they
// skip, so rank <-> element is O(log n), and a hash table from member to
// node, so ZSCORE is O(1). Both index the same nodes: a member is ONE
// allocation holding its score, its links and its bytes.
//
//   score   8 B
//   back    8 B   the previous node (level 0), for reverse walks
//   chain   8 B   the next node of its hash bucket
//   len     4 B   the member's length
//   height  1 B   how many levels follow (1..32, P(h > k) = 4^-k)
//   levels  16 B each: next node at that level, elements it skips
//   bytes   len bytes
//
// About 53 + len bytes a member (1.33 levels on average) plus 8 to 16 bytes
// of bucket array; Redis 7.0 spends a skiplist node, an sds and a dictEntry
// in three allocations.
//
// Why a skip list and not an order-statistic B-tree: the B-tree would pack
// elements more tightly and walk fewer cache lines per lookup, but deletion
// with rebalancing and the rank counts in inner nodes are much more code to
// get right; the skip list gives the same O(log n) bounds with insert and
// unlink of one node each a single descent, and a reverse walk by `back`.
// See bench/results/zsets-notes.md for what it costs beside Redis.
//
// The hash table resizes at once (doubling at load 1, halving below 1/8);
// scan() walks its buckets with Redis's reverse-binary cursor, so a member
// present for a whole ZSCAN is returned at least once across resizes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/byte_hash.hpp"
#include "core/scan_cursor.hpp"

namespace lawnkv::types {

// The order of a sorted set's members with equal scores: memcmp over the
// shorter length, then the shorter first (Redis's sdscmp).
inline int compare_member_bytes(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// (as, am) sorts before (bs, bm).
inline bool zset_before(double as, std::string_view am, double bs, std::string_view bm) {
  return as < bs || (as == bs && compare_member_bytes(am, bm) < 0);
}

class ZSkipList {
 public:
  static constexpr int kMaxHeight = 32;
  struct Node;

  explicit ZSkipList(uint64_t seed);
  ~ZSkipList();
  ZSkipList(const ZSkipList&) = delete;
  ZSkipList& operator=(const ZSkipList&) = delete;

  size_t size() const { return size_; }
  const Node* find(std::string_view member) const;
  // Adds a member that is not present.
  void insert(std::string_view member, double score);
  // Gives n (present) a new score, moving it to its new place.
  void rescore(const Node* n, double score);
  // Removes n (present) and frees it.
  void erase(const Node* n);

  // The 0-based rank of n (present).
  size_t rank_of(const Node* n) const;
  // The node at 0-based rank (< size()).
  const Node* at(size_t rank) const;
  // How many elements satisfy less(score, member), which must hold for a
  // prefix of the order and fail for the rest: the rank of the first
  // element failing it.
  template <class Less>
  size_t count_below(Less&& less) const;

  const Node* first() const;
  const Node* last() const { return tail_; }
  static const Node* next(const Node* n);
  static const Node* prev(const Node* n);

  // fn(std::string_view member, double score) for the members of the
  // bucket(s) at cursor; returns the next cursor, 0 when done.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const;

  size_t memory_bytes() const;
  uint64_t seed() const { return seed_; }

 private:
  Node* make_node(std::string_view member, double score);
  int random_height();
  // Links n into the list (not the hash table) at its place.
  void link(Node* n);
  // Unlinks n from the list (not the hash table).
  void unlink(Node* n);
  Node** bucket(std::string_view member) const { return &buckets_[hash_bytes(member, seed_) & mask_]; }
  void hash_add(Node* n);
  void hash_remove(const Node* n);
  void rehash(size_t count);

  Node* head_;
  Node* tail_ = nullptr;
  Node** buckets_;
  uint64_t mask_;          // bucket count - 1
  uint64_t seed_;
  uint64_t rng_;           // heights' xorshift state
  uint64_t node_bytes_ = 0;
  size_t size_ = 0;
  int height_ = 1;         // levels in use
};

struct ZSkipList::Node {
  struct Level {
    Node* next;
    size_t span;  // elements from this node to next (or to the end)
  };
  double score;
  Node* back;
  Node* chain;
  uint32_t len;
  uint8_t height;

  Level* levels() { return reinterpret_cast<Level*>(this + 1); }
  const Level* levels() const { return reinterpret_cast<const Level*>(this + 1); }
  std::string_view member() const {
    return {reinterpret_cast<const char*>(levels() + height), len};
  }
  static size_t bytes_for(int height, size_t len) { return sizeof(Node) + height * sizeof(Level) + len; }
};

inline const ZSkipList::Node* ZSkipList::first() const { return head_->levels()[0].next; }
inline const ZSkipList::Node* ZSkipList::next(const Node* n) { return n->levels()[0].next; }
inline const ZSkipList::Node* ZSkipList::prev(const Node* n) { return n->back; }

template <class Less>
size_t ZSkipList::count_below(Less&& less) const {
  const Node* x = head_;
  size_t rank = 0;
  for (int i = height_ - 1; i >= 0; --i) {
    for (const Node* n = x->levels()[i].next; n && less(n->score, n->member()); n = x->levels()[i].next) {
      rank += x->levels()[i].span;
      x = n;
    }
  }
  return rank;
}

template <class F>
uint64_t ZSkipList::scan(uint64_t cursor, F&& fn) const {
  for (const Node* n = buckets_[cursor & mask_]; n; n = n->chain) fn(n->member(), n->score);
  return next_scan_cursor(cursor, mask_);
}

}  // namespace lawnkv::types
