// A value overwritten by a shorter one gives back the memory of the longer
// one, as Redis's does (issue 25): SET over a long string, HSET over a long
// field value, LSET over a long element. Growth in place (APPEND) stays
// amortised. Figures marked "redis" are redis-server 7.0.15's.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "core/allocator.hpp"

namespace lawnkv {
namespace {

long long integer(const std::string& reply) {
  REQUIRE(reply[0] == ':');
  return std::stoll(reply.substr(1));
}

long long usage(test::CommandServer& s, const std::string& key) { return integer(s.run({"memory", "usage", key})); }

TEST_CASE("SET, HSET and LSET over a long value keep no more than the new value needs") {
  test::CommandServer s;
  s.run({"set", "k", std::string(100'000, 'a')});
  CHECK(usage(s, "k") > 100'000);
  s.run({"set", "k", std::string(33'000, 'b')});
  CHECK(usage(s, "k") <= 41'008);  // redis: 41008
  CHECK(s.run({"strlen", "k"}) == ":33000\r\n");

  // A hashtable-encoded hash (the value is past hash-max-listpack-value).
  s.run({"hset", "h", "f", std::string(100'000, 'a')});
  CHECK(usage(s, "h") > 100'000);
  s.run({"hset", "h", "f", std::string(33'000, 'b')});
  CHECK(usage(s, "h") <= 41'200);  // redis: 41128
  CHECK(s.run({"hstrlen", "h", "f"}) == ":33000\r\n");

  s.run({"rpush", "l", "x", std::string(100'000, 'a'), "y"});
  CHECK(usage(s, "l") > 100'000);
  s.run({"lset", "l", "1", std::string(33'000, 'b')});
  CHECK(usage(s, "l") <= 41'200);  // redis: 41200
  s.run({"lset", "l", "1", "short"});
  CHECK(usage(s, "l") <= 4'200);  // redis: 256 (we keep up to a 4 KiB node)
  CHECK(s.run({"lrange", "l", "0", "-1"}) == "*3\r\n$1\r\nx\r\n$5\r\nshort\r\n$1\r\ny\r\n");
}

TEST_CASE("a value that stays close to its buffer's size reuses it; APPEND growth stays amortised") {
  test::CommandServer s;
  s.run({"set", "k", std::string(1000, 'a')});
  const long long first = usage(s, "k");
  s.run({"set", "k", std::string(990, 'b')});
  CHECK(usage(s, "k") == first);  // within a tenth of the length: the buffer is reused

  // 10,000 APPENDs of 100 bytes: the buffer doubles, a few dozen sizes in all.
  std::set<long long> sizes;
  for (int i = 0; i < 10'000; ++i) {
    s.run({"append", "k", std::string(100, 'c')});
    sizes.insert(usage(s, "k"));
  }
  CHECK(s.run({"strlen", "k"}) == ":1000990\r\n");
  CHECK(sizes.size() < 30);
}

TEST_CASE("100 keys of 1 MB set to 1,000 bytes give back their memory (used_memory)") {
  // The sanitizer builds use libc's malloc, whose figures ASan's allocator
  // does not feed: used_memory does not move there.
  if (allocator::name() == "libc") return;
  test::CommandServer s;
  const uint64_t before = allocator::used_bytes();
  for (int i = 0; i < 100; ++i) s.run({"set", "key:" + std::to_string(i), std::string(1 << 20, 'a')});
  const uint64_t full = allocator::used_bytes();
  CHECK(full - before > 100ull << 20);
  for (int i = 0; i < 100; ++i) s.run({"set", "key:" + std::to_string(i), std::string(1000, 'b')});
  // redis: used_memory from 105.8 MB back to 2.3 MB
  CHECK(allocator::used_bytes() < before + (1ull << 20));
}

}  // namespace
}  // namespace lawnkv
