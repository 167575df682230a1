#pragma once
// A set of 64-bit integers kept as ONE sorted array, as Redis's intset: the
// "intset" encoding of a set whose members are all integers.
//
//   header   8 B   length (u32), width (u8: 2, 4 or 8 bytes an element)
//   data     length * width bytes, ascending, native byte order
//
// Every element has the width of the widest one: {1, 2, 3} costs 8 + 3 * 2
// bytes; adding 100000 widens all of them to 4 bytes, and adding 2^40 to 8.
// As in Redis the width never narrows again when wide elements leave. The
// block is reallocated to its exact size at every insert and erase (jemalloc
// keeps most of those in place, within a size class), so a set holds no
// spare capacity. Membership is a binary search; insert and erase move the
// tail of the array: O(n), which the encoding's size limit
// (set-max-intset-entries, types/set.hpp) keeps small.
//
// Order is observable: SMEMBERS, SSCAN and every reply that walks an intset
// list its members ascending, as Redis does, so clients and the compat
// tests can rely on it.

#include <cstddef>
#include <cstdint>

namespace lawnkv::types {

class IntSet {
 public:
  IntSet() = default;
  ~IntSet();
  IntSet(const IntSet& other);  // a deep copy
  IntSet& operator=(const IntSet&) = delete;
  IntSet(IntSet&& other) noexcept : block_(other.block_) { other.block_ = nullptr; }
  IntSet& operator=(IntSet&& other) noexcept;

  size_t size() const { return block_ ? header()->length : 0; }
  bool empty() const { return size() == 0; }
  // Bytes per element: 2, 4 or 8 (2 while empty).
  unsigned width() const { return block_ ? header()->width : 2; }
  // The i-th smallest element, i < size().
  int64_t at(size_t i) const;

  bool contains(int64_t v) const;
  // Adds v; false if it was there already.
  bool insert(int64_t v);
  // Removes v; false if it was not there.
  bool erase(int64_t v);
  // Removes the element at position i < size() (SPOP of a random index).
  void erase_at(size_t i);
  void clear();

  // Bytes of the block (0 when empty).
  size_t memory_bytes() const { return block_ ? sizeof(Header) + size() * width() : 0; }

  // The width an element needs: 2 for int16_t's range, 4 for int32_t's, else 8.
  static unsigned width_of(int64_t v);

 private:
  struct Header {
    uint32_t length;
    uint8_t width;
  };
  static_assert(sizeof(Header) == 8);

  Header* header() const { return reinterpret_cast<Header*>(block_); }
  char* data() const { return block_ + sizeof(Header); }
  // Position of v, or where it would go (*found false).
  size_t search(int64_t v, bool* found) const;
  // Reallocates the block for length elements of width bytes.
  void resize(size_t length, unsigned width);
  void put(size_t i, int64_t v);
  // Re-encodes every element at v's (wider) width and adds v, which lies
  // outside the current range: first if negative, last if positive.
  void upgrade_and_add(int64_t v);

  char* block_ = nullptr;  // nullptr: empty
};

}  // namespace lawnkv::types
