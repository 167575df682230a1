// CLIENT PAUSE and UNPAUSE with several clients (engine/client_pause.hpp):
// a held command is answered only once the pause ends, in the order the
// clients began to wait; WRITE holds writes (and what may write: PUBLISH,
// EVAL without no-writes, an EXEC whose queue writes), ALL everything; and
// while paused the dataset stands still: an expired key reads as absent but
// stays, and is reaped once the pause ends.
//
// That a command waits is seen through INFO's blocked_clients (the server
// counts it when it holds the command), never by sleeping; time moves by
// DEBUG ADVANCE-TIME, except for ALL, which holds DEBUG too: there a short
// real pause is waited out, and only its lower bound asserted.

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

long long blocked_clients(Client& admin) { return info_int(admin.call({"INFO", "clients"}).text, "blocked_clients"); }

// Waits until the server holds n commands.
void wait_held(Client& admin, long long n) {
  REQUIRE(test::poll_until(SteadyClock::now() + 10s, [&] { return blocked_clients(admin) == n; }));
}

// Nothing has come for c: a read with a short deadline times out.
bool nothing_came(RawClient& c) {
  if (c.has_buffered_bytes()) return false;
  const auto saved = c.timeout();
  c.set_timeout(50ms);
  bool timed_out = false;
  try {
    c.read_reply();
  } catch (const test::Timeout&) {
    timed_out = true;
  }
  c.set_timeout(saved);
  return timed_out;
}

}  // namespace

TEST_CASE("CLIENT PAUSE WRITE: writes wait for UNPAUSE, in order; reads run") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient a(server.port()), b(server.port());
  REQUIRE(admin.call({"CLIENT", "PAUSE", "1000000", "WRITE"}) == status("OK"));
  a.send(encode_command({"SET", "k", "1"}) + encode_command({"GET", "k"}));
  wait_held(admin, 1);
  b.send(encode_command({"SET", "k", "2"}));
  wait_held(admin, 2);
  // Reads and no-writes scripts run; the held clients show flag b.
  CHECK(admin.call({"GET", "k"}) == nil());
  CHECK(admin.call({"EVAL", "#!lua flags=no-writes\nreturn 7", "0"}) == integer(7));
  CHECK(admin.call({"CLIENT", "LIST"}).text.find(" flags=b ") != std::string::npos);
  CHECK(nothing_came(a));
  CHECK(nothing_came(b));

  // What may write waits too: PUBLISH, EVAL without flags, FCALL.
  RawClient c(server.port());
  c.send(encode_command({"PUBLISH", "ch", "x"}));
  wait_held(admin, 3);
  RawClient d(server.port());
  d.send(encode_command({"EVAL", "return 1", "0"}));
  wait_held(admin, 4);

  REQUIRE(admin.call({"CLIENT", "UNPAUSE"}) == status("OK"));
  // a ran first (its GET sees its own SET), then b.
  CHECK(a.read_reply() == "+OK\r\n");
  CHECK(a.read_reply() == "$1\r\n1\r\n");
  CHECK(b.read_reply() == "+OK\r\n");
  CHECK(c.read_reply() == ":0\r\n");
  CHECK(d.read_reply() == ":1\r\n");
  CHECK(admin.call({"GET", "k"}) == bulk("2"));
  CHECK(blocked_clients(admin) == 0);
}

TEST_CASE("CLIENT PAUSE: the pause's end (its timeout) releases the held clients") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient a(server.port());
  REQUIRE(admin.call({"CLIENT", "PAUSE", "100000", "WRITE"}) == status("OK"));
  a.send(encode_command({"INCR", "n"}));
  wait_held(admin, 1);
  CHECK(nothing_came(a));
  // DEBUG is no write: it runs, and moves the server clock past the end.
  REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "100001"}) == status("OK"));
  CHECK(a.read_reply() == ":1\r\n");
  CHECK(admin.call({"INCR", "n"}) == integer(2));
}

TEST_CASE("CLIENT PAUSE: a held client that disconnects leaves blocked_clients, and the pause's end skips it") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  REQUIRE(admin.call({"CLIENT", "PAUSE", "100000", "WRITE"}) == status("OK"));
  {
    RawClient gone(server.port());
    gone.send(encode_command({"INCR", "n"}));
    wait_held(admin, 1);
  }  // disconnects while held
  // Redis 7.0 no longer counts it.
  wait_held(admin, 0);
  RawClient stays(server.port());
  stays.send(encode_command({"INCR", "n"}));
  wait_held(admin, 1);
  REQUIRE(admin.call({"CLIENT", "UNPAUSE"}) == status("OK"));
  CHECK(stays.read_reply() == ":1\r\n");
  CHECK(blocked_clients(admin) == 0);
}

TEST_CASE("CLIENT PAUSE ALL holds every command, CLIENT UNPAUSE included, until its end") {
  ServerProcess server = ServerProcess::lawnkv();
  RawClient admin(server.port()), a(server.port());
  REQUIRE(a.call({"SET", "k", "v"}) == "+OK\r\n");
  constexpr auto kPause = 300ms;
  const auto start = SteadyClock::now();
  REQUIRE(admin.call({"CLIENT", "PAUSE", std::to_string(kPause.count()), "ALL"}) == "+OK\r\n");
  a.send(encode_command({"GET", "k"}));
  admin.send(encode_command({"CLIENT", "UNPAUSE"}));
  // Each answers, and not before the pause's end (the server set it after
  // start): a lower bound only, which a slow machine cannot break.
  CHECK(a.read_reply() == "$1\r\nv\r\n");
  CHECK(SteadyClock::now() - start >= kPause);
  CHECK(admin.read_reply() == "+OK\r\n");
}

TEST_CASE("CLIENT PAUSE WRITE and MULTI: a write waits before it is queued, EXEC by what its queue does") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient a(server.port());
  SUBCASE("a read-only transaction runs") {
    REQUIRE(admin.call({"CLIENT", "PAUSE", "1000000", "WRITE"}) == status("OK"));
    REQUIRE(a.call({"MULTI"}) == "+OK\r\n");
    REQUIRE(a.call({"GET", "k"}) == "+QUEUED\r\n");
    CHECK(a.call({"EXEC"}) == "*1\r\n$-1\r\n");
    // A write inside MULTI waits before it is queued.
    REQUIRE(a.call({"MULTI"}) == "+OK\r\n");
    a.send(encode_command({"SET", "k", "v"}));
    wait_held(admin, 1);
    CHECK(nothing_came(a));
    REQUIRE(admin.call({"CLIENT", "UNPAUSE"}) == status("OK"));
    CHECK(a.read_reply() == "+QUEUED\r\n");
    CHECK(a.call({"EXEC"}) == "*1\r\n+OK\r\n");
  }
  SUBCASE("an EXEC whose queue writes waits") {
    REQUIRE(a.call({"MULTI"}) == "+OK\r\n");
    REQUIRE(a.call({"SET", "k", "v"}) == "+QUEUED\r\n");
    REQUIRE(admin.call({"CLIENT", "PAUSE", "1000000", "WRITE"}) == status("OK"));
    a.send(encode_command({"EXEC"}));
    wait_held(admin, 1);
    CHECK(admin.call({"GET", "k"}) == nil());
    REQUIRE(admin.call({"CLIENT", "UNPAUSE"}) == status("OK"));
    CHECK(a.read_reply() == "*1\r\n+OK\r\n");
  }
  CHECK(admin.call({"GET", "k"}) == bulk("v"));
}

TEST_CASE("CLIENT PAUSE: a key whose deadline passes reads as absent, stays, and is reaped at UNPAUSE") {
  ServerProcess server = ServerProcess::lawnkv({"--notify-keyspace-events", "Ex"});
  Client admin(server.port());
  RawClient sub(server.port());
  sub.send(encode_command({"SUBSCRIBE", "__keyevent@0__:expired"}));
  REQUIRE(sub.read_reply().find("subscribe") != std::string::npos);
  REQUIRE(admin.call({"SET", "k", "v", "PX", "1000"}) == status("OK"));
  REQUIRE(admin.call({"CLIENT", "PAUSE", "1000000", "WRITE"}) == status("OK"));
  REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "2000"}) == status("OK"));
  // Past its deadline: absent to a read, but neither deleted nor reported,
  // by the read or by active expiry.
  CHECK(admin.call({"GET", "k"}) == nil());
  CHECK(admin.call({"EXISTS", "k"}) == integer(0));
  CHECK(admin.integer({"DBSIZE"}) == 1);
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "expired_keys") == 0);
  CHECK(nothing_came(sub));

  REQUIRE(admin.call({"CLIENT", "UNPAUSE"}) == status("OK"));
  // Expiry resumes: the key is reaped on the loop's next turn, once.
  CHECK(sub.read_reply() == "*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:expired\r\n$1\r\nk\r\n");
  CHECK(admin.integer({"DBSIZE"}) == 0);
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "expired_keys") == 1);
}

}  // namespace lawnkv::itest
