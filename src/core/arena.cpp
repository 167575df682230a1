#include "core/arena.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>


namespace lawnkv::arena {

namespace detail {
char* g_base = nullptr;
}  // namespace detail

namespace {

constexpr size_t kChunkShift = 21;  // kChunkBytes == 1 << kChunkShift
static_assert(kChunkBytes == size_t{1} << kChunkShift);
constexpr size_t kHandleChunkShift = kChunkShift - 3;  // a handle counts granules
static_assert(kGranule == 8);
// Sizes up to this many granules (4 KiB) have a free list in an array; the
// rare larger blocks (an index's sentinel table) use a map.
constexpr size_t kSmallGranules = 512;
constexpr uint32_t kNoChunk = UINT32_MAX;

// The first 12 bytes of a free block (kMinBlock is 16).
struct FreeBlock {
  uint32_t next;      // handle of the next free block of this size, 0 = none
  uint32_t prev;      // handle of the previous one; stale while this block
                      // heads its list (popping the head writes nothing else)
  uint32_t granules;  // this block's size: lets release() walk a chunk
};

FreeBlock* block_at(uint32_t h) { return static_cast<FreeBlock*>(pointer_of(h)); }

// What a chunk holds.
enum class State : uint8_t {
  kFree,  // nothing, and no memory: never used, or given back
  kBump,  // blocks up to Heap::cur; the rest is still to be carved
  kTiled,  // blocks (live or free) from its start up to `end`
  kHuge,  // all or part of one block larger than kHugeBytes
};

struct ChunkInfo {
  uint32_t live = 0;  // bytes of live blocks (kBump, kTiled)
  uint32_t end = 0;   // kTiled: blocks tile [first_offset, end) of the chunk
  uint32_t span = 0;  // kHuge, first chunk of the block: chunks it covers
  State state = State::kFree;
  bool kept = false;  // kTiled, no live block: on Heap's empty list, still resident
  // Links of the empty list (chunk indexes, kNoChunk at its ends).
  uint32_t empty_prev = kNoChunk, empty_next = kNoChunk;
};

struct Heap {
  size_t reserved = 0;  // bytes of address space
  std::vector<ChunkInfo> chunks;  // every chunk ever used, by index
  std::set<uint32_t> given_back;  // kFree chunks below chunks.size(), lowest first
  // Chunks with no live block whose memory is still there, oldest first
  // (linked through ChunkInfo): the newest kKeptEmptyChunks stay, so that a
  // workload that frees and refills around a chunk boundary does not return
  // and fault 2 MiB each time; the older ones wait for release_step().
  uint32_t empty_first = kNoChunk, empty_last = kNoChunk;
  size_t empty_count = 0;
  uint32_t bump = kNoChunk;  // the kBump chunk, if any
  size_t cur = 0, limit = 0;  // its next block and its end (offsets from the base)
  uint64_t in_use = 0;
  uint64_t touched = 0;
  uint64_t returned = 0;
  uint32_t small_free[kSmallGranules + 1] = {};  // heads, by size in granules
  std::map<size_t, uint32_t> large_free;

  void reserve() {
    // 32 GiB is all a 32-bit handle of 8-byte units reaches. Where the
    // system refuses that much address space (strict overcommit, ulimit -v),
    // take what it grants. One chunk more than that is asked for, so that
    // chunks can start on 2 MiB boundaries: then each is a huge page, and
    // giving one back frees the whole page.
    for (size_t want = size_t{1} << 35; want >= (size_t{1} << 28); want /= 2) {
      const size_t ask = want + kChunkBytes;
      void* p = mmap(nullptr, ask, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) continue;
      char* raw = static_cast<char*>(p);
      char* base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kChunkBytes - 1) & ~(kChunkBytes - 1));
      if (base > raw) munmap(raw, base - raw);
      if (raw + ask > base + want) munmap(base + want, raw + ask - (base + want));
      // Keys are reached at random: with 4 KiB pages nearly every lookup
      // in a large keyspace also misses the TLB. Transparent huge pages
      // (where the system grants them on request, the Debian default)
      // cut user CPU per request at -P 16 by 12-16% on average, 6-22%
      // per pair of runs (SET, GET, SET EX, 1M keys; /proc/PID/stat
      // ticks, two alternating runs each), for at most 2 MB more RSS. Redis advises against THP because fork()
      // copies whole huge pages; lawnkv never forks.
      madvise(base, want, MADV_HUGEPAGE);
      detail::g_base = base;
      reserved = want;
      return;
    }
    throw std::bad_alloc();
  }

  // The head of the free list for n granules.
  uint32_t& head(size_t n) { return n <= kSmallGranules ? small_free[n] : large_free[n]; }

  static size_t first_offset(uint32_t c) { return c == 0 ? kGranule : size_t{c} << kChunkShift; }
  ChunkInfo& chunk_of(uint32_t h) { return chunks[h >> kHandleChunkShift]; }

  void push_free(uint32_t h, size_t n) {
    uint32_t& first = head(n);
    FreeBlock* b = block_at(h);
    b->next = first;
    b->prev = 0;
    b->granules = static_cast<uint32_t>(n);
    if (first) block_at(first)->prev = h;
    first = h;
  }

  void unlink_free(uint32_t h) {
    const FreeBlock* b = block_at(h);
    uint32_t& first = head(b->granules);
    if (first == h) {
      first = b->next;  // the new head's prev goes stale: it is never read
      return;
    }
    block_at(b->prev)->next = b->next;
    if (b->next) block_at(b->next)->prev = b->prev;
  }

  // n chunks in a row (for a huge block, not chunk 0: its offset 0 is null):
  // given-back ones first, else new ones from the top of the used range.
  uint32_t take_chunks(uint32_t n, bool for_huge) {
    if (!detail::g_base) reserve();
    uint32_t run_start = 0, run = 0;
    for (uint32_t c : given_back) {
      if (for_huge && c == 0) continue;
      if (run > 0 && c == run_start + run) {
        ++run;
      } else {
        run_start = c;
        run = 1;
      }
      if (run == n) {
        given_back.erase(given_back.find(run_start), given_back.upper_bound(run_start + n - 1));
        return run_start;
      }
    }
    uint32_t c = static_cast<uint32_t>(chunks.size());
    if (for_huge && c == 0) {
      chunks.emplace_back();
      given_back.insert(0);
      c = 1;
    }
    if ((size_t{c} + n) << kChunkShift > reserved) throw std::bad_alloc();
    chunks.resize(size_t{c} + n);
    return c;
  }

  // Retires the bump chunk (what is left of it becomes a free block) and
  // starts carving a new one.
  void next_bump_chunk() {
    if (bump != kNoChunk) {
      const size_t rest = limit - cur;
      if (rest >= kMinBlock) {
        push_free(static_cast<uint32_t>(cur / kGranule), rest / kGranule);
        touched += rest;
        cur = limit;
      }
      ChunkInfo& ci = chunks[bump];
      ci.state = State::kTiled;
      ci.end = static_cast<uint32_t>(cur - (size_t{bump} << kChunkShift));
      const uint32_t old = bump;
      bump = kNoChunk;
      cur = limit = 0;
      if (ci.live == 0) keep_empty(old);
    }
    const uint32_t c = take_chunks(1, false);
    chunks[c].state = State::kBump;
    bump = c;
    cur = first_offset(c);
    limit = (size_t{c} + 1) << kChunkShift;
  }

  // Chunk c (kTiled) has just lost its last live block: it joins the empty
  // list. Giving it back walks its blocks, so that waits for release_step()
  // (a free stays O(1) when a flood of frees empties chunk after chunk).
  void keep_empty(uint32_t c) {
    ChunkInfo& ci = chunks[c];
    ci.kept = true;
    ci.empty_prev = empty_last;
    ci.empty_next = kNoChunk;
    (empty_last == kNoChunk ? empty_first : chunks[empty_last].empty_next) = c;
    empty_last = c;
    ++empty_count;
  }

  // Chunk c leaves the empty list: it is about to get a live block again,
  // or to be given back.
  void unkeep(uint32_t c) {
    ChunkInfo& ci = chunks[c];
    ci.kept = false;
    (ci.empty_prev == kNoChunk ? empty_first : chunks[ci.empty_prev].empty_next) = ci.empty_next;
    (ci.empty_next == kNoChunk ? empty_last : chunks[ci.empty_next].empty_prev) = ci.empty_prev;
    ci.empty_prev = ci.empty_next = kNoChunk;
    --empty_count;
  }

  // Takes every block of chunk c (kTiled or kBump, no live block) off its
  // free list and returns the chunk's memory to the system. Work: the
  // chunk's blocks, each unlinked in O(1).
  void give_back(uint32_t c) {
    ChunkInfo& ci = chunks[c];
    const size_t start = size_t{c} << kChunkShift;
    const size_t end = ci.state == State::kBump ? cur : start + ci.end;
    for (size_t off = first_offset(c); off < end;) {
      const uint32_t h = static_cast<uint32_t>(off / kGranule);
      off += size_t{block_at(h)->granules} * kGranule;
      unlink_free(h);
    }
    madvise(detail::g_base + start, kChunkBytes, MADV_DONTNEED);
    touched -= end - first_offset(c);
    returned += kChunkBytes;
    if (c == bump) {
      bump = kNoChunk;
      cur = limit = 0;
    }
    ci = ChunkInfo();
    given_back.insert(c);
  }

  // The chunk release_step() is giving back, walked in steps: its blocks
  // below release_at are off their free lists already. kNoChunk: none.
  uint32_t releasing = kNoChunk;
  size_t release_at = 0;

  // Unlinks up to max_blocks more blocks of the releasing chunk (kTiled:
  // chunks on the empty list are). True when it has no block left on a list.
  bool walk_release(size_t max_blocks) {
    const size_t end = (size_t{releasing} << kChunkShift) + chunks[releasing].end;
    for (; release_at < end && max_blocks > 0; --max_blocks) {
      const uint32_t h = static_cast<uint32_t>(release_at / kGranule);
      release_at += size_t{block_at(h)->granules} * kGranule;
      unlink_free(h);
    }
    return release_at >= end;
  }

  // The releasing chunk, walked to its end, goes back to the system.
  void finish_release() {
    const uint32_t c = releasing;
    ChunkInfo& ci = chunks[c];
    madvise(detail::g_base + (size_t{c} << kChunkShift), kChunkBytes, MADV_DONTNEED);
    touched -= (size_t{c} << kChunkShift) + ci.end - first_offset(c);
    returned += kChunkBytes;
    ci = ChunkInfo();
    given_back.insert(c);
    releasing = kNoChunk;
  }

  // An allocation took one of the releasing chunk's blocks still on a list:
  // the chunk stays, and the blocks the walk unlinked go back on their lists
  // (a walk as long as the steps done so far, once).
  void cancel_release() {
    for (size_t off = first_offset(releasing); off < release_at;) {
      const uint32_t h = static_cast<uint32_t>(off / kGranule);
      const size_t n = block_at(h)->granules;
      push_free(h, n);
      off += n * kGranule;
    }
    releasing = kNoChunk;
  }

  void* allocate_huge(size_t bytes) {
    const uint32_t n = static_cast<uint32_t>((bytes + kChunkBytes - 1) >> kChunkShift);
    const uint32_t c = take_chunks(n, true);
    for (uint32_t i = 0; i < n; ++i) chunks[c + i].state = State::kHuge;
    chunks[c].span = n;
    in_use += bytes;
    touched += size_t{n} << kChunkShift;
    return detail::g_base + (size_t{c} << kChunkShift);
  }

  void deallocate_huge(void* p, size_t bytes) {
    const uint32_t c = static_cast<uint32_t>((static_cast<char*>(p) - detail::g_base) >> kChunkShift);
    const uint32_t n = chunks[c].span;
    madvise(p, size_t{n} << kChunkShift, MADV_DONTNEED);
    for (uint32_t i = 0; i < n; ++i) {
      chunks[c + i] = ChunkInfo();
      given_back.insert(c + i);
    }
    in_use -= bytes;
    touched -= size_t{n} << kChunkShift;
    returned += size_t{n} << kChunkShift;
  }
};

Heap& heap() {
  static Heap h;
  return h;
}

size_t granules(size_t bytes) { return block_bytes(bytes) / kGranule; }

}  // namespace

void* allocate(size_t bytes) {
  Heap& hp = heap();
  const size_t n = granules(bytes);
  const size_t size = n * kGranule;
  if (size > kHugeBytes) return hp.allocate_huge(size);
  uint32_t& free_head = hp.head(n);
  if (free_head != 0) {
    const uint32_t h = free_head;
    free_head = block_at(h)->next;
    if ((h >> kHandleChunkShift) == hp.releasing) hp.cancel_release();
    ChunkInfo& ci = hp.chunk_of(h);
    if (ci.live == 0 && ci.kept) hp.unkeep(h >> kHandleChunkShift);
    ci.live += static_cast<uint32_t>(size);
    hp.in_use += size;
    return pointer_of(h);
  }
  if (hp.cur + size > hp.limit) hp.next_bump_chunk();
  void* p = detail::g_base + hp.cur;
  hp.cur += size;
  hp.chunks[hp.bump].live += static_cast<uint32_t>(size);
  hp.in_use += size;
  hp.touched += size;
  return p;
}

void deallocate(void* p, size_t bytes) {
  if (!p) return;
  Heap& hp = heap();
  const size_t n = granules(bytes);
  const size_t size = n * kGranule;
  if (size > kHugeBytes) return hp.deallocate_huge(p, size);
  const uint32_t h = handle_of(p);
  hp.push_free(h, n);
  hp.in_use -= size;
  ChunkInfo& ci = hp.chunk_of(h);
  ci.live -= static_cast<uint32_t>(size);
  const uint32_t c = h >> kHandleChunkShift;
  if (ci.live == 0 && c != hp.bump) hp.keep_empty(c);
}

size_t release_free() {
  Heap& hp = heap();
  const uint64_t before = hp.returned;
  if (hp.releasing != kNoChunk) {
    hp.walk_release(SIZE_MAX);
    hp.finish_release();
  }
  while (hp.empty_first != kNoChunk) {
    const uint32_t c = hp.empty_first;
    hp.unkeep(c);
    hp.give_back(c);
  }
  if (hp.bump != kNoChunk && hp.chunks[hp.bump].live == 0) hp.give_back(hp.bump);
  return hp.returned - before;
}

bool release_pending() {
  const Heap& hp = heap();
  return hp.releasing != kNoChunk || hp.empty_count > kKeptEmptyChunks;
}

size_t release_step() {
  Heap& hp = heap();
  if (hp.releasing == kNoChunk) {
    if (hp.empty_count <= kKeptEmptyChunks) return 0;
    const uint32_t c = hp.empty_first;
    hp.unkeep(c);
    hp.releasing = c;
    hp.release_at = Heap::first_offset(c);
  }
  if (!hp.walk_release(kReleaseStepBlocks)) return 0;
  hp.finish_release();
  return kChunkBytes;
}

uint64_t bytes_in_use() { return heap().in_use; }
uint64_t bytes_touched() { return heap().touched; }
uint64_t bytes_returned() { return heap().returned; }

std::string check() {
  Heap& hp = heap();
  const size_t chunks = hp.chunks.size();
  std::vector<uint64_t> free_bytes(chunks, 0);
  uint64_t free_blocks = 0;
  const uint64_t max_blocks = (uint64_t{chunks} << kChunkShift) / kMinBlock;
  auto walk = [&](size_t n, uint32_t first) -> std::string {
    uint32_t prev = 0;
    for (uint32_t h = first; h; prev = h, h = block_at(h)->next) {
      if (++free_blocks > max_blocks) return "a free list loops";
      const size_t c = h >> kHandleChunkShift;
      if (c >= chunks) return "a free block past the used chunks";
      const ChunkInfo& ci = hp.chunks[c];
      const size_t off = size_t{h} * kGranule;
      const size_t end = ci.state == State::kBump ? hp.cur : (c << kChunkShift) + ci.end;
      if (ci.state != State::kTiled && ci.state != State::kBump) return "a free block in a chunk without blocks";
      if (off < Heap::first_offset(static_cast<uint32_t>(c)) || off + n * kGranule > end)
        return "a free block outside its chunk's blocks";
      if (block_at(h)->granules != n) return "a free block on the list of another size";
      if (prev && block_at(h)->prev != prev) return "a free block's prev link is wrong";
      free_bytes[c] += n * kGranule;
    }
    return "";
  };
  for (size_t n = 0; n <= kSmallGranules; ++n)
    if (std::string e = walk(n, hp.small_free[n]); !e.empty()) return e;
  for (const auto& [n, first] : hp.large_free)
    if (std::string e = walk(n, first); !e.empty()) return e;

  uint64_t live = 0, touched = 0;
  size_t kept = 0;
  for (size_t c = 0; c < chunks; ++c) {
    const ChunkInfo& ci = hp.chunks[c];
    const bool given = hp.given_back.count(static_cast<uint32_t>(c)) != 0;
    if (given != (ci.state == State::kFree)) return "given_back disagrees with a chunk's state";
    if ((ci.state == State::kBump) != (c == hp.bump)) return "the bump chunk disagrees with its state";
    if (ci.kept) {
      ++kept;
      if (ci.state != State::kTiled || ci.live != 0) return "a kept chunk is not empty";
    }
    const bool releasing = c == hp.releasing;
    if (releasing && (ci.state != State::kTiled || ci.live != 0 || ci.kept))
      return "the chunk being given back is not an empty one off the list";
    if (ci.state == State::kTiled && ci.live == 0 && !ci.kept && !releasing)
      return "an empty chunk is neither kept nor given back";
    if (ci.state == State::kTiled || ci.state == State::kBump) {
      const size_t start = c << kChunkShift;
      const size_t end = ci.state == State::kBump ? hp.cur : start + ci.end;
      const size_t extent = end - Heap::first_offset(static_cast<uint32_t>(c));
      // The chunk being given back: only its blocks the walk has not reached
      // are on the lists.
      const size_t listed = releasing ? end - hp.release_at : extent;
      if (ci.live + free_bytes[c] != listed) return "a chunk's live and free bytes do not add up to its blocks";
      live += ci.live;
      touched += extent;
    } else if (ci.state == State::kHuge) {
      touched += kChunkBytes;
    }
  }
  size_t listed = 0;
  for (uint32_t c = hp.empty_first, prev = kNoChunk; c != kNoChunk; prev = c, c = hp.chunks[c].empty_next) {
    if (++listed > chunks) return "the empty list loops";
    if (!hp.chunks[c].kept) return "the empty list holds a chunk that is not kept";
    if (hp.chunks[c].empty_prev != prev) return "a chunk's empty_prev link is wrong";
    if (hp.chunks[c].empty_next == kNoChunk && hp.empty_last != c) return "the empty list's last chunk is wrong";
  }
  if (listed != kept || listed != hp.empty_count) return "a kept chunk is not on the empty list";
  if (touched != hp.touched) return "bytes_touched disagrees with the chunks";
  if (live > hp.in_use) return "bytes_in_use is below the chunks' live bytes";
  return "";
}

}  // namespace lawnkv::arena
