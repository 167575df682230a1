// core/page_allocator.hpp: a freed block larger than kPageReleaseStepBytes is
// not unmapped in the call that frees it but in steps of at most
// kPageReleaseStepBytes (page_release_step), so no single call pays the
// kernel's unmapping of a whole big array; mincore() tells which pages are
// still mapped.

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "core/page_allocator.hpp"

namespace lawnkv {
namespace {

// Whether the page range [p, p + bytes) is mapped (mincore fails with ENOMEM
// on an unmapped page).
bool mapped(const void* p, size_t bytes) {
  std::vector<unsigned char> pages(bytes / static_cast<size_t>(sysconf(_SC_PAGESIZE)) + 1);
  return mincore(const_cast<void*>(p), bytes, pages.data()) == 0;
}

TEST_CASE("page allocator: a big freed block goes back to the system a step at a time") {
  page_release_all();
  const size_t bytes = 8 * kPageReleaseStepBytes;
  auto* p = static_cast<char*>(page_allocate(bytes));
  std::memset(p, 1, bytes);
  const uint64_t counted = g_page_allocator_bytes;
  page_deallocate(p, bytes);
  CHECK(g_page_allocator_bytes == counted - bytes);  // used_memory forgets it at once
  REQUIRE(page_release_pending());
  CHECK(mapped(p, bytes));

  CHECK(page_release_step() == kPageReleaseStepBytes);
  CHECK_FALSE(mapped(p, kPageReleaseStepBytes));
  CHECK(mapped(p + kPageReleaseStepBytes, bytes - kPageReleaseStepBytes));

  std::vector<size_t> steps;
  for (size_t n; (n = page_release_step()) > 0;) steps.push_back(n);
  CHECK(steps == std::vector<size_t>(7, kPageReleaseStepBytes));
  CHECK_FALSE(page_release_pending());
  CHECK_FALSE(mapped(p + bytes - kPageReleaseStepBytes, kPageReleaseStepBytes));
}

TEST_CASE("page allocator: a block of at most one step is unmapped when freed") {
  page_release_all();
  auto* p = static_cast<char*>(page_allocate(kPageReleaseStepBytes));
  std::memset(p, 1, kPageReleaseStepBytes);
  page_deallocate(p, kPageReleaseStepBytes);
  CHECK_FALSE(page_release_pending());
  CHECK_FALSE(mapped(p, kPageReleaseStepBytes));
}

TEST_CASE("page allocator: at most kMaxPendingUnmapBytes wait; page_release_all unmaps them") {
  page_release_all();
  const size_t bytes = kMaxPendingUnmapBytes / 2;
  std::vector<char*> blocks;
  for (int i = 0; i < 3; ++i) blocks.push_back(static_cast<char*>(page_allocate(bytes)));
  for (char* b : blocks) page_deallocate(b, bytes);
  CHECK(detail::g_pending_unmap_bytes <= kMaxPendingUnmapBytes);
  CHECK_FALSE(mapped(blocks[0], kPageReleaseStepBytes));  // the oldest went first
  CHECK(page_release_all() > 0);
  CHECK_FALSE(page_release_pending());
  for (char* b : blocks) CHECK_FALSE(mapped(b + bytes - kPageReleaseStepBytes, kPageReleaseStepBytes));
}

}  // namespace
}  // namespace lawnkv
