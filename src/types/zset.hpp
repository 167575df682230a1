#pragma once
// A sorted set: the value type behind ZADD, ZRANGE, ZPOPMIN... ("zset" to
// TYPE). Members are unique byte strings, each with a double score; the
// order is by score, then by member bytes (memcmp, shorter first), as Redis.
//
// Two encodings, with Redis 7.0's rules, because OBJECT ENCODING reports
// them:
//
//   "listpack"  at most zset-max-listpack-entries members, none longer than
//               zset-max-listpack-value bytes: one packed buffer walked in
//               order (types/zset_pack.hpp).
//   "skiplist"  anything larger (the name Redis reports): an order-statistic
//               B+tree plus a hash table over the same elements
//               (types/zset_tree.hpp), O(log n) rank and range operations,
//               O(1) score lookup.
//
// ZADD's first member decides the encoding of a new key (ZADD creates a
// skiplist at once when the limit of entries is 0 or that member is too
// long); adding one member too many, or a member too long, converts a
// listpack to a skiplist. Removing never converts back. Only results built
// anew may be listpacks again: ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE
// (compact_if_fits) and ZRANGESTORE (a listpack when the result's length
// fits, converted as it grows).
//
// Every operation on a range works on ranks: a score or lex range is the
// ranks [count_below(not at least min), count_below(not past max)).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "store/entry.hpp"
#include "types/zset_pack.hpp"
#include "types/zset_tree.hpp"

namespace lawnkv::types {

// The encoding limits (zset-max-listpack-*), and the seed source for the
// skiplist's hash table.
struct ZSetOptions {
  size_t max_listpack_entries = 128;
  size_t max_listpack_value = 64;
  std::mt19937_64* seeds = nullptr;  // nullptr: seed 1

  uint64_t seed() const { return seeds ? (*seeds)() : 1; }
};

// ZADD's options (Redis's ZADD_IN_*).
enum ZAddFlags : unsigned {
  kZAddNone = 0,
  kZAddIncr = 1,
  kZAddNx = 2,
  kZAddXx = 4,
  kZAddGt = 8,
  kZAddLt = 16,
};

// What one add did (Redis's ZADD_OUT_*).
enum class ZAddResult {
  kNan,      // the score, or the score after INCR, is NaN: nothing changed
  kAdded,    // a new member
  kUpdated,  // an existing member got another score
  kSame,     // an existing member kept its score
  kNop,      // NX / XX / GT / LT refused
};

class ZSet final : public store::Object {
 public:
  // An empty listpack, or an empty skiplist whose hash is keyed by seed.
  explicit ZSet(bool skiplist = false, uint64_t seed = 1);
  ZSet(const ZSet& other);
  ZSet& operator=(const ZSet&) = delete;

  store::Type type() const override { return store::Type::kZSet; }
  size_t memory_bytes() const override;
  std::unique_ptr<store::Object> clone() const override;
  std::string_view encoding() const override { return list_ ? "skiplist" : "listpack"; }

  bool is_listpack() const { return !list_; }
  size_t size() const { return list_ ? list_->size() : pack_.size(); }
  bool empty() const { return size() == 0; }

  // member's score, if present.
  std::optional<double> score(std::string_view member) const;
  // Redis's zsetAdd: adds or updates member under flags; with kZAddIncr,
  // score is an increment. *newscore gets the score the member has after
  // (kAdded, kUpdated, kSame). May convert to a skiplist.
  ZAddResult add(std::string_view member, double score, unsigned flags, const ZSetOptions& opts,
                 double* newscore = nullptr);
  // Removes member; false if absent.
  bool remove(std::string_view member);
  // member's 0-based rank in ascending order, if present.
  std::optional<size_t> rank(std::string_view member) const;

  // How many members satisfy less(double score, std::string_view member),
  // which holds for a prefix of the order.
  template <class Less>
  size_t count_below(Less&& less) const;
  // Calls fn(std::string_view member, double score) for the ranks in
  // [start, end) (end <= size()): ascending, or descending from end - 1
  // when reverse. fn must not change the set.
  template <class F>
  void walk(size_t start, size_t end, bool reverse, F&& fn) const;
  // Removes the ranks [start, end).
  void erase_ranks(size_t start, size_t end);

  // Converts a skiplist that fits the listpack limits back to a listpack
  // (Redis's zsetConvertToListpackIfNeeded); max_len is the longest member.
  void compact_if_fits(const ZSetOptions& opts, size_t max_len);
  // Converts a listpack to a skiplist whose hash is keyed by seed.
  void to_skiplist(uint64_t seed);

  // ZSCAN over a skiplist (a listpack is returned whole by the caller):
  // fn(std::string_view member, double score) on the members of the
  // bucket(s) at cursor; returns the next cursor, 0 when done.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const {
    return list_ ? list_->scan(cursor, std::forward<F>(fn)) : 0;
  }

  // Exposed for tests.
  const ZTree* tree() const { return list_.get(); }

 private:
  ZPack pack_;                       // the members while a listpack
  std::unique_ptr<ZTree> list_;       // non-null: the skiplist encoding
};

template <class Less>
size_t ZSet::count_below(Less&& less) const {
  if (list_) return list_->count_below(less);
  size_t n = 0;
  for (size_t off = pack_.begin(); off < pack_.end(); ++n) {
    const ZPack::Item it = pack_.at(off);
    if (!less(it.score, it.member)) break;
    off = it.next;
  }
  return n;
}

template <class F>
void ZSet::walk(size_t start, size_t end, bool reverse, F&& fn) const {
  if (start >= end) return;
  if (list_) {
    ZTree::Pos p = list_->at(reverse ? end - 1 : start);
    for (size_t i = start; i < end; ++i) {
      const ZTree::Elem* e = ZTree::get(p);
      fn(e->member(), e->score);
      if (reverse) {
        ZTree::prev(p);
      } else {
        ZTree::next(p);
      }
    }
    return;
  }
  if (!reverse) {
    size_t off = pack_.begin();
    for (size_t i = 0; i < start; ++i) off = pack_.next(off);
    for (size_t i = start; i < end; ++i) {
      const ZPack::Item it = pack_.at(off);
      fn(it.member, it.score);
      off = it.next;
    }
    return;
  }
  // A listpack's entries have no back links: note the offsets first.
  std::vector<size_t> offs;
  offs.reserve(end);
  for (size_t off = pack_.begin(); offs.size() < end; off = pack_.next(off)) offs.push_back(off);
  for (size_t i = end; i-- > start;) {
    const ZPack::Item it = pack_.at(offs[i]);
    fn(it.member, it.score);
  }
}

}  // namespace lawnkv::types
