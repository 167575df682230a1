#pragma once
// The hash of the keyspace's and the sets' tables: a 64-bit mix of the bytes
// (FNV-1a over 8-byte words, then the splitmix64 finaliser, so the low bits a
// power-of-two table masks are well mixed). Fast on short strings; each
// table draws its own random seed, so chains cannot be forced from outside.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace lawnkv {

inline uint64_t hash_bytes(std::string_view s, uint64_t seed) {
  uint64_t h = seed ^ (s.size() * 0x9E3779B97F4A7C15ULL);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001B3ULL;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i < s.size(); ++i, k += 8) tail |= uint64_t(uint8_t(s[i])) << k;
  h = (h ^ tail) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBULL;
  h ^= h >> 32;
  return h;
}

}  // namespace lawnkv
