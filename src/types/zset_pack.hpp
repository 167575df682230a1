#pragma once
// The "listpack" encoding of a sorted set (types/zset.hpp): its members in
// order, (score, member bytes) ascending, packed in one byte buffer.
//
//   len     1 B, or 0xFF and 4 B for a member of 255 bytes or more
//   bytes   len bytes
//   score   8 B, the double as it is in memory
//
// A 10-byte member costs 19 bytes. Every operation walks the buffer, as
// Redis's listpack does: the encoding holds at most
// zset-max-listpack-entries members (128 by default), a few cache lines.
// Offsets into the buffer name entries; they stay valid until it changes.
// The buffer is reallocated to its exact size on each insert (Redis's
// listpack does the same): a set this small costs a copy of a few KB.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace lawnkv::types {

class ZPack {
 public:
  struct Item {
    std::string_view member;
    double score;
    size_t next;  // offset of the entry after this one
  };

  size_t size() const { return count_; }
  // Offsets of the first entry and one past the last.
  size_t begin() const { return 0; }
  size_t end() const { return buf_.size(); }
  Item at(size_t off) const;

  // Offset of member's entry (its score in *score), or end().
  size_t find(std::string_view member, double* score) const;
  // Adds a member that is not present, at its place in the order.
  void insert(std::string_view member, double score) { insert_at(place_of(member, score), member, score); }
  // Adds a member that sorts after every present one.
  void push_back(std::string_view member, double score) { insert_at(buf_.size(), member, score); }
  // Removes the entries in [from, to), which hold n entries.
  void erase(size_t from, size_t to, size_t n);

  size_t memory_bytes() const { return sizeof(*this) + buf_.capacity(); }

 private:
  static constexpr uint8_t kLongLen = 0xFF;
  size_t place_of(std::string_view member, double score) const;
  void insert_at(size_t off, std::string_view member, double score);
  std::vector<char> buf_;  // grown to the exact size: no slack, as a listpack
  uint32_t count_ = 0;
};

inline ZPack::Item ZPack::at(size_t off) const {
  const char* p = buf_.data() + off;
  size_t len = static_cast<uint8_t>(*p++);
  if (len == kLongLen) {
    uint32_t l;
    std::memcpy(&l, p, 4);
    len = l;
    p += 4;
  }
  double score;
  std::memcpy(&score, p + len, 8);
  return {{p, len}, score, static_cast<size_t>(p - buf_.data()) + len + 8};
}

}  // namespace lawnkv::types
