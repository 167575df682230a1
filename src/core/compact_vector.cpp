#include "core/compact_vector.hpp"

#include <bit>

#include "core/page_allocator.hpp"

namespace lawnkv::compact_vector {

size_t class_bytes(size_t bytes) {
  if (bytes <= 64) return bytes <= 16 ? 16 : (bytes + 15) & ~size_t{15};
  // Four classes between 2^k (excluded) and 2^(k+1): steps of 2^(k-2).
  const size_t step = (std::bit_floor(bytes - 1)) >> 2;
  return (bytes + step - 1) & ~(step - 1);
}

void* resize(void* block, size_t old_bytes, size_t new_bytes) {
  return block ? page_reallocate(block, old_bytes, new_bytes) : page_allocate(new_bytes);
}

void release(void* block, size_t bytes) { page_deallocate(block, bytes); }

}  // namespace lawnkv::compact_vector
