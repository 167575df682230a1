#pragma once
// A connection's query buffer: bytes read but not yet consumed by the parser.
// libuv reads straight into its free tail (no copy, no zero-fill), and the
// parser sees the unconsumed bytes as one contiguous string_view, so request
// arguments can be views into it.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace lawnkv::server {

class InputBuffer {
 public:
  std::string_view view() const { return {data_.get(), size_}; }
  size_t size() const { return size_; }
  size_t free_bytes() const { return capacity_ - size_; }
  size_t capacity() const { return capacity_; }

  // Makes at least n bytes free at the tail: doubling for small growth,
  // exactly what is asked for a big declared bulk.
  void reserve_free(size_t n) {
    if (capacity_ - size_ >= n) return;
    const size_t cap = std::max({size_t{16384}, capacity_ * 2 <= size_ + n ? size_ + n : capacity_ * 2});
    std::unique_ptr<char[]> fresh(new char[cap]);
    if (size_) std::memcpy(fresh.get(), data_.get(), size_);
    data_ = std::move(fresh);
    capacity_ = cap;
  }
  char* tail() { return data_.get() + size_; }
  void commit(size_t n) { size_ += n; }

  // Drops the first n bytes; what remains moves to the front. A large buffer
  // that has become empty is released.
  void consume(size_t n) {
    if (n == 0) return;
    size_ -= n;
    if (size_) std::memmove(data_.get(), data_.get() + n, size_);
    if (size_ == 0 && capacity_ > kKeepBytes) {
      data_.reset();
      capacity_ = 0;
    }
  }

 private:
  static constexpr size_t kKeepBytes = 64 * 1024;
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace lawnkv::server
