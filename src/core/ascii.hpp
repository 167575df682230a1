#pragma once
// ASCII case rules for protocol words (command names, options, config
// directives): Redis compares them as strcasecmp does, byte by byte.

#include <string>
#include <string_view>

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

// iequals(s, lower) for a lower that is already lower case (a command or
// option name): only s needs folding.
inline bool iequals_lower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (ascii_lower(s[i]) != lower[i]) return false;
  return true;
}

// The bytes of arg that C string functions (strcasecmp, strcmp, printf's %s)
// see: those before its first NUL.
inline std::string_view c_string(std::string_view arg) { return arg.substr(0, arg.find('\0')); }

}  // namespace lawnkv
