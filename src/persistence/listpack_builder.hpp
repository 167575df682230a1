#pragma once
// Builds a listpack as Redis writes one (listpack.c's format, the one
// rdb_blobs.hpp decodes): a 6-byte header (total bytes, element count),
// each element as an encoding byte, its data and its length backwards,
// then 0xFF. Integers take the smallest integer encoding; strings are
// written as strings.

#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::persistence {

class ListpackBuilder {
 public:
  void add(std::string_view s);
  void add(int64_t v);
  // Appends other's elements after these.
  void append(const ListpackBuilder& other) {
    body_.append(other.body_);
    count_ += other.count_;
  }
  // The finished listpack.
  std::string finish() const;

 private:
  void backlen(size_t n);
  std::string body_;
  uint32_t count_ = 0;
};

}  // namespace lawnkv::persistence
