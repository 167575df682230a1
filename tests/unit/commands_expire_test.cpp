// The expiry commands (src/commands/expire_family.cpp, expire_ops.cpp) run through
// the dispatcher on a ServerState of their own, at time snapshots the test
// chooses: no sockets, no sleeping. Expected replies and events are
// redis-server 7.0.15's for the same commands.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

using test::kT0;

using Server = test::CommandServer;

}  // namespace

TEST_CASE_FIXTURE(Server, "a key exists while now <= deadline and is gone after") {
  run({"set", "k", "v"});
  CHECK(run({"expire", "k", "10"}) == ":1\r\n");
  CHECK(run({"pttl", "k"}) == ":10000\r\n");
  CHECK(run({"pexpiretime", "k"}) == ":" + std::to_string(kT0 + 10000) + "\r\n");
  now = kT0 + 10000;
  CHECK(run({"pttl", "k"}) == ":0\r\n");
  CHECK(run({"ttl", "k"}) == ":0\r\n");
  log.take();
  now = kT0 + 10001;
  CHECK(run({"pttl", "k"}) == ":-2\r\n");
  CHECK(log.take() == std::vector<std::string>{"expired k", "keymiss k"});
}

TEST_CASE_FIXTURE(Server, "TTL and EXPIRETIME round to the nearest second") {
  run({"set", "k", "v"});
  struct Row {
    const char* pexpire;
    const char* ttl;
  };
  for (Row r : {Row{"499", ":0\r\n"}, Row{"500", ":1\r\n"}, Row{"1499", ":1\r\n"},
                Row{"1500", ":2\r\n"}, Row{"10000", ":10\r\n"}}) {
    CAPTURE(r.pexpire);
    run({"pexpire", "k", r.pexpire});
    CHECK(run({"ttl", "k"}) == r.ttl);
  }
  run({"pexpireat", "k", "4102444800499"});
  CHECK(run({"expiretime", "k"}) == ":4102444800\r\n");
  run({"pexpireat", "k", "4102444800500"});
  CHECK(run({"expiretime", "k"}) == ":4102444801\r\n");
  CHECK(run({"pexpiretime", "k"}) == ":4102444800500\r\n");
  // Rounding a deadline near INT64_MAX overflows int64 (UBSan stopped the
  // command fuzzer here): Redis 7.0.15 replies the unsigned result.
  run({"pexpireat", "k", "9223372036854775807"});
  CHECK(run({"expiretime", "k"}) == ":9223372036854776\r\n");
  run({"pexpireat", "k", "9223372036854775307"});
  CHECK(run({"expiretime", "k"}) == ":9223372036854775\r\n");
  run({"set", "p", "v"});
  for (const char* cmd : {"ttl", "pttl", "expiretime", "pexpiretime"}) {
    CHECK(run({cmd, "p"}) == ":-1\r\n");
    CHECK(run({cmd, "missing"}) == ":-2\r\n");
  }
}

TEST_CASE_FIXTURE(Server, "a time already past deletes the key and emits del, not expired") {
  run({"set", "k", "v"});
  log.take();
  CHECK(run({"expire", "k", "-1"}) == ":1\r\n");
  CHECK(log.take() == std::vector<std::string>{"del k"});
  CHECK(run({"exists", "k"}) == ":0\r\n");

  // The deadline equal to now is already past for EXPIRE (Redis: when <= now).
  run({"set", "k", "v"});
  log.take();
  CHECK(run({"pexpireat", "k", std::to_string(kT0)}) == ":1\r\n");
  CHECK(log.take() == std::vector<std::string>{"del k"});
  CHECK(run({"pexpire", "missing", "0"}) == ":0\r\n");

  run({"set", "k", "v"});
  log.take();
  CHECK(run({"pexpireat", "k", std::to_string(kT0 + 1)}) == ":1\r\n");
  CHECK(log.take() == std::vector<std::string>{"expire k"});
}

TEST_CASE_FIXTURE(Server, "NX XX GT LT against a key with and without a TTL") {
  run({"set", "k", "v"});  // no TTL: infinite for GT and LT
  CHECK(run({"expire", "k", "100", "xx"}) == ":0\r\n");
  CHECK(run({"expire", "k", "100", "gt"}) == ":0\r\n");
  CHECK(run({"ttl", "k"}) == ":-1\r\n");
  CHECK(run({"expire", "k", "100", "lt"}) == ":1\r\n");
  CHECK(run({"expire", "k", "50", "nx"}) == ":0\r\n");
  CHECK(run({"expire", "k", "50", "gt"}) == ":0\r\n");
  CHECK(run({"expire", "k", "100", "gt"}) == ":0\r\n");  // equal is not greater
  CHECK(run({"expire", "k", "200", "XX", "GT"}) == ":1\r\n");
  CHECK(run({"expire", "k", "300", "lt"}) == ":0\r\n");
  CHECK(run({"expire", "k", "150", "xx", "lt"}) == ":1\r\n");
  CHECK(run({"ttl", "k"}) == ":150\r\n");
  CHECK(run({"persist", "k"}) == ":1\r\n");
  CHECK(run({"persist", "k"}) == ":0\r\n");
  CHECK(run({"persist", "missing"}) == ":0\r\n");
  CHECK(run({"expire", "k", "60", "nx"}) == ":1\r\n");
  CHECK(run({"ttl", "k"}) == ":60\r\n");
}

TEST_CASE_FIXTURE(Server, "option errors come before the time is read") {
  run({"set", "k", "v"});
  const std::string nx = "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n";
  CHECK(run({"expire", "k", "10", "nx", "xx"}) == nx);
  CHECK(run({"expire", "k", "10", "gt", "nx"}) == nx);
  CHECK(run({"expire", "k", "x", "nx", "lt"}) == nx);
  CHECK(run({"expire", "k", "10", "gt", "lt"}) ==
        "-ERR GT and LT options at the same time are not compatible\r\n");
  CHECK(run({"expire", "k", "x", "foo"}) == "-ERR Unsupported option foo\r\n");
  CHECK(run({"expire", "k", "10", std::string("nx\0zz", 5)}) == ":1\r\n");
  CHECK(run({"expire", "k", "1.5"}) == "-ERR value is not an integer or out of range\r\n");
}

TEST_CASE_FIXTURE(Server, "an expire time that overflows names the command") {
  run({"set", "k", "v"});
  CHECK(run({"expire", "k", "9223372036854776"}) ==
        "-ERR invalid expire time in 'expire' command\r\n");
  CHECK(run({"expireat", "k", "-9223372036854776"}) ==
        "-ERR invalid expire time in 'expireat' command\r\n");
  CHECK(run({"pexpire", "k", "9223372036854775807"}) ==
        "-ERR invalid expire time in 'pexpire' command\r\n");
  CHECK(run({"pexpireat", "k", "9223372036854775807"}) == ":1\r\n");
  CHECK(run({"pexpiretime", "k"}) == ":9223372036854775807\r\n");
  CHECK(run({"expireat", "k", "9223372036854775"}) == ":1\r\n");
}

}  // namespace lawnkv
