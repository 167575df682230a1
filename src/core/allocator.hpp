#pragma once
// What the memory allocator says about the process. lawnkv links jemalloc
// (as redis-server does): with glibc's malloc, freeing a million small
// entries during mass expiry left them in fastbins, and the next large
// allocation merged them all at once (malloc_consolidate): a 560 ms stall in
// the 1M-key expiry bench, 17 ms worst with jemalloc, and the drain went
// from 628 ms to 8 ms.
//
// jemalloc returns freed pages to the system after dirty_decay_ms (10 s),
// but only while the program keeps allocating: an idle server kept them.
// As Redis (jemalloc-bg-thread yes), lawnkv turns on jemalloc's background
// thread, which purges on that schedule whatever the program does
// (allocator.cpp sets malloc_conf).
//
// Built with LAWNKV_NO_JEMALLOC (make MALLOC=libc, as the sanitizer builds
// are: ASan must own malloc), the figures come from glibc's mallinfo2 instead.

#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::allocator {

// Keeps jemalloc's purges off the thread that frees. jemalloc 5.3 purges a
// freed extent at once, on the freeing thread, when merged with its free
// neighbours it reaches the arena's oversize_threshold (8 MiB), whatever
// background_thread says. Mass expiry frees values by the million on the
// loop thread: their slabs empty and merge, and the free() of one value then
// runs madvise(MADV_DONTNEED) over many MB, a millisecond or more inside a
// time-bounded reap (bench/results/expiry-stall.md). start() raises every arena's threshold past
// any size (malloc_conf's oversize_threshold:0 covers the arenas made later,
// but arena 0, the loop thread's, exists before the option is read), so
// those pages go back on the background thread's decay schedule (10 s), as
// other freed pages do. Called once by main before the server is built;
// nothing with libc's malloc.
void start();
// The calling thread's arena's threshold for that eager purge, in bytes
// (tests; 0 with libc's malloc).
uint64_t eager_purge_threshold();
// "jemalloc-5.3.0" (or "libc"), for INFO mem_allocator.
std::string_view name();
// Bytes handed out to the program: jemalloc's stats.allocated, plus the live
// bytes of the 32-bit-link heap (core/arena.hpp) and the arrays mapped by
// core/page_allocator.hpp, which bypass jemalloc.
uint64_t allocated_bytes();
// What maxmemory is compared with, and INFO's used_memory: the same three
// parts, with jemalloc's share read from the loop thread's allocation
// counters (two loads, cheap enough before every command), and those of
// the threads that joined below.
uint64_t used_bytes();
// A thread other than the loop thread that allocates and frees the
// server's memory (an I/O thread: server/io_threads.hpp) joins when it
// starts and leaves before it ends: used_bytes() adds its allocation
// counters to the loop thread's (memory one thread allocates and another
// frees nets out only in the sum). used_bytes() reads them while those
// threads are idle: the loop thread waits for them while they work.
void join_counted_threads();
void leave_counted_threads();
// The process's resident set (/proc/self/statm).
uint64_t resident_bytes();
// The allocator's own view, for INFO's allocator_* fields and MEMORY STATS
// as Redis reads jemalloc's: bytes allocated, bytes in the pages those
// allocations occupy (active), and bytes of mapped pages in memory
// (resident). The 32-bit-link heap's and the page allocator's bytes, which
// bypass jemalloc, are added: their live bytes to allocated, the bytes of
// the chunks they have carved to active and resident. With libc's malloc
// (sanitizer builds): allocated twice, then the process's resident set.
struct Breakdown {
  uint64_t allocated = 0;
  uint64_t active = 0;
  uint64_t resident = 0;
};
Breakdown breakdown();
// jemalloc's own report (malloc_stats_print), for MEMORY MALLOC-STATS;
// with libc's malloc, Redis's "Stats not supported for the current
// allocator".
std::string stats_text();
// Returns free memory to the system at once: the arena's chunks that hold no
// live block, and jemalloc's unused dirty pages (this thread's cache flushed
// first). FLUSHDB and FLUSHALL call it, as Redis purges jemalloc after a
// flush; so does MEMORY PURGE. Costs about one page fault per 4 KiB given
// back, later, if the memory is needed again.
void purge();

}  // namespace lawnkv::allocator
