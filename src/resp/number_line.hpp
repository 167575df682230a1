#pragma once
// A count or length line of a multibulk request read in one go: the
// parser's one-pass path (parser.cpp) and the look ahead (peek.cpp) read
// their "*<count>\r\n" and "$<len>\r\n" lines with it.

#include <cstddef>
#include <cstdint>

namespace lawnkv::resp {

// 1 to kFastDigits digits as string2ll takes them (no sign, no leading
// zero), then '\r' and one more byte, all before end. Returns where the
// next line starts, or nullptr for anything else (which the parser's
// resumable path then parses, or refuses with the exact error, and which
// ends the look ahead). Nine digits cannot overflow, so the loop needs no
// range check; a leading '0' ends the digits at once, so "01" fails on its
// '1' not being '\r'.
inline constexpr ptrdiff_t kFastDigits = 9;

[[gnu::always_inline]] inline const char* fast_number_line(const char* p, const char* end, int64_t* out) {
  if (p == end) return nullptr;
  unsigned digit = static_cast<unsigned char>(*p - '0');
  if (digit > 9) return nullptr;
  int64_t v = digit;
  const char* const digits_end = end - p > kFastDigits ? p + kFastDigits : end;
  ++p;
  if (digit != 0) {
    while (p < digits_end && (digit = static_cast<unsigned char>(*p - '0')) <= 9) {
      v = v * 10 + digit;
      ++p;
    }
  }
  if (end - p < 2 || *p != '\r') return nullptr;
  *out = v;
  return p + 2;
}

}  // namespace lawnkv::resp
