#include "core/arena.hpp"

#include <sys/mman.h>

#include <cstring>
#include <map>

// Under AddressSanitizer a freed block is poisoned until it is handed out
// again, so a stale pointer into the arena (an Entry* kept across a call
// that moved the entry: store/entry.hpp) is reported as a use after free,
// as it would be with malloc.
#if defined(__SANITIZE_ADDRESS__)
#define LAWNKV_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LAWNKV_ARENA_ASAN 1
#endif
#endif
#ifdef LAWNKV_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace lawnkv::arena {

namespace detail {
char* g_base = nullptr;
}  // namespace detail

namespace {

// Sizes up to this many granules (4 KiB) have a free list in an array; the
// rare larger blocks (an index's sentinel table) use a map.
constexpr size_t kSmallGranules = 512;

struct Heap {
  size_t reserved = 0;  // bytes of address space
  size_t top = kGranule;  // the bump pointer; [0, 8) is the null block
  uint64_t in_use = 0;
  uint32_t small_free[kSmallGranules + 1] = {};  // heads, by size in granules
  std::map<size_t, uint32_t> large_free;

  void reserve() {
    // 32 GiB is all a 32-bit handle of 8-byte units reaches. Where the
    // system refuses that much address space (strict overcommit, ulimit -v),
    // take what it grants.
    for (size_t want = size_t{1} << 35; want >= (size_t{1} << 28); want /= 2) {
      void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        // Keys are reached at random: with 4 KiB pages nearly every lookup
        // in a large keyspace also misses the TLB. Transparent huge pages
        // (where the system grants them on request, the Debian default)
        // cut user CPU per request at -P 16 by 12-16% on average, 6-22%
        // per pair of runs (SET, GET, SET EX, 1M keys; /proc/PID/stat
        // ticks, two alternating runs each), for at most 2 MB more RSS. Redis advises against THP because fork()
        // copies whole huge pages; lawnkv never forks.
        madvise(p, want, MADV_HUGEPAGE);
        detail::g_base = static_cast<char*>(p);
        reserved = want;
        return;
      }
    }
    throw std::bad_alloc();
  }

  // The head of the free list for n granules.
  uint32_t& head(size_t n) { return n <= kSmallGranules ? small_free[n] : large_free[n]; }
};

Heap& heap() {
  static Heap h;
  return h;
}

size_t granules(size_t bytes) { return bytes == 0 ? 1 : (bytes + kGranule - 1) / kGranule; }

// A free block's first 4 bytes hold the handle of the next free block of its
// size.
uint32_t next_free(uint32_t h) {
  uint32_t next;
  std::memcpy(&next, pointer_of(h), sizeof(next));
  return next;
}

}  // namespace

void* allocate(size_t bytes) {
  Heap& hp = heap();
  const size_t n = granules(bytes);
  uint32_t& free_head = hp.head(n);
  hp.in_use += n * kGranule;
  if (free_head != 0) {
    const uint32_t h = free_head;
    ARENA_UNPOISON(pointer_of(h), n * kGranule);
    free_head = next_free(h);
    return pointer_of(h);
  }
  if (!detail::g_base) hp.reserve();
  if (hp.top + n * kGranule > hp.reserved) {
    hp.in_use -= n * kGranule;
    throw std::bad_alloc();
  }
  void* p = detail::g_base + hp.top;
  hp.top += n * kGranule;
  return p;
}

void deallocate(void* p, size_t bytes) {
  if (!p) return;
  Heap& hp = heap();
  const size_t n = granules(bytes);
  uint32_t& free_head = hp.head(n);
  std::memcpy(p, &free_head, sizeof(free_head));
  free_head = handle_of(p);
  hp.in_use -= n * kGranule;
  ARENA_POISON(p, n * kGranule);
}

uint64_t bytes_in_use() { return heap().in_use; }
uint64_t bytes_touched() { return heap().top; }

}  // namespace lawnkv::arena
