// CLIENT KILL side by side with redis-server: which connections each filter
// closes and which stay open. Replies that name no address or id are also in
// tests/compat/cases/connection.txt; here three connections at a time show
// what those replies cannot: that ADDR "", LADDR "" and USER "" close
// nothing, and what the filters that do match close.

#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

// The value of `field` in the client's own CLIENT INFO line ("addr", "id").
std::string own(Client& client, const std::string& field) {
  const std::string line = " " + client.call({"CLIENT", "INFO"}).text;
  const size_t at = line.find(" " + field + "=");
  REQUIRE(at != std::string::npos);
  const size_t from = at + field.size() + 2;
  return line.substr(from, line.find_first_of(" \n", from) - from);
}

// Whether the server still answers on this connection (any reply counts:
// a subscribed client answers PING with an array).
bool answers(Client& client) {
  try {
    client.call({"PING"});
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Whether the server closes the connection before a deadline. A killed
// connection may still be closing when the kill's reply arrives: ask again.
bool closes(Client& client) {
  bool closed = false;
  test::poll_until(SteadyClock::now() + 5s, [&] { return closed = !answers(client); });
  return closed;
}

// Three fresh connections, once the server has let go of earlier ones: the
// caller (who sends the kill) and two others.
struct Three {
  explicit Three(uint16_t port) : caller(port), a(port), b(port) {
    REQUIRE(test::poll_until(SteadyClock::now() + 10s, [&] { return client_count(caller) == 3; }));
  }
  Client caller, a, b;
};

struct Scenario {
  std::string name;
  // The kill's arguments, given the three connections.
  std::function<std::vector<std::string>(Three&)> kill;
  std::function<void(Three&)> before;  // if set, runs before the kill
  std::string reply;  // wire bytes
  bool caller_closed, a_closed, b_closed;
};

void run(const Scenario& s, ServerProcess& lawnkv, ServerProcess& redis) {
  for (ServerProcess* server : {&redis, &lawnkv}) {
    INFO(s.name << " on " << server->label());
    Three t(server->port());
    if (s.before) s.before(t);
    const std::vector<std::string> argv = s.kill(t);
    CHECK(wire(t.caller.call(argv)) == s.reply);
    // The caller's own kill (SKIPME no) closes it after this reply.
    CHECK((s.caller_closed ? closes(t.caller) : answers(t.caller)));
    CHECK((s.a_closed ? closes(t.a) : answers(t.a)));
    CHECK((s.b_closed ? closes(t.b) : answers(t.b)));
  }
}

using Argv = std::vector<std::string>;

TEST_CASE("CLIENT KILL: an empty ADDR, LADDR or USER closes no connection, as in Redis") {
  auto lawnkv = ServerProcess::lawnkv();
  auto redis = ServerProcess::redis();
  const std::vector<Scenario> scenarios{
      {"ADDR \"\"", [](Three&) { return Argv{"CLIENT", "KILL", "ADDR", ""}; }, {}, ":0\r\n", false, false, false},
      {"LADDR \"\"", [](Three&) { return Argv{"CLIENT", "KILL", "LADDR", ""}; }, {}, ":0\r\n", false, false, false},
      {"ADDR \"\" SKIPME no", [](Three&) { return Argv{"CLIENT", "KILL", "ADDR", "", "SKIPME", "no"}; }, {},
       ":0\r\n", false, false, false},
      {"LADDR \"\" SKIPME no", [](Three&) { return Argv{"CLIENT", "KILL", "LADDR", "", "SKIPME", "no"}; }, {},
       ":0\r\n", false, false, false},
      {"USER \"\" SKIPME no", [](Three&) { return Argv{"CLIENT", "KILL", "USER", "", "SKIPME", "no"}; }, {},
       "-ERR No such user ''\r\n", false, false, false},
      {"USER foo SKIPME no", [](Three&) { return Argv{"CLIENT", "KILL", "USER", "foo", "SKIPME", "no"}; }, {},
       "-ERR No such user 'foo'\r\n", false, false, false},
  };
  for (const Scenario& s : scenarios) run(s, lawnkv, redis);
}

TEST_CASE("CLIENT KILL: the filters that match close what Redis closes") {
  auto lawnkv = ServerProcess::lawnkv();
  auto redis = ServerProcess::redis();
  const std::vector<Scenario> scenarios{
      // Every client is the default user's: USER default filters nothing.
      {"USER default", [](Three&) { return Argv{"CLIENT", "KILL", "USER", "default"}; }, {}, ":2\r\n", false,
       true, true},
      {"USER default SKIPME no", [](Three&) { return Argv{"CLIENT", "KILL", "USER", "default", "SKIPME", "no"}; },
       {}, ":3\r\n", true, true, true},
      {"ADDR of a", [](Three& t) { return Argv{"CLIENT", "KILL", "ADDR", own(t.a, "addr")}; }, {}, ":1\r\n", false,
       true, false},
      // strcmp: the address ends at a NUL.
      {"ADDR of b, NUL, junk",
       [](Three& t) { return Argv{"CLIENT", "KILL", "ADDR", own(t.b, "addr") + std::string("\0junk", 5)}; }, {},
       ":1\r\n", false, false, true},
      {"LADDR of the server, TYPE normal",
       [](Three& t) { return Argv{"CLIENT", "KILL", "LADDR", own(t.a, "laddr"), "TYPE", "normal"}; }, {},
       ":2\r\n", false, true, true},
      // A second ID replaces the first.
      {"ID a ID b", [](Three& t) { return Argv{"CLIENT", "KILL", "ID", own(t.a, "id"), "ID", own(t.b, "id")}; },
       {}, ":1\r\n", false, false, true},
      {"ID of the caller", [](Three& t) { return Argv{"CLIENT", "KILL", "ID", own(t.caller, "id")}; }, {},
       ":0\r\n", false, false, false},
      {"ID of the caller, SKIPME no",
       [](Three& t) { return Argv{"CLIENT", "KILL", "ID", own(t.caller, "id"), "SKIPME", "no"}; }, {}, ":1\r\n",
       true, false, false},
      {"TYPE pubsub", [](Three&) { return Argv{"CLIENT", "KILL", "TYPE", "pubsub"}; },
       [](Three& t) { t.a.call({"SUBSCRIBE", "ch"}); }, ":1\r\n", false, true, false},
      // The old form: one address, the caller's own included.
      {"old form, the caller's address", [](Three& t) { return Argv{"CLIENT", "KILL", own(t.caller, "addr")}; },
       {}, "+OK\r\n", true, false, false},
      {"old form, no such address", [](Three&) { return Argv{"CLIENT", "KILL", ""}; }, {},
       "-ERR No such client\r\n", false, false, false},
  };
  for (const Scenario& s : scenarios) run(s, lawnkv, redis);
}

}  // namespace
}  // namespace lawnkv::itest
