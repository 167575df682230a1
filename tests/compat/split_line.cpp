#include "split_line.hpp"

#include <cctype>

namespace lawnkv::test {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::optional<std::vector<std::string>> split_line(std::string_view line) {
  std::vector<std::string> args;
  size_t i = 0;
  for (;;) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) return args;
    std::string arg;
    bool in_double = false, in_single = false;
    for (;;) {
      if (in_double) {
        if (i == line.size()) return std::nullopt;
        if (line[i] == '\\' && i + 3 < line.size() && line[i + 1] == 'x' &&
            hex_value(line[i + 2]) >= 0 && hex_value(line[i + 3]) >= 0) {
          arg += static_cast<char>(hex_value(line[i + 2]) * 16 + hex_value(line[i + 3]));
          i += 4;
        } else if (line[i] == '\\' && i + 1 < line.size()) {
          char c = line[i + 1];
          switch (c) {
            case 'n': arg += '\n'; break;
            case 'r': arg += '\r'; break;
            case 't': arg += '\t'; break;
            case 'b': arg += '\b'; break;
            case 'a': arg += '\a'; break;
            default: arg += c; break;
          }
          i += 2;
        } else if (line[i] == '"') {
          if (i + 1 < line.size() && !is_space(line[i + 1])) return std::nullopt;
          ++i;
          break;
        } else {
          arg += line[i++];
        }
      } else if (in_single) {
        if (i == line.size()) return std::nullopt;
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '\'') {
          arg += '\'';
          i += 2;
        } else if (line[i] == '\'') {
          if (i + 1 < line.size() && !is_space(line[i + 1])) return std::nullopt;
          ++i;
          break;
        } else {
          arg += line[i++];
        }
      } else {
        if (i == line.size() || is_space(line[i])) break;
        if (line[i] == '"') {
          in_double = true;
        } else if (line[i] == '\'') {
          in_single = true;
        } else {
          arg += line[i];
        }
        ++i;
      }
    }
    args.push_back(std::move(arg));
  }
}

}  // namespace lawnkv::test
