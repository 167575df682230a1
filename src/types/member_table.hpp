#pragma once
// A set of byte strings: the "hashtable" encoding of a set (types/set.hpp).
//
// Chained hashing over 32-bit links, as the keyspace's store::Dict, plus a
// dense array of the members for drawing one at random. Each member is ONE
// block of the 32-bit-link heap (core/arena.hpp):
//
//   next    4 B   the bucket's chain
//   slot    4 B   where slots_ holds this member
//   len     1 B   the member's length, or kOnHeap
//   bytes   len bytes (up to kInlineMax); a longer member is a std::string
//           on the heap, its pointer at offset 16
//
// Buckets are 4-byte links. slots_ (core/compact_vector.hpp) is an array of
// 4-byte links whose slots 0 to size() - 1 hold the members, each once, with
// no gap: an insert appends, an erase moves the last member into the slot it
// frees (and writes the new slot into that member's block).
//
// The block is rounded up to 8 bytes: a member of up to 7 bytes costs 16, of
// 8 to 15 bytes 24, of 16 to 23 bytes 32. With the buckets (4 bytes each, at
// a load of 1/2 to 1) and its slot (4 bytes and up to a quarter more), a
// 10-byte member costs 32 to 37 bytes. Redis 7.0 spends a 24-byte dictEntry
// (32 in jemalloc), an sds (16 for 10 bytes) and an 8-byte bucket: about 56.
// Nodes cache no hash: moving one during a rehash hashes its bytes again
// (hash_bytes, a few ns for short members).
//
// random() is uniform and O(1): it reads the slot of an index drawn below
// size(), then that member's block, two cache misses in a large table;
// pop_random() then finds the member's chain link by its hash, as erase()
// does. An erase pays for the slots with the moved member's block and two
// slots (one of them the last, usually in cache).
//
// The buckets are core/chained_table.hpp's, which resizes incrementally (a
// set of millions of members must not stall the loop in one SADD): every
// insert and erase moves up to kRehashBuckets chains. slots_ is resized
// whole, but never copied past 64 KiB (16k members): beyond that mremap
// moves its pages (about 50 us for 16M members). The object itself is 48
// bytes (the table's 32 with its seed, the size in slots_'s block): most
// sets are small.
//
// scan() is Redis's dictScan: a member present for a whole SSCAN is
// returned at least once across any number of resizes (possibly twice after
// a shrink).

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/arena.hpp"
#include "core/byte_hash.hpp"
#include "core/chained_table.hpp"
#include "core/compact_vector.hpp"

namespace lawnkv::types {

class MemberTable {
 public:
  static constexpr size_t kMinBuckets = ChainedTableSizes::kMinBuckets;
  // Members up to this length are stored in their block.
  static constexpr size_t kInlineMax = 254;

  // An empty table whose hash is keyed by seed, with buckets for `expected`
  // members (no rehash until it holds more).
  explicit MemberTable(uint64_t seed, size_t expected = 0);
  ~MemberTable();
  // A deep copy with the same seed.
  MemberTable(const MemberTable& other);
  MemberTable& operator=(const MemberTable&) = delete;

  bool contains(std::string_view member) const;
  // Adds member; false if present.
  bool insert(std::string_view member);
  // Removes member; false if absent.
  bool erase(std::string_view member);

  size_t size() const { return slots_.size(); }
  // A member drawn uniformly; the table must not be empty. The view is
  // valid until the member is erased.
  std::string_view random(std::mt19937_64& rng) const { return member_of(slots_[random_slot(rng)]); }
  // Draws a member as random() does, calls use(std::string_view) on it,
  // then erases it without copying its bytes: its chain is searched for its
  // block, not compared byte by byte.
  template <class F>
  void pop_random(std::mt19937_64& rng, F&& use) {
    const size_t slot = random_slot(rng);
    use(member_of(slots_[slot]));
    erase_slot(slot);
  }

  // Calls fn(std::string_view) for each member: table order, which is not
  // insertion order. An fn that returns bool stops the walk with false.
  template <class F>
  void for_each(F&& fn) const {
    table_.for_each([&](const Node& n) { return fn(member_of(&n)); });
  }
  // Calls fn(std::string_view) for the members of the bucket(s) at cursor
  // and returns the next cursor (0 = the scan is complete). fn must not
  // change the table.
  template <class F>
  uint64_t scan(uint64_t cursor, F&& fn) const {
    return table_.scan(cursor, [&](const Node& n) { fn(member_of(&n)); });
  }

  // Bytes of this object, its bucket arrays, its slots and its members'
  // blocks.
  size_t memory_bytes() const;
  // The bucket count the table has, or is rehashing to.
  size_t bucket_count() const { return table_.bucket_count(); }
  bool rehashing() const { return table_.rehashing(); }
  // Checks that slots_ holds each member of the chains once, each in the
  // slot its block names: an empty string, or what is wrong. O(size()), for
  // tests.
  std::string check() const;

 private:
  struct Node {
    static constexpr uint8_t kOnHeap = 255;
    static constexpr size_t kHeader = 9;
    arena::Ref<Node> next;
    uint32_t slot;
    uint8_t len;  // inline length, or kOnHeap
    // The bytes follow (or, kOnHeap, a std::string* at offset 16).
    const char* bytes() const { return reinterpret_cast<const char*>(this) + kHeader; }
    char* bytes() { return reinterpret_cast<char*>(this) + kHeader; }
  };
  struct Traits {
    using Node = MemberTable::Node;
    using Link = arena::Ref<Node>;
    using Key = std::string_view;
    uint64_t seed = 0;
    static Link& next(Node& n) { return n.next; }
    uint64_t hash(std::string_view member) const { return hash_bytes(member, seed); }
    uint64_t hash(const Node& n) const { return hash_bytes(member_of(&n), seed); }
    bool equal(const Node& n, std::string_view member, uint64_t) const { return member_of(&n) == member; }
  };
  using Link = arena::Ref<Node>;

  // The arena block of a member of len bytes.
  static size_t block_size(size_t len);
  static std::string_view member_of(const Node* n);
  static void destroy(Node* n, uint64_t* bytes);
  size_t random_slot(std::mt19937_64& rng) const { return rng() % slots_.size(); }
  // Takes *link's member out of its chain and its slot, and frees it.
  void unlink(Link* link);
  void erase_slot(size_t slot);

  ChainedTable<Traits> table_;
  CompactVector<Link> slots_;  // every member once, in no particular order
  uint64_t node_bytes_ = 0;    // the members' blocks and heap strings
};

static_assert(sizeof(MemberTable) == 48);

}  // namespace lawnkv::types
