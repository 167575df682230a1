// sdssplitargs (src/core/split_args.hpp). Cases checked against
// redis-server 7.0.15 as inline requests (ECHO <line> replies the argument).

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/split_args.hpp"

using lawnkv::split_args;
using Args = std::vector<std::string>;

namespace {

std::optional<Args> split(std::string_view line) { return split_args(line); }

}  // namespace

TEST_CASE("split_args: plain arguments and blanks") {
  CHECK(split("") == Args{});
  CHECK(split("   ") == Args{});
  CHECK(split("\t\r\n\v\f") == Args{});
  CHECK(split("set k v") == Args{"set", "k", "v"});
  CHECK(split("  set   k\tv  ") == Args{"set", "k", "v"});
  // \v and \f are skipped between arguments but do not end one.
  CHECK(split("a\vb") == Args{"a\vb"});
  CHECK(split("\va \fb") == Args{"a", "b"});
  CHECK(split("a\rb\nc") == Args{"a", "b", "c"});
  // Backslashes outside quotes are plain bytes.
  CHECK(split("a\\nb") == Args{"a\\nb"});
  CHECK(split("\xff\x80 x") == Args{"\xff\x80", "x"});
}

TEST_CASE("split_args: double quotes and escapes") {
  CHECK(split("\"\"") == Args{""});
  CHECK(split("\"hello world\"") == Args{"hello world"});
  CHECK(split("\"a\\x41\\n\"") == Args{"aA\n"});
  CHECK(split("\"\\x00\\xff\\xFf\"") == Args{std::string("\0\xff\xff", 3)});
  CHECK(split("\"\\n\\r\\t\\b\\a\"") == Args{"\n\r\t\b\a"});
  CHECK(split("\"\\\\ \\\" \\q\"") == Args{"\\ \" q"});
  // \x without two hex digits is just 'x'.
  CHECK(split("\"\\x4g\"") == Args{"x4g"});
  CHECK(split("\"\\x4\"") == Args{"x4"});
  // A quote may open mid-argument.
  CHECK(split("ab\"c d\"") == Args{"abc d"});
  CHECK(split("\"a\"\tb") == Args{"a", "b"});
  CHECK(split("\"a\"\v") == Args{"a"});
}

TEST_CASE("split_args: single quotes") {
  CHECK(split("'a\\'b\\n'") == Args{"a'b\\n"});
  CHECK(split("'a\"b'") == Args{"a\"b"});
  CHECK(split("'' x") == Args{"", "x"});
  // The second backslash escapes the quote: "'a\\'" does not close.
  CHECK(split("'a\\\\'") == std::nullopt);
  CHECK(split("'a\\\\' x'") == Args{"a\\' x"});
}

TEST_CASE("split_args: unbalanced quotes") {
  CHECK(split("\"abc") == std::nullopt);
  CHECK(split("'abc") == std::nullopt);
  CHECK(split("\"a\"b") == std::nullopt);   // closing quote followed by a byte
  CHECK(split("\"a\"\"b\"") == std::nullopt);
  CHECK(split("'a'b") == std::nullopt);
  CHECK(split("\"a\\\"") == std::nullopt);  // the quote is escaped
  CHECK(split("\"a\\") == std::nullopt);
  CHECK(split("x 'it''s'") == std::nullopt);
}

TEST_CASE("split_args: a NUL ends the line as in C") {
  CHECK(split(std::string_view("a b\0c d", 7)) == Args{"a", "b"});
  CHECK(split(std::string_view("\"a\0\"", 4)) == std::nullopt);
}
