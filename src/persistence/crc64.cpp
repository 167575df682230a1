#include "persistence/crc64.hpp"

#include <array>
#include <cstring>

namespace lawnkv::persistence {

namespace {

// The Jones polynomial with its bits in reverse order: a reflected CRC
// shifts right, so bit 0 of the register is the highest power of x.
constexpr uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5ULL;

using Tables = std::array<std::array<uint64_t, 256>, 8>;

// tables[0][b]: the register after shifting the byte b through it alone.
// tables[k][b]: the same byte followed by k zero bytes, so eight input bytes
// are folded with eight lookups that do not depend on each other.
constexpr Tables make_tables() {
  Tables t{};
  for (uint64_t b = 0; b < 256; ++b) {
    uint64_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kReflectedPoly : crc >> 1;
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k)
    for (int b = 0; b < 256; ++b) t[k][b] = t[0][t[k - 1][b] & 0xff] ^ (t[k - 1][b] >> 8);
  return t;
}

constexpr Tables kTables = make_tables();

}  // namespace

uint64_t crc64(uint64_t crc, const void* data, size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  // The words are read little-endian (every platform lawnkv builds for).
  while (len >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= crc;
    crc = kTables[7][w & 0xff] ^ kTables[6][(w >> 8) & 0xff] ^ kTables[5][(w >> 16) & 0xff] ^
          kTables[4][(w >> 24) & 0xff] ^ kTables[3][(w >> 32) & 0xff] ^ kTables[2][(w >> 40) & 0xff] ^
          kTables[1][(w >> 48) & 0xff] ^ kTables[0][w >> 56];
    p += 8;
    len -= 8;
  }
  while (len-- > 0) crc = kTables[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace lawnkv::persistence
