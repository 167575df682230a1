#include "core/split_args.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace lawnkv {

namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

std::optional<std::vector<std::string>> split_args(std::string_view line) {
  // Redis sees a C string: stop at the first NUL.
  if (const void* nul = std::memchr(line.data(), '\0', line.size())) {
    line = line.substr(0, static_cast<const char*>(nul) - line.data());
  }
  const size_t n = line.size();
  // at(i) reads past the end as NUL, as the C code reads the terminator.
  auto at = [&](size_t i) -> char { return i < n ? line[i] : '\0'; };

  std::vector<std::string> args;
  size_t i = 0;
  while (true) {
    while (i < n && is_split_blank(line[i])) i++;
    if (i >= n) return args;

    std::string current;
    bool in_double = false;
    bool in_single = false;
    bool done = false;
    while (!done) {
      char c = at(i);
      if (in_double) {
        if (c == '\\' && at(i + 1) == 'x' && is_hex(at(i + 2)) && is_hex(at(i + 3))) {
          current.push_back(static_cast<char>(hex_value(at(i + 2)) * 16 + hex_value(at(i + 3))));
          i += 3;
        } else if (c == '\\' && at(i + 1) != '\0') {
          i++;
          switch (line[i]) {
            case 'n': current.push_back('\n'); break;
            case 'r': current.push_back('\r'); break;
            case 't': current.push_back('\t'); break;
            case 'b': current.push_back('\b'); break;
            case 'a': current.push_back('\a'); break;
            default: current.push_back(line[i]); break;
          }
        } else if (c == '"') {
          // The closing quote must be followed by a blank or the end.
          if (at(i + 1) != '\0' && !is_split_blank(at(i + 1))) return std::nullopt;
          done = true;
        } else if (c == '\0') {
          return std::nullopt;  // unterminated quotes
        } else {
          current.push_back(c);
        }
      } else if (in_single) {
        if (c == '\\' && at(i + 1) == '\'') {
          i++;
          current.push_back('\'');
        } else if (c == '\'') {
          if (at(i + 1) != '\0' && !is_split_blank(at(i + 1))) return std::nullopt;
          done = true;
        } else if (c == '\0') {
          return std::nullopt;
        } else {
          current.push_back(c);
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_double = true;
            break;
          case '\'':
            in_single = true;
            break;
          default:
            current.push_back(c);
            break;
        }
      }
      if (i < n) i++;
    }
    args.push_back(std::move(current));
  }
}

std::string repr_quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (std::isprint(c)) {
          out += static_cast<char>(c);
        } else {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        }
    }
  }
  return out + "\"";
}

}  // namespace lawnkv
