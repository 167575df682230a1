// `timeout N`: a client idle (nothing read from it or written to it) for
// more than N seconds is closed by the clients cron, as Redis's
// clientsCronHandleTimeout, but never a subscriber nor a client blocked on a
// key. Idle time is read on the server's clock, so the tests move it with
// DEBUG ADVANCE-TIME and then poll, with a deadline, for the cron's next
// tick to act.
//
// The tests keep at most 5 clients connected: a tick then looks at every
// client (at least 5 a tick, as Redis), so the tick that closes the idle
// client has also looked at those it must keep.

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::RawClient;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

// Whether CLIENT LIST shows a client named `name`.
bool listed(Client& admin, const std::string& name) {
  return admin.call({"CLIENT", "LIST"}).text.find(" name=" + name + " ") != std::string::npos;
}

// A connection named `name` that then sends nothing.
RawClient named(uint16_t port, const std::string& name) {
  RawClient c(port);
  REQUIRE(c.call({"CLIENT", "SETNAME", name}) == "+OK\r\n");
  return c;
}

void advance(Client& admin, long long ms) {
  REQUIRE(admin.call(Argv{"DEBUG", "ADVANCE-TIME", std::to_string(ms)}) == status("OK"));
}

// Polls until `name` is gone from CLIENT LIST.
bool closed_soon(Client& admin, const std::string& name) {
  return test::poll_until(SteadyClock::now() + 10s, [&] { return !listed(admin, name); });
}

}  // namespace

TEST_CASE("timeout closes an idle client, never a subscriber or a blocked client") {
  ServerProcess server = ServerProcess::lawnkv({"--timeout", "1"});
  RawClient idle = named(server.port(), "idle");
  RawClient subscriber = named(server.port(), "subscriber");
  REQUIRE(subscriber.call({"SUBSCRIBE", "ch"}) == "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  RawClient blocked = named(server.port(), "blocked");
  blocked.send(encode_command({"REDE.BPOLL", "k", "0"}));
  // The admin talks all along: each reply it gets is an interaction.
  Client admin(server.port());
  REQUIRE(test::poll_until(SteadyClock::now() + 10s,
                           [&] { return admin.call({"CLIENT", "LIST"}).text.find(" flags=b ") != std::string::npos; }));

  advance(admin, 2000);
  CHECK(closed_soon(admin, "idle"));
  CHECK(idle.wait_closed());
  CHECK(listed(admin, "subscriber"));
  CHECK(listed(admin, "blocked"));
  CHECK(client_count(admin) == 3);

  // Both still work: the subscriber gets a message, the blocked client its
  // element.
  CHECK(admin.integer({"PUBLISH", "ch", "hello"}) == 1);
  CHECK(subscriber.read_reply() == "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n");
  REQUIRE(admin.call({"REDE.PUSH", "k", "0", "e", "1"}) == status("OK"));
  advance(admin, 1);
  CHECK(blocked.read_reply() == "*1\r\n$1\r\ne\r\n");
  // Served and unblocked, it idles like any client now.
  advance(admin, 2000);
  CHECK(closed_soon(admin, "blocked"));
  CHECK(listed(admin, "subscriber"));
}

TEST_CASE("CONFIG SET timeout acts at run time; hz paces the sweep") {
  ServerProcess server = ServerProcess::lawnkv();
  RawClient idle = named(server.port(), "idle");
  Client admin(server.port());
  CHECK(admin.call({"CONFIG", "GET", "timeout"}).elements.at(1) == bulk("0"));
  REQUIRE(admin.call({"CONFIG", "SET", "hz", "100"}) == status("OK"));
  REQUIRE(admin.call({"CONFIG", "SET", "timeout", "1"}) == status("OK"));
  advance(admin, 2000);
  CHECK(closed_soon(admin, "idle"));
  CHECK(idle.wait_closed());
  CHECK(admin.call({"PING"}) == status("PONG"));
}

}  // namespace lawnkv::itest
