// MONITOR with two clients, on redis-server 7.0.15 and on lawnkv: one client
// monitors, the other runs commands (quoting-worthy bytes, SELECT, a
// transaction, admin commands that are hidden, passwords redacted, refused
// commands that are not shown); the monitor's lines must be the same on
// both servers once each line's time is cut and the client addresses named.
// Then the monitor itself: keyspace commands refused, MONITOR again
// answered by nothing, RESET ending the feed.

#include <doctest/doctest.h>

#include <regex>
#include <utility>
#include <string>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

// The address CLIENT INFO gives c ("127.0.0.1:40312").
std::string addr_of(RawClient& c) {
  const std::string info = c.call({"CLIENT", "INFO"});
  const size_t at = info.find("addr=") + 5;
  return info.substr(at, info.find(' ', at) - at);
}

// What the monitor of server saw, times replaced by "T" and the two clients'
// addresses by "CMD" and "MON".
std::vector<std::string> scenario(ServerProcess& server) {
  RawClient mon(server.port());
  RawClient cmd(server.port());
  const std::string mon_addr = addr_of(mon), cmd_addr = addr_of(cmd);
  CHECK(mon.call({"MONITOR"}) == "+OK\r\n");
  const std::vector<std::vector<std::string>> commands = {
      {"SET", "k", std::string("a b\n\"\\\x01\xff\t", 9)},
      {"SELECT", "5"},
      {"MULTI"},
      {"SET", "x", "1"},
      {"GET", "x"},
      {"EXEC"},
      {"CONFIG", "GET", "port"},  // admin: hidden
      {"SLOWLOG", "LEN"},         // admin: hidden
      {"DEBUG", "SLEEP", "0"},    // admin: hidden
      {"GETX"},                   // unknown: refused, not shown
      {"GET"},                    // arity: refused, not shown
      {"AUTH", "secret"},         // shown redacted, failed or not
      {"AUTH", "user", "secret"},
      {"HELLO", "2", "AUTH", "default", "pw", "SETNAME", "n"},
      {"PING"},
      {"SELECT", "0"},
  };
  for (const auto& c : commands) cmd.call(std::span<const std::string>(c));
  // Every line was queued before the reply to this PING.
  mon.send(encode_command({"PING"}));
  std::vector<std::string> lines;
  const std::regex time(R"(^\+\d+\.\d{6} )");
  for (std::string r = mon.read_reply(); r != "+PONG\r\n"; r = mon.read_reply()) {
    REQUIRE(lines.size() < 100);
    std::string line = std::regex_replace(r, time, "+T ");
    for (const auto& [addr, name] : {std::pair{cmd_addr, "CMD"}, std::pair{mon_addr, "MON"}})
      for (size_t at; (at = line.find(addr)) != std::string::npos;) line.replace(at, addr.size(), name);
    lines.push_back(line);
  }
  // Its own PING is shown after its reply, as any command's line follows
  // the command.
  CHECK(std::regex_replace(mon.read_reply(), time, "+T ") == "+T [0 " + mon_addr + "] \"PING\"\r\n");
  // The monitor may not touch the keyspace; MONITOR again answers nothing;
  // RESET ends the feed.
  CHECK(mon.call({"GET", "k"}) == "-ERR Replica can't interact with the keyspace\r\n");
  mon.send(encode_command({"MONITOR"}));
  CHECK(mon.call({"RESET"}) == "+RESET\r\n");
  cmd.call({"PING", "after reset"});
  CHECK(mon.call({"PING", "end"}) == "$3\r\nend\r\n");
  CHECK_FALSE(mon.has_buffered_bytes());
  return lines;
}

}  // namespace

TEST_CASE("compat: MONITOR shows what another client runs, as redis-server shows it") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  const std::vector<std::string> want = scenario(redis);
  const std::vector<std::string> got = scenario(lawnkv);
  CHECK(want.size() > 10);
  CHECK(want[0] == "+T [0 CMD] \"SET\" \"k\" \"a b\\n\\\"\\\\\\x01\\xff\\t\"\r\n");
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
}

}  // namespace lawnkv::test
