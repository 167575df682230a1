// CompactVector (src/core/compact_vector.hpp): the size classes of its
// block, values kept across every resize (through malloc and through mapped
// pages, both ways across 64 KiB), the bound on resizes, and the bytes it
// reports and gives back.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/compact_vector.hpp"
#include "core/page_allocator.hpp"

namespace lawnkv {
namespace {

TEST_CASE("compact vector: blocks take jemalloc's size classes") {
  struct Row {
    size_t bytes, block;
  };
  const Row rows[] = {
      {1, 16},       {16, 16},      {17, 32},      {48, 48},      {49, 64},     {64, 64},
      {65, 80},      {96, 96},      {113, 128},    {129, 160},    {161, 192},   {257, 320},
      {40008, 40960}, {65536, 65536}, {65537, 81920}, {1 << 20, 1 << 20}, {(1 << 20) + 1, 1310720},
  };
  for (const Row& r : rows) {
    CAPTURE(r.bytes);
    CHECK(compact_vector::class_bytes(r.bytes) == r.block);
  }
  // The worked examples of the header: 10 and 10,000 4-byte values.
  CompactVector<uint32_t> ten, many;
  for (uint32_t i = 0; i < 10; ++i) ten.push_back(i);
  CHECK(ten.memory_bytes() == 48);
  CHECK(ten.capacity() == 10);
  for (uint32_t i = 0; i < 10000; ++i) many.push_back(i);
  CHECK(many.memory_bytes() == 40960);
  CHECK(many.capacity() == 10238);
}

TEST_CASE("compact vector: values survive growth past 64 KiB and shrinkage back") {
  const uint64_t mapped_before = g_page_allocator_bytes;
  {
    CompactVector<uint32_t> v;
    CHECK(v.empty());
    CHECK(v.memory_bytes() == 0);
    constexpr uint32_t kMany = 200000;  // 800 KB: mapped
    size_t resizes = 0, capacity = 0;
    auto count_resize = [&] {
      if (v.capacity() != capacity) ++resizes;
      capacity = v.capacity();
    };
    for (uint32_t i = 0; i < kMany; ++i) {
      v.push_back(i * 7);
      count_resize();
      REQUIRE(v.size() == i + 1);
      REQUIRE(v.capacity() >= v.size());
    }
    CHECK(g_page_allocator_bytes == mapped_before + v.memory_bytes());
    bool kept = true;
    for (uint32_t i = 0; i < kMany; ++i) kept = kept && v[i] == i * 7;
    CHECK(kept);
    // About four classes a doubling: 2^18 values are 18 doublings.
    CHECK(resizes <= 4 * 18 + 4);
    resizes = 0;
    while (v.size() > 1) {
      v.pop_back();
      count_resize();
      REQUIRE(v.capacity() >= v.size());
      // About half full at least (small blocks round up more).
      REQUIRE(v.capacity() <= 2 * v.size() + 4);
      if (v.size() % 1000 == 0) REQUIRE(v.back() == (v.size() - 1) * 7);
    }
    CHECK(v[0] == 0);
    CHECK(v.memory_bytes() == 16);
    CHECK(resizes <= 18 * 2 + 4);
    CHECK(g_page_allocator_bytes == mapped_before);
  }
  CHECK(g_page_allocator_bytes == mapped_before);
}

TEST_CASE("compact vector: a push and a pop at a class boundary resize at most once") {
  CompactVector<uint32_t> v;
  for (uint32_t i = 0; i < 30; ++i) v.push_back(i);  // 30 fill a 128-byte block
  REQUIRE(v.capacity() == 30);
  v.push_back(30);  // grows to 160 bytes
  const size_t grown = v.capacity();
  CHECK(grown == 38);
  for (int round = 0; round < 100; ++round) {
    v.pop_back();
    v.push_back(30);
  }
  CHECK(v.capacity() == grown);
  // Shrinks only once half the block is unused: at 19 values, to the class
  // of 23 (24 values).
  while (v.size() > 20) v.pop_back();
  CHECK(v.capacity() == grown);
  v.pop_back();
  CHECK(v.size() == 19);
  CHECK(v.capacity() == 26);  // 112 bytes: the class of 8 + 23 * 4
  for (uint32_t i = 0; i < 19; ++i) CHECK(v[i] == i);
}

TEST_CASE("compact vector: reserve makes room once") {
  CompactVector<uint32_t> v;
  v.reserve(1000);
  const size_t capacity = v.capacity();
  CHECK(capacity >= 1000);
  CHECK(v.size() == 0);
  for (uint32_t i = 0; i < 1000; ++i) v.push_back(i);
  CHECK(v.capacity() == capacity);
  v.reserve(10);  // never shrinks
  CHECK(v.capacity() == capacity);
}

}  // namespace
}  // namespace lawnkv
