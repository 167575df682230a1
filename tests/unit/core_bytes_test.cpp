// Byte strings compared a word at a time (src/core/bytes.hpp): the verdict
// of memcmp for every length up to 40, with the first difference at every
// position, in bytes on both sides of 0x80 (memcmp compares them unsigned).

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/bytes.hpp"

namespace lawnkv {

namespace {

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

}  // namespace

TEST_CASE("equal_bytes and compare_bytes agree with memcmp") {
  std::mt19937_64 rng(9);
  for (size_t n = 0; n <= 40; ++n) {
    for (int trial = 0; trial < 200; ++trial) {
      std::string a(n, '\0');
      for (char& c : a) c = static_cast<char>(rng());
      std::string b = a;
      CAPTURE(n);
      REQUIRE(equal_bytes(a.data(), b.data(), n));
      REQUIRE(compare_bytes(a.data(), b.data(), n) == 0);
      if (n == 0) continue;
      // One difference, anywhere, sometimes with bytes after it differing too.
      const size_t at = rng() % n;
      b[at] = static_cast<char>(b[at] ^ (1 + rng() % 255));
      if (trial % 2) {
        for (size_t k = at + 1; k < n; ++k) b[k] = static_cast<char>(rng());
      }
      CAPTURE(at);
      CHECK_FALSE(equal_bytes(a.data(), b.data(), n));
      CHECK(compare_bytes(a.data(), b.data(), n) == sign(std::memcmp(a.data(), b.data(), n)));
      CHECK(compare_bytes(b.data(), a.data(), n) == sign(std::memcmp(b.data(), a.data(), n)));
    }
  }
}

}  // namespace lawnkv
