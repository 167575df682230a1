#include "core/allocator.hpp"

#include "core/arena.hpp"
#include "core/page_allocator.hpp"

#ifdef LAWNKV_NO_JEMALLOC
#include <malloc.h>
#else
#include <jemalloc/jemalloc.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#ifndef LAWNKV_NO_JEMALLOC
// jemalloc reads its options from this symbol (declared by jemalloc.h) when
// it starts, before main: with the background thread, dirty pages are
// purged on their decay schedule even while the loop allocates nothing.
// oversize_threshold:0: no eager purge of large extents in the arenas made
// after start-up, and no huge arena (whose frees purge at once); arena 0,
// made before the option is read, is set by start().
const char* malloc_conf = "background_thread:true,oversize_threshold:0";
#endif

namespace lawnkv::allocator {

#ifdef LAWNKV_NO_JEMALLOC

std::string_view name() { return "libc"; }

void start() {}

uint64_t eager_purge_threshold() { return 0; }

uint64_t allocated_bytes() {
  // Under a sanitizer, malloc is the sanitizer's and mallinfo2 sees none of
  // it: the figure is then the arena's and the page allocator's alone.
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd + arena::bytes_in_use() + g_page_allocator_bytes;
}

uint64_t used_bytes() { return allocated_bytes(); }

void join_counted_threads() {}
void leave_counted_threads() {}

Breakdown breakdown() {
  const uint64_t allocated = allocated_bytes();
  return {allocated, allocated, resident_bytes()};
}

std::string stats_text() { return "Stats not supported for the current allocator"; }

void purge() {
  arena::release_free();
  page_release_all();
  malloc_trim(0);
}

#else

namespace {

std::string arena_threshold_key(unsigned arena) { return "arena." + std::to_string(arena) + ".oversize_threshold"; }

}  // namespace

void start() {
  // Past jemalloc's largest size class: never reached.
  size_t never = size_t{1} << 62;
  unsigned arenas = 0;
  size_t len = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &len, nullptr, 0) != 0) return;
  // Arenas not made yet answer EFAULT; they start with the option's value.
  for (unsigned i = 0; i < arenas; ++i)
    mallctl(arena_threshold_key(i).c_str(), nullptr, nullptr, &never, sizeof(never));
}

uint64_t eager_purge_threshold() {
  unsigned arena = 0;
  size_t len = sizeof(arena);
  if (mallctl("thread.arena", &arena, &len, nullptr, 0) != 0) return 0;
  size_t threshold = 0;
  len = sizeof(threshold);
  if (mallctl(arena_threshold_key(arena).c_str(), &threshold, &len, nullptr, 0) != 0) return 0;
  return threshold;
}

std::string_view name() {
  static const std::string kName = [] {
    const char* version = nullptr;
    size_t len = sizeof(version);
    if (mallctl("version", &version, &len, nullptr, 0) != 0 || version == nullptr) return std::string("jemalloc");
    std::string v(version);
    return "jemalloc-" + v.substr(0, v.find('-'));
  }();
  return kName;
}

uint64_t allocated_bytes() {
  // The statistics are a snapshot taken at the last epoch: advance it first.
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  mallctl("epoch", &epoch, &len, &epoch, len);
  size_t allocated = 0;
  len = sizeof(allocated);
  if (mallctl("stats.allocated", &allocated, &len, nullptr, 0) != 0) allocated = 0;
  return allocated + arena::bytes_in_use() + g_page_allocator_bytes;
}

namespace {

// jemalloc's per-thread running totals of bytes allocated and freed: it
// hands out pointers to them once per thread, and updates them itself.
struct ThreadCounters {
  const uint64_t* allocated = nullptr;
  const uint64_t* deallocated = nullptr;

  ThreadCounters() {
    uint64_t* a = nullptr;
    uint64_t* d = nullptr;
    size_t len = sizeof(a);
    if (mallctl("thread.allocatedp", &a, &len, nullptr, 0) != 0) return;
    len = sizeof(d);
    if (mallctl("thread.deallocatedp", &d, &len, nullptr, 0) != 0) return;
    allocated = a;
    deallocated = d;
  }
};
thread_local const ThreadCounters t_counters;

// The counters of the threads that joined (process-wide, as the allocator
// is): a count read without the lock, so the loop thread alone pays one load.
std::mutex g_counted_mutex;
std::vector<const ThreadCounters*> g_counted;
std::atomic<size_t> g_counted_size{0};

}  // namespace

void join_counted_threads() {
  if (t_counters.allocated == nullptr) return;
  std::lock_guard lock(g_counted_mutex);
  g_counted.push_back(&t_counters);
  g_counted_size.store(g_counted.size(), std::memory_order_relaxed);
}

void leave_counted_threads() {
  std::lock_guard lock(g_counted_mutex);
  g_counted.erase(std::remove(g_counted.begin(), g_counted.end(), &t_counters), g_counted.end());
  g_counted_size.store(g_counted.size(), std::memory_order_relaxed);
}

std::string stats_text() {
  std::string out;
  malloc_stats_print([](void* to, const char* text) { static_cast<std::string*>(to)->append(text); }, &out,
                     nullptr);
  return out;
}

Breakdown breakdown() {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  mallctl("epoch", &epoch, &len, &epoch, len);
  size_t allocated = 0, active = 0, resident = 0;
  len = sizeof(size_t);
  if (mallctl("stats.allocated", &allocated, &len, nullptr, 0) != 0) allocated = 0;
  if (mallctl("stats.active", &active, &len, nullptr, 0) != 0) active = 0;
  if (mallctl("stats.resident", &resident, &len, nullptr, 0) != 0) resident = 0;
  const uint64_t outside_live = arena::bytes_in_use() + g_page_allocator_bytes;
  const uint64_t outside_pages = arena::bytes_touched() + g_page_allocator_bytes;
  return {allocated + outside_live, active + outside_pages, resident + outside_pages};
}

uint64_t used_bytes() {
  if (t_counters.allocated == nullptr) return allocated_bytes();
  uint64_t a = *t_counters.allocated, d = *t_counters.deallocated;
  if (g_counted_size.load(std::memory_order_relaxed) != 0) {
    std::lock_guard lock(g_counted_mutex);
    for (const ThreadCounters* c : g_counted) {
      a += *c->allocated;
      d += *c->deallocated;
    }
  }
  return (a > d ? a - d : 0) + arena::bytes_in_use() + g_page_allocator_bytes;
}

void purge() {
  arena::release_free();
  page_release_all();
  mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  const std::string purge_all = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
  mallctl(purge_all.c_str(), nullptr, nullptr, nullptr, 0);
}

#endif

uint64_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace lawnkv::allocator
