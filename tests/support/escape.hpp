#pragma once
// Bytes made printable for failure messages, in redis-cli's quoting:
// "+OK\r\n", "\x00\xff". Long inputs are cut with a note of their size.

#include <cstddef>
#include <string>
#include <string_view>

namespace lawnkv::test {

// bytes as a double-quoted string with \r \n \t \\ \" and \xHH escapes; when
// bytes is longer than max_bytes, the first max_bytes followed by
// "...(N bytes)".
std::string escape_bytes(std::string_view bytes, size_t max_bytes = 300);

}  // namespace lawnkv::test
