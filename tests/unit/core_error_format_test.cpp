// format_error (src/core/error_format.hpp). The texts for EXPIRE, HELLO and
// unknown subcommands were read from redis-server 7.0.15's replies; a "%c" of
// NUL cannot reach Redis's reply (its parser waits at a NUL), so that case
// follows sdscatvprintf's strlen.

#include <doctest/doctest.h>

#include <string>

#include "core/error_format.hpp"

using lawnkv::format_error;
using namespace std::string_literals;

namespace {

// EXPIRE k 10 <arg>: "Unsupported option %s", the argument at the very end.
std::string unsupported(std::string_view arg) { return format_error("ERR Unsupported option %s", {arg}); }

// HELLO 3 <arg>: the argument inside quotes.
std::string hello(std::string_view arg) { return format_error("ERR Syntax error in HELLO option '%s'", {arg}); }

}  // namespace

TEST_CASE("format_error: CR and LF at the end of the text are trimmed, others become spaces") {
  CHECK(unsupported("x") == "ERR Unsupported option x");
  CHECK(unsupported("x\n") == "ERR Unsupported option x");
  CHECK(unsupported("x\r\n") == "ERR Unsupported option x");
  CHECK(unsupported("x\n\r\n\r") == "ERR Unsupported option x");
  CHECK(unsupported("\n") == "ERR Unsupported option ");  // the format's own space stays
  CHECK(unsupported("\nx") == "ERR Unsupported option  x");
  CHECK(unsupported("x\ny") == "ERR Unsupported option x y");
  CHECK(unsupported("x\r\ny") == "ERR Unsupported option x  y");
  // Inside quotes nothing is at the end: every CR and LF becomes a space.
  CHECK(hello("x\r\n") == "ERR Syntax error in HELLO option 'x  '");
  CHECK(hello("x\n\n") == "ERR Syntax error in HELLO option 'x  '");
  CHECK(hello("\r\n") == "ERR Syntax error in HELLO option '  '");
}

TEST_CASE("format_error: %s stops at the argument's first NUL") {
  CHECK(hello("\0e"s) == "ERR Syntax error in HELLO option ''");
  CHECK(hello("se\0tname"s) == "ERR Syntax error in HELLO option 'se'");
  CHECK(unsupported("\0e"s) == "ERR Unsupported option ");
  CHECK(unsupported("e\0f"s) == "ERR Unsupported option e");
  // A CR LF before the NUL is at the end once the rest is gone.
  CHECK(unsupported("x\r\n\0y"s) == "ERR Unsupported option x");
  CHECK(unsupported("\0"s) == "ERR Unsupported option ");
}

TEST_CASE("format_error: %.Ns prints at most N bytes; %s has no limit") {
  const std::string y300(300, 'y');
  CHECK(format_error("ERR unknown subcommand '%.128s'. Try %s HELP.", {y300, "CONFIG"}) ==
        "ERR unknown subcommand '" + std::string(128, 'y') + "'. Try CONFIG HELP.");
  CHECK(format_error("ERR unknown subcommand '%.128s'. Try %s HELP.", {"a\0b"s, "CONFIG"}) ==
        "ERR unknown subcommand 'a'. Try CONFIG HELP.");
  CHECK(format_error("ERR unknown subcommand '%.3s'. Try %s HELP.", {"ab\ncd", "X"}) ==
        "ERR unknown subcommand 'ab '. Try X HELP.");
  CHECK(unsupported(y300) == "ERR Unsupported option " + y300);
}

TEST_CASE("format_error: %c is one byte; a NUL from it ends the text") {
  const char* fmt = "ERR Protocol error: expected '$', got '%c'";
  CHECK(format_error(fmt, {"x"}) == "ERR Protocol error: expected '$', got 'x'");
  CHECK(format_error(fmt, {"\r"}) == "ERR Protocol error: expected '$', got ' '");
  CHECK(format_error(fmt, {"\n"}) == "ERR Protocol error: expected '$', got ' '");
  CHECK(format_error(fmt, {"\xff"}) == "ERR Protocol error: expected '$', got '\xff'");
  CHECK(format_error(fmt, {"\0"s}) == "ERR Protocol error: expected '$', got '");
}

TEST_CASE("format_error: other '%' bytes are copied; a text without directives is only cleaned") {
  CHECK(format_error("ERR 100% sure, %d %", {}) == "ERR 100% sure, %d %");
  CHECK(format_error("ERR %.s %.12x", {}) == "ERR %.s %.12x");
  CHECK(format_error("\r\nERR a\nb\r\n", {}) == "ERR a b");
}
