// Streams with blocking reads against the running server, over real
// sockets: XREAD BLOCK with "$" served by the next XADD (clients in the
// order they blocked), an XADD inside MULTI waking a client after EXEC,
// XREADGROUP BLOCK ">" served and its delivery pending, and a blocked
// XREADGROUP answered as Redis when its group is destroyed or its key
// deleted; CLIENT UNBLOCK; a woken reader answered from the key that woke
// it alone, as Redis 7.0's serveClientsBlockedOnStreamKey (checked on both
// servers). Nothing sleeps: clients wait on replies and on
// INFO blocked_clients.

#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <map>
#include <string>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;

bool blocked_clients(Client& c, long long n) {
  return test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
    return info_int(c.call({"INFO", "clients"}).text, "blocked_clients") == n;
  });
}

void send(Client& c, std::initializer_list<std::string_view> argv) {
  c.append(argv);
  redisContext* ctx = c.context();
  int done = 0;
  while (!done) REQUIRE(redisBufferWrite(ctx, &done) == REDIS_OK);
}

// Each consumer's seen-time in an XINFO STREAM FULL reply (its consumers
// are [name N seen-time T ...] arrays).
void collect_seen(const Reply& r, std::map<std::string, long long>* out) {
  const auto& e = r.elements;
  if (e.size() >= 4 && e[0].text == "name" && e[2].text == "seen-time") (*out)[e[1].text] = std::stoll(e[3].text);
  for (const Reply& child : e) collect_seen(child, out);
}

std::map<std::string, long long> seen_times(Client& c, std::string_view key) {
  std::map<std::string, long long> out;
  collect_seen(c.call({"XINFO", "STREAM", key, "FULL"}), &out);
  return out;
}

long long wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("XREAD BLOCK on $: the next XADD serves every waiter the new entry, in blocking order") {
  ServerProcess server = ServerProcess::lawnkv();
  Client control(server.port());
  CHECK(control.wire({"XADD", "s", "1-1", "old", "x"}) == "$3\r\n1-1\r\n");
  Client a(server.port()), b(server.port());
  send(a, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  REQUIRE(blocked_clients(control, 1));
  send(b, {"XREAD", "BLOCK", "0", "STREAMS", "other", "s", "0", "$"});
  REQUIRE(blocked_clients(control, 2));
  CHECK(control.wire({"XADD", "s", "2-1", "f", "v"}) == "$3\r\n2-1\r\n");
  const std::string want = "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n";
  CHECK(wire(a.read()) == want);
  CHECK(wire(b.read()) == want);
  CHECK(blocked_clients(control, 0));
}

TEST_CASE("an XADD inside MULTI wakes a blocked XREAD after EXEC; a timeout answers a null array") {
  ServerProcess server = ServerProcess::lawnkv();
  Client control(server.port());
  Client waiter(server.port());
  send(waiter, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"MULTI"}) == "+OK\r\n");
  CHECK(control.wire({"XADD", "s", "5-0", "a", "1"}) == "+QUEUED\r\n");
  CHECK(control.wire({"XADD", "s", "6-0", "a", "2"}) == "+QUEUED\r\n");
  CHECK(control.wire({"EXEC"}) == "*2\r\n$3\r\n5-0\r\n$3\r\n6-0\r\n");
  CHECK(wire(waiter.read()) ==
        "*1\r\n*2\r\n$1\r\ns\r\n*2\r\n*2\r\n$3\r\n5-0\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"
        "*2\r\n$3\r\n6-0\r\n*2\r\n$1\r\na\r\n$1\r\n2\r\n");
  CHECK(waiter.call({"XREAD", "BLOCK", "1", "STREAMS", "s", "$"}).null);  // the timeout
}

TEST_CASE("XREADGROUP BLOCK >: served by XADD with the delivery pending; NOGROUP and UNBLOCKED as Redis") {
  ServerProcess server = ServerProcess::lawnkv();
  Client control(server.port());
  CHECK(control.wire({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}) == "+OK\r\n");
  Client waiter(server.port());
  send(waiter, {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"});
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"XADD", "s", "1-0", "f", "v"}) == "$3\r\n1-0\r\n");
  CHECK(wire(waiter.read()) == "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  CHECK(control.wire({"XPENDING", "s", "g"}) ==
        "*4\r\n:1\r\n$3\r\n1-0\r\n$3\r\n1-0\r\n*1\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n");

  send(waiter, {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"});
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"XGROUP", "DESTROY", "s", "g"}) == ":1\r\n");
  CHECK(wire(waiter.read()) == "-NOGROUP the consumer group this client was blocked on no longer exists\r\n");

  CHECK(control.wire({"XGROUP", "CREATE", "s", "g", "$"}) == "+OK\r\n");
  send(waiter, {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"});
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"DEL", "s"}) == ":1\r\n");
  CHECK(wire(waiter.read()) == "-UNBLOCKED the stream key no longer exists\r\n");

  CHECK(control.wire({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}) == "+OK\r\n");
  const long long id = waiter.integer({"CLIENT", "ID"});
  send(waiter, {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"});
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id)}) == ":1\r\n");
  CHECK(waiter.read().null);
}

TEST_CASE("a woken XREAD/XREADGROUP answers from the key that woke it alone, as Redis 7.0") {
  for (auto start : {&ServerProcess::lawnkv, &ServerProcess::redis}) {
    ServerProcess server = start({});
    CAPTURE(server.port());
    Client control(server.port());
    Client waiter(server.port());

    // Two streams get entries in one EXEC: only the first signalled answers.
    send(waiter, {"XREAD", "BLOCK", "0", "STREAMS", "a", "b", "$", "$"});
    REQUIRE(blocked_clients(control, 1));
    CHECK(control.wire({"MULTI"}) == "+OK\r\n");
    control.wire({"XADD", "a", "1-0", "f", "v"});
    control.wire({"XADD", "b", "1-0", "f", "v"});
    CHECK(control.wire({"EXEC"}) == "*2\r\n$3\r\n1-0\r\n$3\r\n1-0\r\n");
    CHECK(wire(waiter.read()) == "*1\r\n*2\r\n$1\r\na\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");

    // The same for a group reader: b woke it, a's new entry stays undelivered.
    CHECK(control.wire({"XGROUP", "CREATE", "a", "g", "$"}) == "+OK\r\n");
    CHECK(control.wire({"XGROUP", "CREATE", "b", "g", "$"}) == "+OK\r\n");
    send(waiter, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "a", "b", ">", ">"});
    REQUIRE(blocked_clients(control, 1));
    CHECK(control.wire({"MULTI"}) == "+OK\r\n");
    control.wire({"XADD", "b", "2-0", "f", "v"});
    control.wire({"XADD", "a", "2-0", "f", "v"});
    control.wire({"EXEC"});
    CHECK(wire(waiter.read()) == "*1\r\n*2\r\n$1\r\nb\r\n*1\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    CHECK(control.wire({"XPENDING", "a", "g"}) == "*4\r\n:0\r\n$-1\r\n$-1\r\n$-1\r\n");

    // Another key of a blocked XREAD turning into a string leaves it blocked.
    send(waiter, {"XREAD", "BLOCK", "0", "STREAMS", "a", "str", "$", "$"});
    REQUIRE(blocked_clients(control, 1));
    CHECK(control.wire({"SET", "str", "x"}) == "+OK\r\n");
    CHECK(control.wire({"XADD", "a", "3-0", "f", "v"}) == "$3\r\n3-0\r\n");
    CHECK(wire(waiter.read()) == "*1\r\n*2\r\n$1\r\na\r\n*1\r\n*2\r\n$3\r\n3-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");

    // Served once the stream's last ID passes the one waited after, even
    // when the new entry is gone again: an empty list of entries.
    send(waiter, {"XREAD", "BLOCK", "0", "STREAMS", "a", "$"});
    REQUIRE(blocked_clients(control, 1));
    CHECK(control.wire({"MULTI"}) == "+OK\r\n");
    control.wire({"XADD", "a", "4-0", "f", "v"});
    control.wire({"XDEL", "a", "4-0"});
    control.wire({"EXEC"});
    CHECK(wire(waiter.read()) == "*1\r\n*2\r\n$1\r\na\r\n*0\r\n");

    // Without COUNT a woken reader gets at most 1000 entries.
    send(waiter, {"XREAD", "BLOCK", "0", "STREAMS", "many", "0"});
    REQUIRE(blocked_clients(control, 1));
    control.append({"MULTI"});
    for (int i = 1; i <= 1001; i++) control.append({"XADD", "many", std::to_string(i) + "-0", "f", "v"});
    control.append({"EXEC"});
    for (int i = 0; i < 1003; i++) control.read();
    const Reply many = waiter.read();
    REQUIRE(many.elements.size() == 1);
    REQUIRE(many.elements[0].elements.size() == 2);
    CHECK(many.elements[0].elements[1].elements.size() == 1000);
  }
}

TEST_CASE("a consumer's seen-time: as saved after loading dump.rdb; the load's after an AOF replay, as Redis 7.0") {
  for (auto start : {&ServerProcess::lawnkv, &ServerProcess::redis}) {
    test::TempDir dir;
    const std::vector<std::string> args{"--dir", dir.path.string(), "--appendonly", "yes",
                                        "--aof-use-rdb-preamble", "no"};
    {
      ServerProcess a = start(args);
      CAPTURE(a.label());
      Client c(a.port());
      c.call({"XADD", "s", "1-0", "f", "v"});
      c.call({"XADD", "s", "2-0", "f", "v"});
      CHECK(c.wire({"XGROUP", "CREATE", "s", "g", "0"}) == "+OK\r\n");
      c.call({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"});
      CHECK(c.wire({"XGROUP", "CREATECONSUMER", "s", "g", "carol"}) == ":1\r\n");
      // Recorded with TIME 1000: a delivery time, not a seen time.
      c.call({"XCLAIM", "s", "g", "bob", "0", "1-0", "TIME", "1000", "JUSTID"});
      a.signal(SIGKILL);
      REQUIRE(a.wait_exit(10s).has_value());
    }
    const long long before_load = wall_ms();
    ServerProcess b = start(args);
    CAPTURE(b.label());
    Client c(b.port());
    // Redis answers -LOADING until its AOF is replayed.
    REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 10s,
                             [&] { return c.call({"PING"}) == status("PONG"); }));
    const auto replayed = seen_times(c, "s");
    CHECK(replayed.size() == 3);  // alice, bob, carol
    for (const auto& consumer : replayed) {
      CAPTURE(consumer.first);  // no structured binding: clang 14 cannot capture one
      CHECK(consumer.second >= before_load);
      CHECK(consumer.second <= wall_ms());
    }
    // dump.rdb keeps them as they are.
    const Reply full = c.call({"XINFO", "STREAM", "s", "FULL"});
    REQUIRE(c.call({"DEBUG", "RELOAD"}) == status("OK"));
    CHECK(wire(c.call({"XINFO", "STREAM", "s", "FULL"})) == wire(full));
  }
}

}  // namespace lawnkv::itest
