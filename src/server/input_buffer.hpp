#pragma once
// A connection's query buffer: bytes read but not yet consumed by the parser.
// libuv reads straight into its free tail (no copy, no zero-fill), and the
// parser sees the unconsumed bytes as one contiguous string_view, so request
// arguments can be views into it.
//
// Its memory follows Redis 7.0's query buffer: a read makes 16 KB free (more
// for a big declared bulk), a large buffer that empties is released at once,
// and the clients cron (clients_cron.hpp) calls resize_from_cron() about
// once a second per client, which releases the free space of a client idle
// for more than 2 s and trims a buffer much larger than its recent peak
// (clientsCronResizeQueryBuffer). An idle client then holds no buffer.

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
  // The most bytes the buffer was asked to hold (size + room made for a
  // read) since the last resize_from_cron(): Redis's querybuf_peak.
  size_t peak() const { return peak_; }

  // Makes at least n bytes free at the tail: doubling for small growth,
  // exactly what is asked for a big declared bulk.
  void reserve_free(size_t n) {
    peak_ = std::max(peak_, size_ + n);
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

  // The clients cron's visit. Only a buffer wasting more than 4 KB is
  // touched: if idle (nothing read from or written to the client for more
  // than 2 s) it keeps exactly its unconsumed bytes (none: no buffer);
  // otherwise, if it is over 32 KB and twice its peak, it shrinks to the
  // largest of its size, its peak and `bulk` (the length of the bulk being
  // read, which will soon need the room). Then the peak restarts from the
  // current size (or `bulk`). True if the buffer was reallocated.
  bool resize_from_cron(bool idle, size_t bulk) {
    bool resized = false;
    if (free_bytes() > kWasteBytes) {
      if (idle) {
        resized = reallocate(size_);
      } else if (capacity_ > kResizeThreshold && capacity_ / 2 > peak_) {
        resized = reallocate(std::max({size_, peak_, bulk}));
      }
    }
    peak_ = std::max(size_, bulk);
    return resized;
  }

 private:
  static constexpr size_t kKeepBytes = 64 * 1024;
  static constexpr size_t kWasteBytes = 4 * 1024;         // Redis: sdsavail > 1024*4
  static constexpr size_t kResizeThreshold = 32 * 1024;  // Redis's PROTO_RESIZE_THRESHOLD

  // Moves the bytes to a buffer of exactly cap (>= size_) bytes; 0 frees it.
  bool reallocate(size_t cap) {
    if (cap == capacity_) return false;
    std::unique_ptr<char[]> fresh(cap ? new char[cap] : nullptr);
    if (size_) std::memcpy(fresh.get(), data_.get(), size_);
    data_ = std::move(fresh);
    capacity_ = cap;
    return true;
  }

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t peak_ = 0;
};

}  // namespace lawnkv::server
