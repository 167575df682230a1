#pragma once
// A std allocator for big arrays that are replaced whole (a hash table's
// buckets): blocks of 64 KiB and more are mapped from the system and unmapped
// when freed, so the memory of the array a resize leaves behind goes back at
// once. Through malloc, jemalloc keeps such freed extents as dirty pages
// until its decay timer runs, which needs later allocation activity: after
// loading 1M keys the dictionary's old bucket arrays (4 MB) stayed resident,
// 4 of the RSS bytes per key. Smaller blocks use calloc.
//
// Memory comes zeroed, so default construction (a container's value
// initialisation) is skipped: T's zero bytes must be its default value (a null
// arena::Ref). Then a new 16 MB bucket array costs no page faults until its
// buckets are used, where writing its zeros took 13 ms in one insert.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>

namespace lawnkv {

// Bytes mapped by PageAllocator now (INFO used_memory counts them).
inline uint64_t g_page_allocator_bytes = 0;

template <class T>
struct PageAllocator {
  using value_type = T;
  static constexpr size_t kMapThreshold = 64 * 1024;

  PageAllocator() = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) {}

  static_assert(std::is_trivially_copyable_v<T>);

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    void* p = bytes >= kMapThreshold ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                     : std::calloc(n, sizeof(T));
    if (p == nullptr || p == MAP_FAILED) throw std::bad_alloc();
    if (bytes >= kMapThreshold) g_page_allocator_bytes += bytes;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes >= kMapThreshold) {
      munmap(p, bytes);
      g_page_allocator_bytes -= bytes;
    } else {
      std::free(p);
    }
  }
  // Value initialisation: the memory is zero already.
  template <class U>
  void construct(U*) noexcept {}

  friend bool operator==(const PageAllocator&, const PageAllocator&) { return true; }
};

}  // namespace lawnkv
