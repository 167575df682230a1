// CLIENT SETINFO (Redis 7.2; src/commands/client_setinfo.cpp): its errors,
// the lib-name= and lib-ver= fields at the end of CLIENT INFO / CLIENT LIST
// as 7.2 places them, and RESET and HELLO leaving them.

#include <doctest/doctest.h>

#include <string>

#include "command_fixture.hpp"

using lawnkv::test::CommandServer;

namespace {

std::string err(std::string_view text) { return "-" + std::string(text) + "\r\n"; }

// The end of CLIENT INFO's line: " resp=... lib-name=... lib-ver=...\n".
std::string info_tail(CommandServer& s) {
  const std::string info = s.run({"CLIENT", "INFO"});
  const size_t at = info.find(" resp=");
  REQUIRE(at != std::string::npos);
  return info.substr(at, info.size() - at - 3);  // without the line's LF and the reply's CRLF
}

}  // namespace

TEST_CASE("CLIENT SETINFO: errors as Redis 7.2") {
  CommandServer s;
  CHECK(s.run({"CLIENT", "SETINFO", "lib-name"}) ==
        err("ERR wrong number of arguments for 'client|setinfo' command"));
  CHECK(s.run({"CLIENT", "SETINFO", "lib-name", "a", "b"}) ==
        err("ERR wrong number of arguments for 'client|setinfo' command"));
  CHECK(s.run({"CLIENT", "SETINFO", "lib-foo", "a"}) == err("ERR Unrecognized option 'lib-foo'"));
  CHECK(s.run({"CLIENT", "SETINFO", "LIB-NAME", "a b"}) ==
        err("ERR LIB-NAME cannot contain spaces, newlines or special characters."));
  CHECK(s.run({"CLIENT", "SETINFO", "lib-ver", "1\n"}) ==
        err("ERR lib-ver cannot contain spaces, newlines or special characters."));
  CHECK(s.run({"CLIENT", "SETINFO", "lib-ver", "\xc3\xa9"}) ==
        err("ERR lib-ver cannot contain spaces, newlines or special characters."));
  CHECK(info_tail(s) == " resp=2 lib-name= lib-ver=");
}

TEST_CASE("CLIENT SETINFO: the fields in CLIENT INFO and LIST, kept by RESET and HELLO") {
  CommandServer s;
  CHECK(s.run({"CLIENT", "SETINFO", "LIB-NAME", "redis-py(redis_om_v0.1)"}) == "+OK\r\n");
  CHECK(s.run({"client", "setinfo", "lib-ver", "5.0.1"}) == "+OK\r\n");
  CHECK(info_tail(s) == " resp=2 lib-name=redis-py(redis_om_v0.1) lib-ver=5.0.1");
  CHECK(s.run({"CLIENT", "LIST"}).find(" resp=2 lib-name=redis-py(redis_om_v0.1) lib-ver=5.0.1\n") !=
        std::string::npos);
  CHECK(s.run({"RESET"}) == "+RESET\r\n");
  s.run({"HELLO", "3", "SETNAME", "x"});
  CHECK(info_tail(s) == " resp=3 lib-name=redis-py(redis_om_v0.1) lib-ver=5.0.1");
  // Up to a NUL, as Redis validates and prints it; empty clears.
  CHECK(s.run({"CLIENT", "SETINFO", "lib-ver", std::string("6\0 x", 4)}) == "+OK\r\n");
  CHECK(s.run({"CLIENT", "SETINFO", "lib-name", ""}) == "+OK\r\n");
  CHECK(info_tail(s) == " resp=3 lib-name= lib-ver=6");
}
