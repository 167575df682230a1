#pragma once
// ASCII case rules for protocol words (command names, options, config
// directives): Redis compares them as strcasecmp does, byte by byte.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/bytes.hpp"

namespace lawnkv {

// 'A'..'Z' to 'a'..'z', every other byte unchanged (tolower in the C locale,
// without its call and table lookup).
constexpr char ascii_lower(char c) {
  return static_cast<unsigned char>(c - 'A') < 26 ? static_cast<char>(c + ('a' - 'A')) : c;
}

std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);

// strcasecmp(a, b) == 0 for strings without NUL bytes. Inline: option and
// command words are compared on every request.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// ascii_lower on each byte of w. Per byte b, with its top bit cleared
// (so no sum carries into the next byte): b + 0x3F reaches 0x80 from 'A'
// up, b + 0x25 from past 'Z' up; a byte in between whose own top bit is
// clear is a capital, and gains 0x20.
constexpr uint64_t ascii_lower8(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  const uint64_t low7 = w & (0x7F * kOnes);
  const uint64_t capital = (low7 + 0x3F * kOnes) & ~(low7 + 0x25 * kOnes) & ~w & (0x80 * kOnes);
  return w | capital >> 2;
}

// iequals(s, lower) for a lower that is already lower case (a command or
// option name): only s needs folding, a word at a time, the words of
// core/bytes.hpp.
inline bool iequals_lower(std::string_view s, std::string_view lower) {
  const size_t n = s.size();
  if (n != lower.size()) return false;
  const char* a = s.data();
  const char* b = lower.data();
  if (n < 8) return ascii_lower8(short_word(a, n)) == short_word(b, n);
  for (size_t i = 0; i + 8 < n; i += 8)
    if (ascii_lower8(load8(a + i)) != load8(b + i)) return false;
  return ascii_lower8(load8(a + n - 8)) == load8(b + n - 8);
}

// The bytes of arg that C string functions (strcasecmp, strcmp, printf's %s)
// see: those before its first NUL.
inline std::string_view c_string(std::string_view arg) { return arg.substr(0, arg.find('\0')); }

}  // namespace lawnkv
