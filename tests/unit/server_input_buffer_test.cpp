// The query buffer's memory (server/input_buffer.hpp): Redis 7.0's
// clientsCronResizeQueryBuffer rule, pinned case by case.

#include <doctest/doctest.h>

#include "server/input_buffer.hpp"

namespace lawnkv::server {
namespace {

// A buffer holding `size` bytes after room for `reserve` more was made.
InputBuffer filled(size_t size, size_t reserve) {
  InputBuffer b;
  b.reserve_free(reserve);
  b.commit(size);
  return b;
}

TEST_CASE("an idle client's buffer keeps exactly its unconsumed bytes") {
  InputBuffer empty = filled(0, 16 * 1024);
  CHECK(empty.capacity() == 16 * 1024);
  CHECK(empty.resize_from_cron(/*idle=*/true, 0));
  CHECK(empty.capacity() == 0);

  InputBuffer partial = filled(100, 16 * 1024);
  CHECK(partial.resize_from_cron(true, 0));
  CHECK(partial.capacity() == 100);
  CHECK(partial.view() == std::string_view(partial.view().data(), 100));
}

TEST_CASE("a buffer wasting 4 KB or less is left alone, idle or not") {
  InputBuffer b = filled(16 * 1024 - 4096, 16 * 1024);
  CHECK_FALSE(b.resize_from_cron(true, 0));
  CHECK(b.capacity() == 16 * 1024);
}

TEST_CASE("a busy client's buffer is trimmed only past 32 KB and twice its peak") {
  // 16 KB: under the threshold, kept.
  InputBuffer small = filled(10, 16 * 1024);
  small.resize_from_cron(false, 0);  // the peak restarts at 10 bytes
  CHECK_FALSE(small.resize_from_cron(false, 0));
  CHECK(small.capacity() == 16 * 1024);

  // 100 KB asked for once: the first visit sees the peak, the next trims to
  // what the buffer holds, or the bulk being read if larger.
  InputBuffer big = filled(50, 100 * 1024);
  CHECK_FALSE(big.resize_from_cron(false, 0));
  CHECK(big.peak() == 50);
  CHECK(big.resize_from_cron(false, 0));
  CHECK(big.capacity() == 50);

  InputBuffer bulk = filled(50, 100 * 1024);
  bulk.resize_from_cron(false, 40 * 1024);
  CHECK(bulk.peak() == 40 * 1024);
  CHECK(bulk.resize_from_cron(false, 40 * 1024));
  CHECK(bulk.capacity() == 40 * 1024);  // not below the bulk it is reading
}

}  // namespace
}  // namespace lawnkv::server
