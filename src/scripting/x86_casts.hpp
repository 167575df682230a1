#pragma once
// C's double -> integer casts as redis-server computes them on x86-64.
//
// The struct and cmsgpack libraries Redis embeds cast Lua numbers to C
// integers without range checks. Out of range (or NaN) that is undefined in
// C, and redis-server (gcc, x86-64) gets what the CPU's cvttsd2si gives: the
// "integer indefinite" 0x8000000000000000. Scripts see those bytes
// (struct.pack('<L', 1e30) is eight zero bytes in Redis 7.0.15), so these
// functions compute the same results with defined C++.

#include <cstdint>
#include <limits>

namespace lawnkv::scripting {

// (int64_t)d: truncation toward zero; INT64_MIN when d is NaN or outside
// [-2^63, 2^63).
inline int64_t x86_double_to_int64(double d) {
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return static_cast<int64_t>(d);
  return INT64_MIN;
}

// (uint64_t)d as gcc emits it: below 2^63 (NaN included, as the compare
// falls that way) a signed conversion; from 2^63 up, a signed conversion of
// d - 2^63 with the top bit flipped back. So 2^63 + x gives its value while
// d >= 2^64 gives 0, and a negative d gives its two's complement.
inline uint64_t x86_double_to_uint64(double d) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!(d >= kTwo63)) return static_cast<uint64_t>(x86_double_to_int64(d));
  return static_cast<uint64_t>(x86_double_to_int64(d - kTwo63)) ^ (uint64_t{1} << 63);
}

// (int)d: INT_MIN when d is NaN or outside the int range after truncation.
inline int x86_double_to_int(double d) {
  if (d > -2147483649.0 && d < 2147483648.0) return static_cast<int>(d);
  return std::numeric_limits<int>::min();
}

}  // namespace lawnkv::scripting
