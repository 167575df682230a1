// SHA-1 (core/sha1.hpp) against FIPS 180-4's examples and lengths around
// the padding boundary (55, 56, 64 bytes need one or two final blocks).

#include <doctest/doctest.h>

#include <string>

#include "core/sha1.hpp"

namespace lawnkv {

TEST_CASE("sha1: FIPS 180 examples") {
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(sha1_hex(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("sha1: lengths at the padding boundary, binary bytes") {
  // Reference digests from Python's hashlib.
  CHECK(sha1_hex(std::string(55, 'x')) == "cef734ba81a024479e09eb5a75b6ddae62e6abf1");
  CHECK(sha1_hex(std::string(56, 'x')) == "901305367c259952f4e7af8323f480d59f81335b");
  CHECK(sha1_hex(std::string(64, 'x')) == "bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163");
  CHECK(sha1_hex(std::string("\0\xff", 2)) == "aa3e5dcdd77b153f2e59bd0d8794fde33cb4e486");
  CHECK(sha1_hex("return 'cached'") == "952f49ffc8f7b098d8ab5da45d3164ca36ed18b1");
}

}  // namespace lawnkv
