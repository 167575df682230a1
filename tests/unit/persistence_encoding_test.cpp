// The RDB format's primitives (src/persistence/): CRC-64 and LZF against
// known values and hostile input, the length and string encodings byte for
// byte, intsets and listpacks as Redis writes them.

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "persistence/crc64.hpp"
#include "persistence/lzf.hpp"
#include "persistence/rdb_blobs.hpp"
#include "persistence/rdb_input.hpp"
#include "rdb_test_bytes.hpp"

namespace lawnkv::persistence {
namespace {

using namespace test_bytes;

TEST_CASE("crc64 is CRC-64/Jones as Redis computes it") {
  CHECK(crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL);
  CHECK(crc64(0, "", 0) == 0);
  // Fed in pieces of every split, the same as at once.
  std::string s;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100; ++i) s.push_back(static_cast<char>(rng()));
  const uint64_t whole = crc64(0, s.data(), s.size());
  for (size_t cut = 0; cut <= s.size(); ++cut)
    CHECK(crc64(crc64(0, s.data(), cut), s.data() + cut, s.size() - cut) == whole);
}

TEST_CASE("lzf decodes the format's items and round-trips what it encodes") {
  const std::string sample = bytes({0x02, 'a', 'b', 'c', 0xe0, 0x00, 0x02});
  std::string out(12, '\0');
  REQUIRE(lzf_decompress(sample, out.data(), out.size()));
  CHECK(out == "abcabcabcabc");
  std::string small(11, '\0');
  CHECK_FALSE(lzf_decompress(sample, small.data(), small.size()));

  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 3, 21, 100, 1000, 70000, 300000}) {
    for (int alphabet : {1, 4, 256}) {
      std::string in;
      for (size_t i = 0; i < n; ++i) in.push_back(static_cast<char>('a' + rng() % alphabet));
      std::string z;
      if (!lzf_compress(in, in.size() + in.size() / 16 + 64, z)) FAIL("no room: " << n);
      std::string back(in.size(), '\0');
      CHECK(lzf_decompress(z, back.data(), back.size()));
      CHECK(back == in);
      if (alphabet == 1 && n >= 100) CHECK(z.size() * 10 < n);
    }
  }
  // No room: refused rather than overrun.
  std::string z;
  CHECK_FALSE(lzf_compress("abcdefghijklmnopqrstuvwxyz", 10, z));
}

TEST_CASE("lzf_decompress refuses hostile input without leaving its buffers") {
  std::string in;
  for (int i = 0; i < 64; ++i) in += "hello world ";
  std::string z;
  REQUIRE(lzf_compress(in, in.size(), z));
  std::string back(in.size(), '\0');
  for (size_t cut = 0; cut < z.size(); ++cut) CHECK_FALSE(lzf_decompress(z.substr(0, cut), back.data(), back.size()));
  // A reference before the start of the output.
  CHECK_FALSE(lzf_decompress(bytes({0x20, 0x05}), back.data(), back.size()));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 40, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    std::string o(rng() % 200, '\0');
    lzf_decompress(junk, o.data(), o.size());  // must not crash (ASan build)
  }
}

TEST_CASE("lengths take 1, 2, 5 or 9 bytes, big-endian") {
  CHECK(encoded([](RdbOutput& o) { o.len(0); }) == bytes({0x00}));
  CHECK(encoded([](RdbOutput& o) { o.len(63); }) == bytes({0x3f}));
  CHECK(encoded([](RdbOutput& o) { o.len(64); }) == bytes({0x40, 0x40}));
  CHECK(encoded([](RdbOutput& o) { o.len(16383); }) == bytes({0x7f, 0xff}));
  CHECK(encoded([](RdbOutput& o) { o.len(16384); }) == bytes({0x80, 0, 0, 0x40, 0}));
  CHECK(encoded([](RdbOutput& o) { o.len(0x100000000ULL); }) == bytes({0x81, 0, 0, 0, 1, 0, 0, 0, 0}));
  for (uint64_t n : {0ULL, 63ULL, 64ULL, 16383ULL, 16384ULL, 0xffffffffULL, 0x100000000ULL, ~0ULL}) {
    const std::string e = encoded([&](RdbOutput& o) { o.len(n); });
    RdbInput in(e);
    uint64_t back;
    REQUIRE(in.len(&back));
    CHECK(back == n);
    CHECK(in.remaining() == 0);
  }
}

TEST_CASE("strings: integers in int8/16/32 form, LZF when it pays, raw otherwise") {
  CHECK(encoded([](RdbOutput& o) { o.string("12"); }) == bytes({0xc0, 12}));
  CHECK(encoded([](RdbOutput& o) { o.string("-1"); }) == bytes({0xc0, 0xff}));
  CHECK(encoded([](RdbOutput& o) { o.string("-129"); }) == bytes({0xc1, 0x7f, 0xff}));
  CHECK(encoded([](RdbOutput& o) { o.string("2147483647"); }) == bytes({0xc2, 0xff, 0xff, 0xff, 0x7f}));
  CHECK(encoded([](RdbOutput& o) { o.string("2147483648"); }) == "\x0a" "2147483648");
  CHECK(encoded([](RdbOutput& o) { o.string("012"); }) == "\x03" "012");
  CHECK(encoded([](RdbOutput& o) { o.string(""); }) == bytes({0}));
  const std::string rep(100, 'x');
  const std::string z = encoded([&](RdbOutput& o) { o.string(rep); });
  CHECK(static_cast<uint8_t>(z[0]) == 0xc3);
  CHECK(encoded([&](RdbOutput& o) { o.string(rep); }, false) == "\x40\x64" + rep);
  std::mt19937_64 rng(5);
  for (const std::string& s :
       {std::string("12"), std::string("-2147483648"), std::string("9223372036854775807"), std::string(""),
        std::string("\0\xff\x01", 3), rep, std::string(100000, 'q'), std::string(16384, '\0')}) {
    const std::string e = encoded([&](RdbOutput& o) { o.string(s); });
    RdbInput in(e);
    std::string back;
    REQUIRE(in.string(&back));
    CHECK(back == s);
  }
}

TEST_CASE("packed blobs: an intset and a listpack as Redis 7.0 writes them") {
  // intset of int16: 1, -2, 300.
  const std::string intset = bytes({2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0xfe, 0xff, 0x2c, 0x01});
  std::vector<std::string> out;
  REQUIRE(decode_intset(intset, &out));
  CHECK(out == std::vector<std::string>{"1", "-2", "300"});
  CHECK_FALSE(decode_intset(intset.substr(0, 13), &out));
  // listpack: "a", 5, -1 (13-bit), "bb".
  std::string lp = bytes({0, 0, 0, 0, 4, 0, 0x81, 'a', 2, 0x05, 1, 0xdf, 0xff, 2, 0x82, 'b', 'b', 3, 0xff});
  lp[0] = static_cast<char>(lp.size());
  REQUIRE(decode_listpack(lp, &out));
  CHECK(out == std::vector<std::string>{"a", "5", "-1", "bb"});
  for (size_t cut = 0; cut < lp.size(); ++cut) {
    std::string bad = lp.substr(0, cut);
    if (!bad.empty()) bad[0] = static_cast<char>(cut);
    CHECK_FALSE(decode_listpack(bad, &out));
  }
}

}  // namespace
}  // namespace lawnkv::persistence
