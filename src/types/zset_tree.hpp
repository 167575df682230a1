#pragma once
// The "skiplist" encoding of a sorted set (types/zset.hpp; the name is what
// OBJECT ENCODING reports, as Redis does): an order-statistic B+tree of the
// members ordered by (score, member bytes), plus a hash table from member to
// element, so ZSCORE is O(1) and rank, range and update are O(log n).
//
//   element  one allocation: score 8 B, hash chain 8 B, length 4 B, bytes
//   leaf     up to kCap elements: their scores (8 B each, so comparisons
//            by score read the leaf only) and pointers (8 B), linked to its
//            neighbours for walks both ways
//   inner    up to kCap children, each with its subtree's element count
//            and its largest key (score and element)
//
// A lookup by key reads about log_24(n) nodes of a few cache lines each (4
// for 100,000 members) where a skip list follows about 2 log_4(n) scattered
// nodes; the counts give rank -> element and element -> rank on the same
// descent. Leaves split in two when they overflow; a node that falls below
// a quarter full merges with a neighbour when both fit in three quarters of
// one, and empty nodes go at once, so the tree stays at least about a
// quarter full and O(log n) deep. A node split by an append keeps all but
// the new entry, so members added in ascending order fill nodes completely.
// An insert or a removal adds or takes one from the counts along its path
// and rewrites a largest key only along the right edge where it changed;
// only the entries of split or merged nodes are recomputed from their
// children.
//
// The hash table is core/chained_table.hpp's, linked through Elem::chain:
// it resizes incrementally, a few chains per insert and removal, so one ZADD
// to a set of millions of members never pays for moving them all. scan()
// walks its buckets with Redis's reverse-binary cursor, so a member present
// for a whole ZSCAN is returned at least once across resizes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/byte_hash.hpp"
#include "core/bytes.hpp"
#include "core/chained_table.hpp"

namespace lawnkv::types {

// The order of a sorted set's members with equal scores: memcmp over the
// shorter length, then the shorter first (Redis's sdscmp). A member is
// often compared with itself (a removal finds its own entry).
inline int compare_member_bytes(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = a.data() == b.data() ? 0 : compare_bytes(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// a == b, for members.
inline bool same_member(std::string_view a, std::string_view b) {
  return a.size() == b.size() && equal_bytes(a.data(), b.data(), a.size());
}

// (as, am) sorts before (bs, bm).
inline bool zset_before(double as, std::string_view am, double bs, std::string_view bm) {
  return as < bs || (as == bs && compare_member_bytes(am, bm) < 0);
}

class ZTree {
 public:
  static constexpr int kCap = 32;  // entries of a node
  struct Elem {
    double score;
    Elem* chain;  // next element of its hash bucket
    uint32_t len;
    std::string_view member() const { return {reinterpret_cast<const char*>(this + 1), len}; }
  };
  struct Leaf;
  // A place in the order: an element of a leaf (leaf null: past the end).
  struct Pos {
    Leaf* leaf = nullptr;
    int i = 0;
  };

  explicit ZTree(uint64_t seed);
  ~ZTree();
  ZTree(const ZTree&) = delete;
  ZTree& operator=(const ZTree&) = delete;

  size_t size() const { return size_; }
  uint64_t seed() const { return hash_.traits().seed; }
  const Elem* find(std::string_view member) const { return hash_.find(member); }
  // Adds a member that is not present.
  void insert(std::string_view member, double score);
  // Gives e (present) a new score, moving it to its place.
  void rescore(const Elem* e, double score);
  // Removes e (present) and frees it.
  void erase(const Elem* e);
  // Removes the element of rank (< size()) and frees it: erase(get(at(rank)))
  // in one descent.
  void erase_rank(size_t rank);

  // The 0-based rank of e (present).
  size_t rank_of(const Elem* e) const;
  // The place of rank (< size()).
  Pos at(size_t rank) const { return descend_rank(rank, nullptr); }
  static const Elem* get(Pos p);
  static void next(Pos& p);
  static void prev(Pos& p);

  // How many elements satisfy less(score, member), which must hold for a
  // prefix of the order and fail for the rest.
  template <class Less>
  size_t count_below(Less&& less) const;

  // fn(std::string_view member, double score) for the members of the
  // bucket(s) at cursor; returns the next cursor, 0 when done.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const;

  size_t memory_bytes() const;

  // For tests: every inner entry holds its child's element count and
  // largest key, and the counts add up to size().
  bool consistent() const;
  // For tests: the levels of inner nodes above the leaves.
  size_t depth() const;

 private:
  struct Node;
  struct Inner;
  static constexpr int kDepth = 32;
  struct Path {
    Inner* node[kDepth];
    int idx[kDepth];
    int depth = 0;
  };

  // Descends to the leaf that holds (or would hold) (score, member),
  // noting the inner nodes passed; returns the leaf.
  Leaf* descend(double score, std::string_view member, Path* path) const;
  // The place of rank (< size()), noting the inner nodes passed when path
  // is not null.
  Pos descend_rank(size_t rank, Path* path) const;
  void link(Elem* e);
  void unlink(const Elem* e);
  // Removes the entry at of leaf, reached by path, from the tree (its
  // element stays allocated and in the hash table).
  void remove_at(Leaf* leaf, int at, const Path& path);
  // Takes e, no longer in the tree, out of the hash table and frees it.
  void release(const Elem* e);
  // Splits an overfull node, moving its upper entries to a new right
  // neighbour: half of them, or only the last when the entry just added was
  // the last (appends, as ascending scores make, then leave full nodes).
  Node* split(Node* n, bool appended);
  void merge(Node* left, Node* right);
  // Child i of p, below kMinFill, merges with a neighbour when the two fit
  // in kMergeMax; true if it did.
  bool merge_small(Inner* p, int i);
  // Recomputes entry i of p from its child: count and largest key.
  static void refresh(Inner* p, int i);
  // Copies the largest key of child i into entry i of p.
  static void copy_max(Inner* p, int i);
  static void insert_entry(Inner* p, int at, Node* child);
  static void remove_entry(Inner* p, int at);
  void free_node(Node* n);
  // consistent() below n: its elements, its largest key in *max_score and
  // *max_elem; false on the first entry that disagrees with its child.
  static bool consistent(const Node* n, size_t* count, double* max_score, const Elem** max_elem);

  // The member -> element table.
  struct HashTraits {
    using Node = Elem;
    using Link = Elem*;
    using Key = std::string_view;
    uint64_t seed = 0;
    static Elem*& next(Elem& e) { return e.chain; }
    uint64_t hash(std::string_view member) const { return hash_bytes(member, seed); }
    uint64_t hash(const Elem& e) const { return hash_bytes(e.member(), seed); }
    bool equal(const Elem& e, std::string_view member, uint64_t) const { return same_member(e.member(), member); }
  };

  Node* root_;
  ChainedTable<HashTraits> hash_;
  uint64_t elem_bytes_ = 0;
  uint64_t node_bytes_ = 0;
  size_t size_ = 0;
};

struct ZTree::Node {
  bool leaf;
  int n = 0;
  explicit Node(bool is_leaf) : leaf(is_leaf) {}
};

struct ZTree::Leaf : Node {
  Leaf* next = nullptr;
  Leaf* prev = nullptr;
  double scores[kCap + 1];
  Elem* elems[kCap + 1];
  Leaf() : Node(true) {}
};

struct ZTree::Inner : Node {
  Node* child[kCap + 1];
  size_t count[kCap + 1];
  double max_score[kCap + 1];
  const Elem* max_elem[kCap + 1];
  Inner() : Node(false) {}
};

inline const ZTree::Elem* ZTree::get(Pos p) { return p.leaf->elems[p.i]; }

inline void ZTree::next(Pos& p) {
  if (++p.i < p.leaf->n) return;
  p.leaf = p.leaf->next;
  p.i = 0;
}

inline void ZTree::prev(Pos& p) {
  if (--p.i >= 0) return;
  p.leaf = p.leaf->prev;
  p.i = p.leaf ? p.leaf->n - 1 : 0;
}

template <class Less>
size_t ZTree::count_below(Less&& less) const {
  // A range open at either end of the set (-inf, +inf, a bound past the
  // first or last member) is settled by the end's key alone: the last is
  // the root's largest, the first at the end of the leftmost path.
  if (size_ == 0) return 0;
  const Node* x = root_;
  if (x->leaf) {
    const Leaf* l = static_cast<const Leaf*>(x);
    if (less(l->scores[l->n - 1], l->elems[l->n - 1]->member())) return size_;
  } else {
    const Inner* in = static_cast<const Inner*>(x);
    if (less(in->max_score[in->n - 1], in->max_elem[in->n - 1]->member())) return size_;
  }
  while (!x->leaf) x = static_cast<const Inner*>(x)->child[0];
  if (!less(static_cast<const Leaf*>(x)->scores[0], static_cast<const Leaf*>(x)->elems[0]->member())) return 0;
  size_t rank = 0;
  x = root_;
  while (!x->leaf) {
    const Inner* in = static_cast<const Inner*>(x);
    int i = 0;
    while (i < in->n - 1 && less(in->max_score[i], in->max_elem[i]->member())) rank += in->count[i++];
    x = in->child[i];
  }
  const Leaf* leaf = static_cast<const Leaf*>(x);
  int lo = 0, hi = leaf->n;  // the first index failing less
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (less(leaf->scores[mid], leaf->elems[mid]->member())) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return rank + static_cast<size_t>(lo);
}

template <class F>
uint64_t ZTree::scan(uint64_t cursor, F&& fn) const {
  return hash_.scan(cursor, [&](const Elem& e) { fn(e.member(), e.score); });
}

}  // namespace lawnkv::types
