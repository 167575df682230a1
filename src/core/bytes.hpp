#pragma once
// Short byte strings compared a machine word at a time, inline: members,
// keys and command names are mostly a few dozen bytes, for which a call to
// memcmp costs more than the comparison. Words cover every byte, the last
// one overlapping the one before rather than a loop over a tail: 8 bytes at
// a time and the last 8, or for fewer than 8 bytes one word of them
// (short_word).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lawnkv {

// The 8 bytes at p as one word, in memory order (to be compared or hashed
// with words loaded the same way).
inline uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// The n < 8 bytes at p in one word: the first and last four of 4 to 7
// bytes (overlapping), the first, middle and last of 1 to 3, 0 for none.
// Every byte is in it, so two strings of one length are equal exactly when
// their words are.
inline uint64_t short_word(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | uint64_t{hi} << 32;
  }
  if (n == 0) return 0;
  return uint64_t{static_cast<unsigned char>(p[0])} | uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
         uint64_t{static_cast<unsigned char>(p[n - 1])} << 16;
}

// memcmp(a, b, n) == 0. The last word first: names that share a prefix
// ("user:1001", "user:1002") differ at their end.
inline bool equal_bytes(const char* a, const char* b, size_t n) {
  if (n < 8) return short_word(a, n) == short_word(b, n);
  if (load8(a + n - 8) != load8(b + n - 8)) return false;
  for (size_t i = 0; i + 8 < n; i += 8)
    if (load8(a + i) != load8(b + i)) return false;
  return true;
}

namespace bytes_detail {

// Words whose unsigned order is the order of their bytes (the first byte
// most significant), loaded as load8 and short_word load them.
inline uint64_t ordered8(const char* p) {
  const uint64_t w = load8(p);
  return std::endian::native == std::endian::little ? __builtin_bswap64(w) : w;
}
inline uint32_t ordered4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return std::endian::native == std::endian::little ? __builtin_bswap32(w) : w;
}
// short_word's bytes in that order: the first four, then the last four.
inline uint64_t ordered_short(const char* p, size_t n) {
  if (n >= 4) return uint64_t{ordered4(p)} << 32 | ordered4(p + n - 4);
  if (n == 0) return 0;
  return uint64_t{static_cast<unsigned char>(p[0])} << 16 | uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
         uint64_t{static_cast<unsigned char>(p[n - 1])};
}

}  // namespace bytes_detail

// The sign of memcmp(a, b, n): -1, 0 or 1. The first word that differs
// decides, as its first differing byte does; the overlapping last word
// repeats only bytes already found equal.
inline int compare_bytes(const char* a, const char* b, size_t n) {
  using bytes_detail::ordered8;
  uint64_t x, y;
  if (n < 8) {
    x = bytes_detail::ordered_short(a, n);
    y = bytes_detail::ordered_short(b, n);
  } else {
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      x = ordered8(a + i);
      y = ordered8(b + i);
      if (x != y) return x < y ? -1 : 1;
    }
    x = ordered8(a + n - 8);
    y = ordered8(b + n - 8);
  }
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace lawnkv
