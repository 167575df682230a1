// core/allocator.hpp's start(): jemalloc's eager purge of a freed extent
// that merges past oversize_threshold stays off the freeing thread (the loop
// thread, during mass expiry); those pages wait for the background thread.
// The arena's threshold is what decides it (arena 0 keeps 8 MiB whatever
// malloc_conf says); the effect on a flood is in bench/results/expiry-stall.md
// (strace of the loop thread).

#include <doctest/doctest.h>

#include <cstdint>

#include "core/allocator.hpp"

namespace lawnkv {
namespace {

TEST_CASE("allocator: start() keeps jemalloc's eager purge off the thread that frees") {
  if (allocator::name() == "libc") return;  // sanitizer builds: libc's malloc
  allocator::start();
  CHECK(allocator::eager_purge_threshold() > (uint64_t{1} << 40));
}

}  // namespace
}  // namespace lawnkv
