#pragma once
// sdssplitargs: splits a line into arguments the way redis-cli, inline
// requests and redis.conf do.
//
//   set "key with space" 'it''s'   -> error (a closing quote must be followed
//                                      by a blank or the end)
//   set "a\x41\n" 'b\'c' d"e f"g   -> error for the same reason at g
//   set "a\x41\n" 'b\'c' d"e f"    -> [set] [aA<LF>] [b'c] [de f]
//
// Outside quotes: leading isspace bytes (space, \t \n \v \f \r) are skipped,
// and a token ends at space, \t, \n or \r only (so "a\vb" is one token). A
// quote may open in the middle of a token. In "double quotes": \xHH (two hex
// digits) is a byte, \n \r \t \b \a the usual control bytes, a backslash before
// any other byte that byte. In 'single quotes' only \' is an escape. An
// unterminated quote is an error. The line is read as a C string: a NUL byte
// ends it, as it does for Redis.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lawnkv {

// The arguments of line, or nullopt for unbalanced quotes. An empty or blank
// line gives an empty vector.
std::optional<std::vector<std::string>> split_args(std::string_view line);

// sdscatrepr: s in double quotes with Redis's escapes (\\ \" \n \r \t \a \b,
// \xHH for other bytes that are not printable), which split_args reads back
// as the same bytes.
std::string repr_quoted(std::string_view s);

// The bytes that sdssplitargs skips between arguments (C isspace).
inline bool is_split_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// The bytes that end an unquoted argument (besides the end of the line).
inline bool is_split_end(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace lawnkv
