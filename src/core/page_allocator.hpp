#pragma once
// Memory for big arrays (a hash table's buckets, a set's member slots):
// blocks of 64 KiB and more are mapped from the system and unmapped when
// freed, so the memory of the array a resize leaves behind goes back at
// once. Through malloc, jemalloc keeps such freed extents as dirty pages
// until its decay timer runs, which needs later allocation activity: after
// loading 1M keys the dictionary's old bucket arrays (4 MB) stayed resident,
// 4 of the RSS bytes per key. Smaller blocks use calloc.
//
// Memory comes zeroed, so default construction (a container's value
// initialisation) is skipped: T's zero bytes must be its default value (a null
// arena::Ref). Then a new 16 MB bucket array costs no page faults until its
// buckets are used, where writing its zeros took 13 ms in one insert.
//
// A block can also be resized in place of being replaced (page_reallocate):
// a mapped one by mremap, which moves its pages to a larger range without
// copying a byte (about 50 us for 64 MiB, where a copy took 26 ms), a small
// one by realloc (a copy of at most 64 KiB).
//
// Unmapping costs the kernel about 65 us per MiB (4 KiB pages: each freed,
// and the TLB flushed), so the old bucket array of a 1M-key table (4 MiB)
// cost 0.3 ms in the call that ended its rehash, 16 MiB a millisecond: a
// stall for every client, in the middle of a mass expiry as its keys shrink
// the table. A block larger than kPageReleaseStepBytes is therefore not
// unmapped by page_deallocate: it waits in a queue, and page_release_step()
// unmaps the next kPageReleaseStepBytes of it, which the server calls once a
// loop iteration while any wait (as it gives back arena chunks). At most
// kMaxPendingUnmapBytes wait: past that the oldest go at once. used_memory
// stops counting a block when it is freed; RSS follows step by step.
// page_release_all() unmaps everything waiting (MEMORY PURGE, the flushes).

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace lawnkv {

// Bytes mapped by these functions now (INFO used_memory counts them).
inline uint64_t g_page_allocator_bytes = 0;
// Blocks of at least this many bytes are mapped.
inline constexpr size_t kPageMapThreshold = 64 * 1024;
// Bytes one page_release_step() unmaps at most (about 65 us), and blocks
// larger than this wait for it.
inline constexpr size_t kPageReleaseStepBytes = size_t{1} << 20;
// Bytes of freed blocks that may wait to be unmapped.
inline constexpr size_t kMaxPendingUnmapBytes = size_t{64} << 20;

namespace detail {
// Freed blocks waiting to be unmapped, oldest first: the rest of each
// (a step unmaps a block from its start).
struct PendingUnmap {
  char* p;
  size_t bytes;
};
inline std::vector<PendingUnmap> g_pending_unmaps;
inline size_t g_pending_unmap_bytes = 0;
}  // namespace detail

// Whether freed blocks wait to be unmapped.
inline bool page_release_pending() { return detail::g_pending_unmap_bytes > 0; }

// Unmaps up to kPageReleaseStepBytes of the oldest block waiting; returns
// the bytes unmapped (0: none waits).
inline size_t page_release_step() {
  auto& queue = detail::g_pending_unmaps;
  if (queue.empty()) return 0;
  detail::PendingUnmap& front = queue.front();
  const size_t n = front.bytes < kPageReleaseStepBytes ? front.bytes : kPageReleaseStepBytes;
  munmap(front.p, n);
  front.p += n;
  front.bytes -= n;
  detail::g_pending_unmap_bytes -= n;
  if (front.bytes == 0) queue.erase(queue.begin());
  return n;
}

// Unmaps every block waiting; returns the bytes.
inline size_t page_release_all() {
  size_t total = 0;
  for (size_t n; (n = page_release_step()) > 0;) total += n;
  return total;
}

// A zeroed block of `bytes` bytes.
inline void* page_allocate(size_t bytes) {
  if (bytes < kPageMapThreshold) {
    void* p = std::calloc(bytes, 1);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  g_page_allocator_bytes += bytes;
  return p;
}

// Frees a block of page_allocate or page_reallocate; bytes as given there.
inline void page_deallocate(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes < kPageMapThreshold) {
    std::free(p);
    return;
  }
  g_page_allocator_bytes -= bytes;
  if (bytes <= kPageReleaseStepBytes) {
    munmap(p, bytes);
    return;
  }
  detail::g_pending_unmaps.push_back({static_cast<char*>(p), bytes});
  detail::g_pending_unmap_bytes += bytes;
  while (detail::g_pending_unmap_bytes > kMaxPendingUnmapBytes) page_release_step();
}

// The block p of old_bytes, now of new_bytes (both > 0), perhaps at another
// address: its first min(old_bytes, new_bytes) bytes are kept, the bytes past
// old_bytes are unspecified. Mapped to mapped moves pages; anything else
// copies less than kPageMapThreshold bytes.
inline void* page_reallocate(void* p, size_t old_bytes, size_t new_bytes) {
  const bool mapped = old_bytes >= kPageMapThreshold, to_mapped = new_bytes >= kPageMapThreshold;
  if (mapped && to_mapped) {
    void* q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) throw std::bad_alloc();
    g_page_allocator_bytes += new_bytes;
    g_page_allocator_bytes -= old_bytes;
    return q;
  }
  if (!mapped && !to_mapped) {
    void* q = std::realloc(p, new_bytes);
    if (q == nullptr) throw std::bad_alloc();
    return q;
  }
  void* q = page_allocate(new_bytes);
  std::memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
  page_deallocate(p, old_bytes);
  return q;
}

// A std allocator over page_allocate, for bucket arrays replaced whole.
template <class T>
struct PageAllocator {
  using value_type = T;

  PageAllocator() = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) {}

  static_assert(std::is_trivially_copyable_v<T>);

  T* allocate(size_t n) { return static_cast<T*>(page_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { page_deallocate(p, n * sizeof(T)); }
  // Value initialisation: the memory is zero already.
  template <class U>
  void construct(U*) noexcept {}

  friend bool operator==(const PageAllocator&, const PageAllocator&) { return true; }
};

}  // namespace lawnkv
