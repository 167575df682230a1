#pragma once
// Redis's SCAN cursor over a power-of-two bucket array (dict.c dictScan):
// the cursor's bits are incremented from the most significant one the mask
// covers, so when the table doubles or halves between two calls, every
// bucket not yet visited maps to buckets the cursor has still to reach.

#include <cstdint>

namespace lawnkv {

inline uint64_t reverse_bits(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

// The cursor after v in a table of mask + 1 buckets (0: the scan is done).
inline uint64_t next_scan_cursor(uint64_t v, uint64_t mask) {
  v |= ~mask;
  v = reverse_bits(v);
  ++v;
  return reverse_bits(v);
}

}  // namespace lawnkv
