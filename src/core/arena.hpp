#pragma once
// The heap behind 32-bit links.
//
// Why. With 16-byte names and values, a key is 32 bytes of payload, and the
// links around it (hash chain, expiry list prev/next) cost 24 more bytes as
// 64-bit pointers, as much as the payload with a TTL. Everything a link
// points at (a key's entry, an expiry Timer, a list sentinel) lives here
// instead, and a link is a Ref: a 32-bit offset from this heap's base in
// 8-byte units, so 32 GiB of such objects are addressable. Following a Ref
// is one shift and one add; the base is a global the loop keeps in cache.
//
// How. One reservation of address space (mmap with MAP_NORESERVE: it costs
// no memory until a page is touched), carved from the bottom by a bump
// pointer. A freed block goes on the free list of its exact size (sizes are
// multiples of 8), and the next allocation of that size takes it back. There
// are no block headers: the owner passes the size back when it frees (an
// entry knows its lengths). So a 40-byte entry costs 40 bytes, where a
// size-class allocator would round it up to 48.
//
// The price: memory freed here is reused for blocks of the same size but is
// not returned to the system (as with any slab allocator); RSS follows the
// high-water mark of live bytes of each size. bytes_in_use() is what INFO
// reports in used_memory beside the general allocator's figure.
//
// Not thread-safe: the server has one loop, and tests run single-threaded.

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace lawnkv::arena {

inline constexpr size_t kGranule = 8;

namespace detail {
// The heap's base. Offset 0 is never handed out, so handle 0 is null.
extern char* g_base;
}  // namespace detail

// A block of at least 1 byte, 8-aligned, rounded up to a multiple of 8.
// Throws std::bad_alloc when the reservation is exhausted.
void* allocate(size_t bytes);
// Gives back a block; bytes must be what was asked of allocate.
void deallocate(void* p, size_t bytes);

// Live bytes (after rounding to 8), and bytes ever touched (the high-water
// mark, which is what RSS sees).
uint64_t bytes_in_use();
uint64_t bytes_touched();

inline uint32_t handle_of(const void* p) {
  return p ? static_cast<uint32_t>((static_cast<const char*>(p) - detail::g_base) / kGranule) : 0;
}
inline void* pointer_of(uint32_t h) { return h ? detail::g_base + size_t{h} * kGranule : nullptr; }

template <class T, class... Args>
T* create(Args&&... args) {
  return new (allocate(sizeof(T))) T(std::forward<Args>(args)...);
}
template <class T>
void destroy(T* p) {
  if (!p) return;
  p->~T();
  deallocate(p, sizeof(T));
}

// A std allocator over the arena, for containers of objects that links point
// into (an index's list sentinels, test timers).
template <class T>
struct Allocator {
  using value_type = T;
  Allocator() = default;
  template <class U>
  Allocator(const Allocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(arena::allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { arena::deallocate(p, n * sizeof(T)); }
  friend bool operator==(const Allocator&, const Allocator&) { return true; }
};

// A 32-bit link to a T in the arena; converts to and from T* like a pointer.
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  Ref(T* p) : h_(handle_of(p)) {}

  T* get() const { return static_cast<T*>(pointer_of(h_)); }
  operator T*() const { return get(); }
  T* operator->() const { return get(); }
  uint32_t handle() const { return h_; }

  friend bool operator==(Ref a, Ref b) { return a.h_ == b.h_; }
  // Against a T* or a const T*: an exact match for both, else `ref == p` with
  // p a T* would tie with the built-in pointer == reached through operator T*
  // (ambiguous in C++20: clang rejects it, gcc warns).
  template <class U>
    requires std::is_same_v<const U, const T>
  friend bool operator==(Ref a, U* b) { return a.get() == b; }
  friend bool operator==(Ref a, std::nullptr_t) { return a.h_ == 0; }

 private:
  uint32_t h_ = 0;
};

}  // namespace lawnkv::arena
