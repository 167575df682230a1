#pragma once
// A growable array of small, trivially copyable values (a set's 32-bit member
// links) that costs its owner one pointer: its size and capacity live in the
// block, before the values.
//
//   size      4 B
//   capacity  4 B
//   values    capacity * sizeof(T)
//
// The block's bytes are one of jemalloc's size classes (16, 32, 48, 64, then
// four a doubling: 80, 96, 112, 128, 160, 192...), so it fills its
// allocation: 10 values of 4 bytes take a 48-byte block (room for 10), 10,000
// a 40,960-byte one (10,238), about 4.1 bytes a value. push_back takes the
// next class when the array is full (14% to 25% more room, more while the
// block is under 64 bytes); pop_back, once half of the block is unused,
// shrinks it to the class of a quarter more than the size. Either leaves at
// least an eighth of the size to push or pop before the next resize, so
// resizing costs O(1) a push or pop, amortized.
//
// Blocks of 64 KiB and more are mapped pages, resized by mremap
// (core/page_allocator.hpp), which moves their pages without copying: an
// array of millions never stalls the loop in one push. Smaller blocks are
// reallocated through malloc, a copy of under 64 KiB.
//
// References to values stay valid until the next push_back, pop_back or
// reserve. Up to 2^32 - 1 values.

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace lawnkv {

namespace compact_vector {
// The smallest size class of at least bytes.
size_t class_bytes(size_t bytes);
// The block `block` (nullptr: none) of old_bytes, now of new_bytes (> 0).
void* resize(void* block, size_t old_bytes, size_t new_bytes);
void release(void* block, size_t bytes);
}  // namespace compact_vector

template <class T>
class CompactVector {
  static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 8);

 public:
  CompactVector() = default;
  ~CompactVector() { compact_vector::release(block_, memory_bytes()); }
  CompactVector(const CompactVector&) = delete;
  CompactVector& operator=(const CompactVector&) = delete;

  size_t size() const { return block_ ? block_->size : 0; }
  size_t capacity() const { return block_ ? block_->capacity : 0; }
  bool empty() const { return size() == 0; }
  T& operator[](size_t i) { return values()[i]; }
  const T& operator[](size_t i) const { return values()[i]; }
  T& back() { return values()[block_->size - 1]; }

  void push_back(T v) {
    if (size() == capacity()) resize(size() + 1);
    values()[block_->size++] = v;
  }
  // Removes the last value; the array must not be empty.
  void pop_back() {
    const size_t n = --block_->size;
    if (n * 2 <= block_->capacity) shrink(n);
  }
  // Room for n values without another resize.
  void reserve(size_t n) {
    if (n > capacity()) resize(n);
  }

  // Bytes of the block (0 when none).
  size_t memory_bytes() const { return block_ ? bytes_for(block_->capacity) : 0; }

 private:
  struct Header {
    uint32_t size;
    uint32_t capacity;
  };
  static constexpr size_t bytes_for(size_t capacity) { return sizeof(Header) + capacity * sizeof(T); }

  T* values() const { return reinterpret_cast<T*>(block_ + 1); }
  // A block of the size class of n values, the values kept.
  void resize(size_t n) {
    const size_t bytes = compact_vector::class_bytes(bytes_for(n));
    const uint32_t size = static_cast<uint32_t>(this->size());
    block_ = static_cast<Header*>(compact_vector::resize(block_, memory_bytes(), bytes));
    block_->size = size;
    block_->capacity = static_cast<uint32_t>((bytes - sizeof(Header)) / sizeof(T));
  }
  void shrink(size_t n) {
    const size_t keep = n + n / 4;
    if (compact_vector::class_bytes(bytes_for(keep)) < memory_bytes()) resize(keep);
  }

  Header* block_ = nullptr;
};

}  // namespace lawnkv
