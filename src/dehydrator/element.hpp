#pragma once
// One element of a dehydrator: its links, push sequence, id and value, in ONE
// block of the 32-bit-link heap (core/arena.hpp), like store::Entry.
//
//   timer           16 B  first: the index hands back &timer
//   seq              8 B  push order, for ties between equal deadlines
//   due_prev/next    8 B  the due list (32-bit links)
//   next_in_bucket   4 B  the id table's chain (id_table.hpp)
//   hash             4 B  the id's hash, so the table never hashes it again
//   id_len, value_len, flags   3 B
//   id, then value   id_len and value_len bytes, or a std::string* each when
//                    longer than kInlineMax (kIdOnHeap, kValueOnHeap)
//
// A 10-byte id with an 11-byte value is a 64-byte block: no per-block header,
// no node elsewhere. An element never changes size in place: UPDATE with a
// value of another length makes a new block and moves the links to it.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/arena.hpp"
#include "expiry/timer.hpp"

namespace lawnkv::dehydrator {

// The hash of an id, as the id table buckets it.
uint32_t hash_id(std::string_view id);

class Element {
 public:
  // Ids and values up to this length are stored in the block itself.
  static constexpr size_t kInlineMax = 255;

  // A new block (timer unscheduled, links null, not due).
  static Element* make(std::string_view id, std::string_view value, uint64_t seq);
  // Frees the block and what it holds outside it.
  static void destroy(Element* e);
  static Element* from_timer(expiry::Timer* t) { return reinterpret_cast<Element*>(t); }

  Element(const Element&) = delete;
  Element& operator=(const Element&) = delete;

  std::string_view id() const { return part(data(), id_len_, kIdOnHeap); }
  std::string_view value() const { return part(value_data(), value_len_, kValueOnHeap); }
  // Replaces the value in place when that needs no new block (same inline
  // length, or a long value that stays long); false otherwise, and nothing
  // changed.
  bool assign_in_place(std::string_view value);

  // On the due list (out of the index), rather than scheduled in the index.
  bool due() const { return flags_ & kDue; }
  void set_due() { flags_ |= kDue; }

  // Bytes of the arena block, and bytes held outside it (long ids, values).
  size_t block_bytes() const;
  size_t outside_bytes() const;

  expiry::Timer timer;
  uint64_t seq = 0;
  arena::Ref<Element> due_prev;
  arena::Ref<Element> due_next;
  arena::Ref<Element> next_in_bucket;
  uint32_t hash = 0;

 private:
  enum Flags : uint8_t { kDue = 1, kIdOnHeap = 2, kValueOnHeap = 4 };

  Element() = default;
  // Bytes of a block whose id and value parts take parts bytes.
  static size_t bytes_for(size_t parts);
  std::string_view part(const char* at, uint8_t inline_len, Flags on_heap) const;
  // Writes an id or value at `at`: inline (setting *inline_len) when short,
  // else as a pointer to a new std::string (setting on_heap).
  void put(char* at, std::string_view bytes, uint8_t* inline_len, Flags on_heap);

  char* data() { return bytes_; }
  const char* data() const { return bytes_; }
  size_t id_part() const { return (flags_ & kIdOnHeap) ? sizeof(void*) : id_len_; }
  size_t value_part() const { return (flags_ & kValueOnHeap) ? sizeof(void*) : value_len_; }
  char* value_data() { return data() + id_part(); }
  const char* value_data() const { return data() + id_part(); }

  uint8_t id_len_ = 0;
  uint8_t value_len_ = 0;
  uint8_t flags_ = 0;
  // Where the id starts; the block goes on past the struct as far as the id
  // and value need (and is never smaller than the struct).
  char bytes_[5];
};
static_assert(sizeof(Element) == 48, "the fixed part of an element's block: 43 bytes and bytes_");

}  // namespace lawnkv::dehydrator
