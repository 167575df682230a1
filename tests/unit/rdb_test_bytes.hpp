#pragma once
// Byte-level helpers of the RDB tests (persistence_encoding_test.cpp,
// persistence_rdb_test.cpp): what RdbOutput writes for one call, and small
// files and packed blobs written by hand.

#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/rdb_format.hpp"
#include "persistence/rdb_output.hpp"

namespace lawnkv::persistence::test_bytes {

inline std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

// What RdbOutput writes for one call.
template <class F>
std::string encoded(F&& write, bool compress = true) {
  std::string out;
  StringSink sink(out);
  RdbOutput o(sink, compress, true);
  write(o);
  o.bytes("");  // nothing: the buffer goes out with finish's EOF, cut below
  o.finish();
  return out.substr(0, out.size() - 9);  // without EOF and checksum
}

// A file with one key of the given RDB type and raw value bytes.
inline std::string file_with(uint8_t type, std::string_view key, const std::string& value, int version = 10) {
  std::string out;
  StringSink sink(out);
  RdbOutput o(sink, true, true);
  o.header(version);
  o.byte(rdb::kOpSelectDb);
  o.len(0);
  o.byte(type);
  o.string(key);
  o.bytes(value);
  o.finish();
  return out;
}

// A listpack of short strings (6-bit length form), as Redis writes small
// hashes and (7.2) sets.
inline std::string listpack(const std::vector<std::string>& items) {
  std::string lp(6, '\0');
  for (const std::string& it : items) {
    REQUIRE(it.size() < 64);
    lp.push_back(static_cast<char>(0x80 | it.size()));
    lp += it;
    lp.push_back(static_cast<char>(1 + it.size()));  // back length (< 128: one byte)
  }
  lp.push_back(static_cast<char>(0xff));
  for (int i = 0; i < 4; ++i) lp[static_cast<size_t>(i)] = static_cast<char>(lp.size() >> (8 * i));
  lp[4] = static_cast<char>(items.size());
  return lp;
}

// A ziplist of short strings, as Redis before 7.0 wrote small hashes.
inline std::string ziplist(const std::vector<std::string>& items) {
  std::string zl(10, '\0');
  size_t prev = 0;
  for (const std::string& it : items) {
    zl.push_back(static_cast<char>(prev));
    zl.push_back(static_cast<char>(it.size()));  // 00pppppp
    zl += it;
    prev = 2 + it.size();
  }
  zl.push_back(static_cast<char>(0xff));
  for (int i = 0; i < 4; ++i) zl[static_cast<size_t>(i)] = static_cast<char>(zl.size() >> (8 * i));
  zl[8] = static_cast<char>(items.size());
  return zl;
}

// The value part of a packed type: the blob as an RDB string.
inline std::string as_rdb_string(const std::string& blob) {
  return encoded([&](RdbOutput& o) { o.string(blob); }, false);
}

}  // namespace lawnkv::persistence::test_bytes
