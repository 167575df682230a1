// ASCII case folding (src/core/ascii.hpp): the word-at-a-time forms agree
// with the byte-at-a-time ones for every byte value in every position.

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/ascii.hpp"

namespace lawnkv {

TEST_CASE("ascii_lower8 folds each byte as ascii_lower does") {
  std::mt19937_64 rng(3);
  for (int b = 0; b < 256; ++b) {
    for (int lane = 0; lane < 8; ++lane) {
      char bytes[8];
      for (char& c : bytes) c = static_cast<char>(rng());
      bytes[lane] = static_cast<char>(b);
      uint64_t w;
      std::memcpy(&w, bytes, 8);
      const uint64_t folded = ascii_lower8(w);
      char out[8];
      std::memcpy(out, &folded, 8);
      for (int k = 0; k < 8; ++k) {
        CAPTURE(b);
        CAPTURE(k);
        REQUIRE(out[k] == ascii_lower(bytes[k]));
      }
    }
  }
}

TEST_CASE("iequals_lower: names of every length, a difference anywhere") {
  for (size_t n = 0; n <= 24; ++n) {
    std::string lower(n, 'a');
    for (size_t i = 0; i < n; ++i) lower[i] = static_cast<char>('a' + i % 26);
    std::string upper = lower;
    for (char& c : upper) c = static_cast<char>(c - 'a' + 'A');
    CHECK(iequals_lower(lower, lower));
    CHECK(iequals_lower(upper, lower));
    CHECK_FALSE(iequals_lower(upper + "x", lower));
    for (size_t i = 0; i < n; ++i) {
      std::string other = upper;
      other[i] = static_cast<char>(other[i] ^ 0x20 ^ 0x01);  // 'A' -> 'a' ^ 1: another letter
      CHECK_FALSE(iequals_lower(other, lower));
      other[i] = static_cast<char>(lower[i] ^ 0x20 ^ 0x40);  // not a letter, same low bits
      CHECK_FALSE(iequals_lower(other, lower));
    }
  }
}

}  // namespace lawnkv
