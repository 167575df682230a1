#pragma once
// A set: the value type behind SADD, SMEMBERS, SINTER... ("set" to TYPE).
//
// Two encodings, with Redis 7.0's rules, because OBJECT ENCODING reports them
// and the order of replies depends on them:
//
//   "intset"     every member is an integer (string_to_ll: "12", "-3", not
//                "012", "+1", "1.0") and there are at most
//                set-max-intset-entries of them (capped at 2^30, as Redis
//                caps it): a sorted array of 2, 4 or 8 bytes an element
//                (types/intset.hpp). Replies list its members ascending.
//   "hashtable"  anything else: a chained hash table of byte strings
//                (types/member_table.hpp), about 32 to 37 bytes a 10-byte
//                member.
//
// A new set starts as an intset. Adding a non-integer, or one integer too
// many, converts it to a hash table for good: removing members never
// converts back (Redis 7.0 neither). Only sets built anew can be intsets
// again: the results of SINTERSTORE, SUNIONSTORE, SDIFFSTORE, and what SPOP
// with a count leaves when it rebuilds the set (pop_many).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/numbers.hpp"
#include "store/entry.hpp"
#include "types/intset.hpp"
#include "types/member_table.hpp"

namespace lawnkv::types {

// What a set that grows needs to know.
struct SetOptions {
  // set-max-intset-entries: the most members an intset holds.
  size_t max_intset_entries = 512;
  // Draws the seed of a hash table's hash, when the set makes one (so a
  // SADD that converts nothing draws nothing); nullptr: seed 0.
  std::mt19937_64* seeds = nullptr;

  uint64_t seed() const { return seeds ? (*seeds)() : 0; }
};

// One member as a set hands it out: an intset's integer or a hash table's
// bytes (which may look like an integer). Views are valid until the set
// changes.
struct Member {
  std::string_view bytes;  // when !is_int
  int64_t value = 0;       // when is_int
  bool is_int = false;

  static Member of_int(int64_t v) { return Member{{}, v, true}; }
  static Member of_bytes(std::string_view s) { return Member{s, 0, false}; }
  // The member as text: bytes, or value written into buf.
  std::string_view text(char (&buf)[kLongStrSize]) const {
    return is_int ? std::string_view(buf, ll_to_chars(buf, value)) : bytes;
  }
  std::string to_string() const {
    char buf[kLongStrSize];
    return std::string(text(buf));
  }
};

class Set final : public store::Object {
 public:
  // Redis's limit on an intset's length, whatever set-max-intset-entries says.
  static constexpr size_t kIntsetLimit = size_t{1} << 30;

  Set() = default;  // empty, an intset
  Set(const Set& other);
  Set& operator=(const Set&) = delete;

  store::Type type() const override { return store::Type::kSet; }
  size_t memory_bytes() const override;
  std::unique_ptr<store::Object> clone() const override;
  std::string_view encoding() const override { return table_ ? "hashtable" : "intset"; }

  bool is_intset() const { return !table_; }
  size_t size() const { return table_ ? table_->size() : ints_.size(); }
  bool empty() const { return size() == 0; }

  bool contains(std::string_view member) const;
  bool contains(const Member& m) const;
  // Adds a member; false if present. May convert to a hash table (above).
  bool add(std::string_view member, const SetOptions& opts);
  bool add(const Member& m, const SetOptions& opts);
  // Removes a member; false if absent.
  bool remove(std::string_view member);
  bool remove(const Member& m);

  // Calls fn(const Member&) for every member: ascending for an intset,
  // table order for a hash table. fn must not change the set; an fn that
  // returns bool stops the walk with false.
  template <class F>
  void for_each(F&& fn) const;
  // A member drawn uniformly; the set must not be empty.
  Member random(std::mt19937_64& rng) const;
  // SPOP key: draws a member as random() does, calls use(const Member&) on
  // it (the view is valid during the call), then removes it.
  template <class F>
  void pop_random(std::mt19937_64& rng, F&& use);

  // SPOP key count, for 0 < count < size(): removes count members drawn
  // without repetition and calls emit(const Member&) on each (the view is
  // valid during the call). As Redis 7.0: when the members left would be
  // few (left * 5 <= count), it draws those instead into a new set, emits
  // the rest in this set's order and takes the new set's place, so what is
  // left may be an intset again.
  template <class F>
  void pop_many(size_t count, const SetOptions& opts, std::mt19937_64& rng, F&& emit);

  // SSCAN over a hash table (an intset is returned whole by the caller):
  // fn(std::string_view) on the members of the bucket(s) at cursor; returns
  // the next cursor, 0 when done.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const {
    return table_ ? table_->scan(cursor, std::forward<F>(fn)) : 0;
  }

  // Exposed for tests: the members' structures.
  const IntSet& intset() const { return ints_; }
  const MemberTable* table() const { return table_.get(); }

 private:
  static size_t intset_cap(const SetOptions& opts) {
    return opts.max_intset_entries < kIntsetLimit ? opts.max_intset_entries : kIntsetLimit;
  }
  // Moves the intset's members into a new hash table.
  void convert(uint64_t seed);
  bool add_int(int64_t v, const SetOptions& opts);

  IntSet ints_;                         // the members while an intset
  std::unique_ptr<MemberTable> table_;  // non-null: the hashtable encoding
};

template <class F>
void Set::for_each(F&& fn) const {
  constexpr bool kStops = std::is_same_v<decltype(fn(Member())), bool>;
  if (table_) {
    table_->for_each([&](std::string_view s) {
      if constexpr (kStops) {
        return fn(Member::of_bytes(s));
      } else {
        fn(Member::of_bytes(s));
      }
    });
    return;
  }
  for (size_t i = 0; i < ints_.size(); ++i) {
    if constexpr (kStops) {
      if (!fn(Member::of_int(ints_.at(i)))) return;
    } else {
      fn(Member::of_int(ints_.at(i)));
    }
  }
}

template <class F>
void Set::pop_random(std::mt19937_64& rng, F&& use) {
  if (table_) {
    table_->pop_random(rng, [&](std::string_view s) { use(Member::of_bytes(s)); });
    return;
  }
  const size_t i = rng() % ints_.size();
  use(Member::of_int(ints_.at(i)));
  ints_.erase_at(i);
}

template <class F>
void Set::pop_many(size_t count, const SetOptions& opts, std::mt19937_64& rng, F&& emit) {
  const size_t left = size() - count;
  if (left * 5 > count) {
    while (count-- > 0) pop_random(rng, emit);
    return;
  }
  Set kept;
  for (size_t i = 0; i < left; ++i) {
    const Member m = random(rng);
    const std::string text = m.to_string();  // remove() invalidates m
    kept.add(text, opts);
    remove(text);
  }
  for_each(emit);
  std::swap(ints_, kept.ints_);
  std::swap(table_, kept.table_);
}

}  // namespace lawnkv::types
