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
// no memory until a page is touched), cut into 2 MiB chunks on 2 MiB
// boundaries (a transparent huge page each). Blocks are carved from one chunk
// at a time by a bump pointer; a block never straddles two chunks. A freed
// block goes on the free list of its exact size (sizes are multiples of 8, at
// least 16), and the next allocation of that size takes it back. There are no
// block headers: the owner passes the size back when it frees (an entry
// knows its lengths). So a 40-byte entry costs 40 bytes, where a size-class
// allocator would round it up to 48.
//
// Giving memory back. Each chunk counts its live bytes. A free block holds
// its size and both links of its (doubly linked) list, so when a chunk's last
// live block goes, its free blocks can be found by walking the chunk from its
// start and unlinked one by one: O(blocks in the chunk), no search of the
// lists. The chunk's memory then goes back to the system
// (madvise(MADV_DONTNEED) of the whole huge page) and the chunk is carved
// again later, before any new one. That walk is not done by the free that
// empties the chunk: the chunk joins a list of empty ones, and
// release_step() gives back the oldest, walking at most kReleaseStepBlocks
// of its blocks a call, which the server calls between loop iterations. So
// a flood of frees (a mass expiry, a large DEL) costs O(1) each, and no
// client waits behind a run of chunks given back at once, nor behind one
// chunk's whole walk (up to 131072 blocks, a millisecond or more when their
// list neighbours are cold). An allocation that takes a block of the chunk
// being walked keeps the chunk: the blocks the walk had unlinked go back on
// their lists. The last kKeptEmptyChunks chunks that emptied are
// never given back by a step (a workload that frees and refills around one
// chunk does not fault 2 MiB each time); release_free() gives back every
// empty chunk at once (after FLUSHDB and FLUSHALL, and MEMORY PURGE), and
// an empty chunk that gets a block again leaves the list. Blocks larger
// than kHugeBytes take whole chunks of their own and go back as soon as
// they are freed.
//
// So RSS follows the live bytes where keys die together (a flush, keys that
// expire in the order they were written), not the high-water mark. What
// stays is the chunks that still hold one live block: deleting 90% of the
// keys at random empties no chunk (no block is ever moved).
//
// Work: allocate and deallocate are O(1); a free also writes the previous
// head of its list (the last block of that size freed, usually in cache).
// Giving a chunk back is one pass over its blocks (at most 131072, of 16
// bytes), in steps of kReleaseStepBlocks, and one madvise; where the blocks
// were freed in random order, each block's list neighbours are cold.
//
// Not thread-safe: the server has one loop, and tests run single-threaded.

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace lawnkv::arena {

inline constexpr size_t kGranule = 8;
// The smallest block: a free block holds two links and its size.
inline constexpr size_t kMinBlock = 16;
// The unit in which memory goes back to the system: a huge page.
inline constexpr size_t kChunkBytes = size_t{2} << 20;
// Blocks above this size take whole chunks of their own.
inline constexpr size_t kHugeBytes = kChunkBytes / 4;
// Chunks with no live block kept resident for reuse.
inline constexpr size_t kKeptEmptyChunks = 2;
// Blocks one release_step() unlinks at most: about 0.1 ms with cold
// neighbours.
inline constexpr size_t kReleaseStepBlocks = 4096;

namespace detail {
// The heap's base. Offset 0 is never handed out, so handle 0 is null.
extern char* g_base;
}  // namespace detail

// The bytes a block asked for `bytes` takes: a multiple of 8, at least
// kMinBlock.
constexpr size_t block_bytes(size_t bytes) {
  return bytes <= kMinBlock ? kMinBlock : (bytes + kGranule - 1) / kGranule * kGranule;
}

// A block of block_bytes(bytes), 8-aligned. Throws std::bad_alloc when the
// reservation is exhausted.
void* allocate(size_t bytes);
// Gives back a block; bytes must be what was asked of allocate.
void deallocate(void* p, size_t bytes);
// Returns to the system every chunk that holds no live block, the kept ones
// included. Returns how many bytes that gave back.
size_t release_free();
// Whether chunks beyond the kept ones wait to be given back.
bool release_pending();
// Goes on giving back the oldest chunk that emptied, if more than
// kKeptEmptyChunks wait or one is under way: up to kReleaseStepBlocks of its
// blocks, then, when none is left, one madvise. Returns the bytes given back
// (kChunkBytes when the chunk went, else 0).
size_t release_step();

// Live bytes (block sizes); bytes of the chunks holding blocks now, up to
// where each is carved (about what RSS sees of the arena; with huge pages a
// chunk is resident whole); bytes given back to the system so far.
uint64_t bytes_in_use();
uint64_t bytes_touched();
uint64_t bytes_returned();
// Checks the free lists and each chunk's counts against each other, O(free
// blocks): an empty string, or what is wrong. For tests.
std::string check();

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
