// arena: 32-bit handles round-trip, exact-size reuse of freed blocks, and the
// byte counts INFO reports.

#include <doctest/doctest.h>

#include <cstring>
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
  CHECK(bytes_in_use() - before == 100'000 + 8);
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

}  // namespace
}  // namespace lawnkv::arena
