#pragma once
// What the memory allocator says about the process. lawnkv links jemalloc
// (as redis-server does): with glibc's malloc, freeing a million small
// entries during mass expiry left them in fastbins, and the next large
// allocation merged them all at once (malloc_consolidate): a 560 ms stall in
// the 1M-key expiry bench, 17 ms worst with jemalloc, and the drain went
// from 628 ms to 8 ms.
//
// Built with LAWNKV_NO_JEMALLOC (make MALLOC=libc, as the sanitizer builds
// are: ASan must own malloc), the figures come from glibc's mallinfo2 instead.

#include <cstdint>
#include <string_view>

namespace lawnkv::allocator {

// "jemalloc-5.3.0" (or "libc"), for INFO mem_allocator.
std::string_view name();
// Bytes handed out to the program: jemalloc's stats.allocated, plus the live
// bytes of the 32-bit-link heap (core/arena.hpp) and the arrays mapped by
// core/page_allocator.hpp, which bypass jemalloc.
uint64_t allocated_bytes();
// The process's resident set (/proc/self/statm).
uint64_t resident_bytes();
// Returns unused dirty pages to the system (MEMORY PURGE).
void purge();

}  // namespace lawnkv::allocator
