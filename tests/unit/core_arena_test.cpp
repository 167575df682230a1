// arena: 32-bit handles round-trip, exact-size reuse of freed blocks, the
// byte counts INFO reports, and chunks given back to the system once their
// last live block goes.

#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/arena.hpp"

namespace lawnkv::arena {
namespace {

TEST_CASE("arena: handles round-trip and null is handle 0") {
  CHECK(handle_of(nullptr) == 0);
  CHECK(pointer_of(0) == nullptr);
  void* p = allocate(24);
  CHECK(handle_of(p) != 0);
  CHECK(pointer_of(handle_of(p)) == p);
  CHECK(reinterpret_cast<uintptr_t>(p) % kGranule == 0);
  deallocate(p, 24);
}

TEST_CASE("arena: a freed block is reused by the next block of its size only") {
  void* a = allocate(40);
  deallocate(a, 40);
  void* b = allocate(48);  // another size: not a's block
  CHECK(b != a);
  void* c = allocate(37);  // rounds to 40: a's block
  CHECK(c == a);
  deallocate(b, 48);
  deallocate(c, 37);
}

TEST_CASE("arena: large blocks are reused too, and bytes_in_use counts rounded sizes") {
  const uint64_t before = bytes_in_use();
  void* big = allocate(100'000);
  std::memset(big, 0xab, 100'000);
  void* small = allocate(3);
  CHECK(bytes_in_use() - before == 100'000 + kMinBlock);
  deallocate(big, 100'000);
  CHECK(allocate(100'000) == big);
  deallocate(big, 100'000);
  deallocate(small, 3);
  CHECK(bytes_in_use() == before);
}

struct Node {
  int value = 0;
  Ref<Node> next;
};

TEST_CASE("arena: Ref behaves like a pointer and is 4 bytes") {
  static_assert(sizeof(Ref<Node>) == 4);
  Node* a = create<Node>();
  Node* b = create<Node>();
  a->value = 1;
  b->value = 2;
  CHECK(a->next == nullptr);
  a->next = b;
  CHECK(a->next == b);
  CHECK(a->next->value == 2);
  Node* raw = a->next;
  CHECK(raw == b);
  Ref<Node> r = a;
  CHECK(r != a->next);
  destroy(a);
  destroy(b);
}

TEST_CASE("arena: Allocator puts a container's elements in the arena") {
  std::vector<Node, Allocator<Node>> v(1000);
  CHECK(pointer_of(handle_of(&v[999])) == &v[999]);
  v[0].next = &v[999];
  CHECK(v[0].next.get() == &v[999]);
}

// Resident pages of [p, p + len), as mincore() sees them.
size_t resident_pages(const void* p, size_t len) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + len;
  std::vector<unsigned char> pages((end - start + page - 1) / page);
  REQUIRE(mincore(reinterpret_cast<void*>(start), end - start, pages.data()) == 0);
  size_t n = 0;
  for (unsigned char v : pages) n += v & 1;
  return n;
}

char* chunk_of(const void* p) {
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(p) & ~(uintptr_t{kChunkBytes} - 1));
}

// Blocks of one size carved until `chunks` chunks beyond the one the first
// block is in are full of them, and one block more starts the next chunk (no
// other test frees blocks of that size, so none comes from a free list; the
// tests are single-threaded).
struct Fill {
  size_t size;
  std::vector<char*> blocks;
  std::vector<char*> own;  // chunks holding only these blocks; the last is being carved
};

Fill fill(size_t size, size_t chunks) {
  Fill f{size, {}, {}};
  char* first_chunk = nullptr;
  while (f.own.size() < chunks + 1) {
    char* p = static_cast<char*>(allocate(size));
    std::memset(p, static_cast<int>(f.blocks.size() & 0xff), size);
    if (!first_chunk) first_chunk = chunk_of(p);
    if (chunk_of(p) != first_chunk && (f.own.empty() || f.own.back() != chunk_of(p))) f.own.push_back(chunk_of(p));
    f.blocks.push_back(p);
  }
  return f;
}

size_t resident_chunks(const std::vector<char*>& chunks) {
  size_t n = 0;
  for (char* c : chunks) n += resident_pages(c, kChunkBytes) > 0;
  return n;
}

TEST_CASE("arena: a chunk whose blocks are all freed goes back to the system, and is carved again") {
  REQUIRE(check() == "");
  release_free();  // no chunk emptied by an earlier test waits
  Fill f = fill(1032, 5);
  REQUIRE(f.own.size() == 6);
  CHECK(resident_chunks(f.own) == f.own.size());
  const uint64_t returned = bytes_returned();
  const uint64_t touched = bytes_touched();
  for (char* p : f.blocks) deallocate(p, f.size);
  CHECK(check() == "");
  // The frees give nothing back themselves: each stays O(1).
  CHECK(bytes_returned() == returned);
  CHECK(resident_chunks(f.own) == f.own.size());
  // Each step gives back one chunk, the oldest to empty first, until only
  // the chunk being carved and the last kKeptEmptyChunks to empty are left
  // (the chunk of the first block, if it emptied too, went first).
  size_t steps = 0;
  while (release_pending()) {
    REQUIRE(steps <= f.own.size());
    CHECK(release_step() == kChunkBytes);
    CHECK(check() == "");
    ++steps;
  }
  CHECK(release_step() == 0);
  CHECK(steps >= f.own.size() - 1 - kKeptEmptyChunks);
  CHECK(bytes_returned() - returned == steps * kChunkBytes);
  for (size_t i = 0; i < f.own.size(); ++i)
    CHECK((resident_pages(f.own[i], kChunkBytes) > 0) == (i + 1 + kKeptEmptyChunks >= f.own.size()));
  CHECK(resident_pages(f.own.back(), kChunkBytes) > 0);
  // Then the rest.
  CHECK(release_free() >= (1 + kKeptEmptyChunks) * kChunkBytes);
  CHECK(resident_chunks(f.own) == 0);
  CHECK(touched - bytes_touched() >= (f.own.size() - 1) * (kChunkBytes - f.size));
  CHECK(check() == "");

  // The chunks given back are carved again before the reservation grows.
  char* const top = *std::max_element(f.own.begin(), f.own.end());
  Fill again = fill(1032, 5);
  CHECK(*std::max_element(again.own.begin(), again.own.end()) <= top);
  for (size_t i = 0; i < again.blocks.size(); ++i) CHECK(again.blocks[i][again.size - 1] == static_cast<char>(i & 0xff));
  for (char* p : again.blocks) deallocate(p, again.size);
  release_free();
  CHECK(check() == "");
}

TEST_CASE("arena: a chunk of small blocks goes back in steps of kReleaseStepBlocks, and an allocation from it keeps it") {
  REQUIRE(check() == "");
  release_free();
  // a: a chunk of 16-byte blocks only (and the bump chunk after it); then
  // three chunks of larger blocks.
  Fill a = fill(16, 1);
  REQUIRE(a.own.size() == 2);
  Fill b = fill(1032, 3);
  std::vector<char*> a_rest;
  for (char* p : a.blocks) {
    if (chunk_of(p) == a.own[0]) deallocate(p, a.size);
    else a_rest.push_back(p);
  }
  for (char* p : b.blocks) deallocate(p, b.size);
  REQUIRE(release_pending());
  // a.own[0] emptied first: it goes first, a step at a time.
  const size_t blocks = kChunkBytes / 16;
  const uint64_t returned = bytes_returned();
  size_t steps = 0;
  while (bytes_returned() == returned) {
    REQUIRE(steps <= blocks / kReleaseStepBlocks);
    CHECK(release_step() == (steps + 1 == blocks / kReleaseStepBlocks ? kChunkBytes : 0));
    CHECK(check() == "");
    ++steps;
  }
  CHECK(steps == blocks / kReleaseStepBlocks);
  CHECK(resident_pages(a.own[0], kChunkBytes) == 0);

  release_free();
  CHECK(check() == "");
  for (char* p : a_rest) deallocate(p, a.size);
  release_free();
  CHECK(check() == "");
}

TEST_CASE("arena: an allocation from the chunk being given back keeps the chunk and its blocks") {
  REQUIRE(check() == "");
  release_free();
  Fill a = fill(16, 1);
  Fill b = fill(1032, 3);
  std::vector<char*> a_rest;
  for (char* p : a.blocks) {
    if (chunk_of(p) == a.own[0]) deallocate(p, a.size);
    else a_rest.push_back(p);
  }
  for (char* p : b.blocks) deallocate(p, b.size);
  REQUIRE(release_step() == 0);  // a.own[0], partly walked
  CHECK(check() == "");
  // The 16-byte list holds only a.own[0]'s blocks the walk has not reached.
  char* p = static_cast<char*>(allocate(16));
  CHECK(chunk_of(p) == a.own[0]);
  CHECK(check() == "");
  std::memset(p, 0x5a, 16);
  // Every other block of the chunk is on its list again: the rest of them
  // can be allocated, in the chunk, whose memory stayed.
  std::vector<char*> again;
  for (size_t i = 0; i + 1 < kChunkBytes / 16; ++i) {
    again.push_back(static_cast<char*>(allocate(16)));
    REQUIRE(chunk_of(again.back()) == a.own[0]);
  }
  CHECK(check() == "");
  for (int i = 0; i < 16; ++i) CHECK(p[i] == 0x5a);
  deallocate(p, 16);
  for (char* q : again) deallocate(q, 16);
  for (char* q : a_rest) deallocate(q, a.size);
  release_free();
  CHECK(check() == "");
}

TEST_CASE("arena: one live block keeps its chunk; the chunk goes when that block does") {
  Fill f = fill(1048, 3);
  const size_t keep = f.blocks.size() / 2;
  char* kept = f.blocks[keep];
  REQUIRE(chunk_of(kept) == f.own[1]);
  std::memset(kept, 0x5a, f.size);
  for (size_t i = 0; i < f.blocks.size(); ++i)
    if (i != keep) deallocate(f.blocks[i], f.size);
  release_free();
  CHECK(check() == "");
  CHECK(resident_pages(f.own[0], kChunkBytes) == 0);
  CHECK(resident_pages(f.own[1], kChunkBytes) > 0);
  CHECK(resident_pages(f.own[2], kChunkBytes) == 0);
  for (size_t i = 0; i < f.size; ++i) REQUIRE(kept[i] == 0x5a);

  deallocate(kept, f.size);
  CHECK(resident_pages(f.own[1], kChunkBytes) > 0);  // kept for reuse
  CHECK(release_free() >= kChunkBytes);
  CHECK(resident_pages(f.own[1], kChunkBytes) == 0);
  CHECK(check() == "");
}

TEST_CASE("arena: blocks over kHugeBytes take chunks of their own and go back when freed") {
  const size_t size = 3 * kChunkBytes + 100;
  const uint64_t in_use = bytes_in_use();
  char* p = static_cast<char*>(allocate(size));
  CHECK(reinterpret_cast<uintptr_t>(p) % kChunkBytes == 0);
  CHECK(handle_of(p) != 0);
  std::memset(p, 0x11, size);
  CHECK(bytes_in_use() - in_use == block_bytes(size));
  CHECK(resident_pages(p, size) > 0);
  CHECK(check() == "");
  deallocate(p, size);
  CHECK(resident_pages(p, 4 * kChunkBytes) == 0);
  CHECK(bytes_in_use() == in_use);
  CHECK(check() == "");
  // Its chunks are reused, whole or for smaller blocks.
  char* q = static_cast<char*>(allocate(size));
  CHECK(q == p);
  deallocate(q, size);
  CHECK(check() == "");
}

TEST_CASE("arena: random sizes, random frees: blocks keep their bytes, the lists and counts agree") {
  std::mt19937_64 rng(14);
  const uint64_t touched = bytes_touched();
  struct Block {
    char* p;
    size_t size;
    unsigned char tag;
  };
  std::vector<Block> live;
  auto size_of = [&] {
    const uint64_t r = rng() % 1000;
    if (r < 700) return 1 + rng() % 300;        // entries
    if (r < 950) return 301 + rng() % 3800;     // up to a small list's end
    if (r < 998) return 4097 + rng() % 100000;  // the map's lists
    return kHugeBytes + 1 + rng() % (3 * kChunkBytes);
  };
  // The first and last 32 bytes of a block carry its tag.
  auto mark = [](const Block& b) {
    const size_t n = std::min<size_t>(b.size, 32);
    std::memset(b.p, b.tag, n);
    std::memset(b.p + b.size - n, b.tag, n);
  };
  auto intact = [](const Block& b) {
    const size_t n = std::min<size_t>(b.size, 32);
    for (size_t i = 0; i < n; ++i)
      if (static_cast<unsigned char>(b.p[i]) != b.tag || static_cast<unsigned char>(b.p[b.size - 1 - i]) != b.tag)
        return false;
    return true;
  };
  auto free_one = [&] {
    const size_t i = rng() % live.size();
    REQUIRE(intact(live[i]));
    deallocate(live[i].p, live[i].size);
    live[i] = live.back();
    live.pop_back();
  };
  // Waves: grow to about 60k blocks, shrink to a few, so chunks fill and
  // empty in every order.
  for (int wave = 0; wave < 6; ++wave) {
    const size_t high = 20'000 + rng() % 40'000;
    while (live.size() < high) {
      Block b{nullptr, size_of(), static_cast<unsigned char>(rng())};
      b.p = static_cast<char*>(allocate(b.size));
      mark(b);
      live.push_back(b);
      if (rng() % 4 == 0) free_one();
    }
    REQUIRE(check() == "");
    const size_t low = wave % 2 ? 0 : rng() % 50;
    while (live.size() > low) free_one();
    REQUIRE(check() == "");
    if (wave % 3 == 2) release_free();
  }
  while (!live.empty()) free_one();
  release_free();
  CHECK(check() == "");
  // Everything went back but what the chunk carved at the start still holds.
  CHECK(bytes_touched() <= touched + kChunkBytes);
}

}  // namespace
}  // namespace lawnkv::arena
