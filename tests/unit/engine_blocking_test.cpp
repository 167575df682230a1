// Clients blocked on keys (src/engine/blocking.hpp), driven through
// REDE.BPOLL on the command fixture: the order of service, wake-ups by a
// write or by time, timeouts, and clients that go away while the table is
// serving (a delivery that closes another blocked client, a command run
// again that closes its own client).

#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "command_fixture.hpp"

namespace lawnkv::test {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

TEST_CASE("blocking: clients on one key are served in the order they blocked") {
  BlockingServer s;
  FakeSession& first = s.client();
  FakeSession& second = s.client();
  CHECK(s.run_as(first, {"rede.bpoll", "q", "0", "COUNT", "1"}).empty());  // blocked: no reply yet
  CHECK(s.run_as(second, {"rede.bpoll", "q", "0"}).empty());
  CHECK(first.blocked);
  CHECK(s.table().size() == 2);
  REQUIRE(s.run({"rede.push", "q", "10", "a", "1"}) == "+OK\r\n");
  REQUIRE(s.run({"rede.push", "q", "10", "b", "2"}) == "+OK\r\n");
  // The pushes signalled the key: serving finds nothing due and keeps both
  // waiting, now until the first element's deadline.
  CHECK(s.table().next_wakeup() == std::numeric_limits<int64_t>::min());
  s.serve();
  CHECK(s.table().size() == 2);
  // A wake-up no later than that deadline (the index gives a lower bound).
  CHECK(s.table().next_wakeup() >= kT0);
  CHECK(s.table().next_wakeup() <= kT0 + 10);
  s.now = kT0 + 10;  // at the deadline: not yet
  s.serve();
  CHECK(first.delivered.empty());
  s.now = kT0 + 11;
  s.serve();
  CHECK(first.delivered == std::vector<std::string>{"*1\r\n$1\r\na\r\n"});
  CHECK(second.delivered == std::vector<std::string>{"*1\r\n$1\r\nb\r\n"});
  CHECK_FALSE(first.blocked);
  CHECK(first.resumed == 1);
  CHECK(s.table().empty());
  CHECK(s.table().next_wakeup() == kNever);
}

TEST_CASE("blocking: a write that brings due elements under the key serves at once") {
  BlockingServer s;
  FakeSession& waiter = s.client();
  CHECK(s.run_as(waiter, {"rede.bpoll", "q", "0"}).empty());
  CHECK(s.table().next_wakeup() == kNever);  // no key, no timeout: only a write can help
  REQUIRE(s.run({"rede.push", "src", "0", "x", "1"}) == "+OK\r\n");
  s.now += 1;
  REQUIRE(s.run({"rename", "src", "q"}) == "+OK\r\n");
  s.serve();
  CHECK(waiter.delivered == std::vector<std::string>{"*1\r\n$1\r\nx\r\n"});
}

TEST_CASE("blocking: SWAPDB and MOVE bring a ready key to its waiters") {
  BlockingServer s;
  FakeSession& w0 = s.client();
  FakeSession& w2 = s.client();
  w2.db = 2;
  CHECK(s.run_as(w0, {"rede.bpoll", "q", "0"}).empty());
  CHECK(s.run_as(w2, {"rede.bpoll", "q", "0"}).empty());
  REQUIRE(s.run({"select", "1"}) == "+OK\r\n");
  REQUIRE(s.run({"rede.push", "q", "0", "x", "1"}) == "+OK\r\n");
  s.now += 1;
  REQUIRE(s.run({"swapdb", "0", "1"}) == "+OK\r\n");
  s.serve();
  CHECK(w0.delivered == std::vector<std::string>{"*1\r\n$1\r\nx\r\n"});
  REQUIRE(s.run({"rede.push", "q", "0", "y", "2"}) == "+OK\r\n");  // db 1 again
  s.now += 1;
  REQUIRE(s.run({"move", "q", "2"}) == ":1\r\n");
  s.serve();
  CHECK(w2.delivered == std::vector<std::string>{"*1\r\n$1\r\ny\r\n"});
}

TEST_CASE("blocking: a timeout whose deadline does not fit in int64 milliseconds is refused") {
  // The command fuzzer found the first: 9.3e18 s in ms was cast to int64
  // (undefined; UBSan stops on it). 9223372036854000 s is 9.2e18 ms: it
  // fits, but now + it does not. All get Redis 7.2's BLPOP error
  // (core/deadline.hpp, commands/time_args.hpp).
  BlockingServer s;
  FakeSession& c = s.client();
  for (const char* t : {"9.3e18", "9.2233720368548e15", "1e300", "9223372036854000"}) {
    CAPTURE(t);
    CHECK(s.run_as(c, {"rede.bpoll", "q", t}) == "-ERR timeout is out of range\r\n");
    CHECK_FALSE(c.blocked);
  }
  CHECK(s.table().empty());
}

TEST_CASE("blocking: timeouts reply a null array in the client's protocol") {
  BlockingServer s;
  FakeSession& v2 = s.client();
  FakeSession& v3 = s.client();
  v3.protocol = 3;
  CHECK(s.run_as(v2, {"rede.bpoll", "q", "0.5"}).empty());
  CHECK(s.run_as(v3, {"rede.bpoll", "q", "1"}).empty());
  CHECK(s.table().next_wakeup() == kT0 + 499);  // a timeout is reached once now >= timeout_at
  s.now = kT0 + 499;
  s.serve();
  CHECK(v2.delivered.empty());
  s.now = kT0 + 500;
  s.serve();
  CHECK(v2.delivered == std::vector<std::string>{"*-1\r\n"});
  CHECK(v3.delivered.empty());
  s.now = kT0 + 1000;
  s.serve();
  CHECK(v3.delivered == std::vector<std::string>{"_\r\n"});
}

TEST_CASE("blocking: inside EXEC nothing blocks") {
  BlockingServer s;
  CHECK(s.run({"multi"}) == "+OK\r\n");
  CHECK(s.run({"rede.bpoll", "q", "0"}) == "+QUEUED\r\n");
  CHECK(s.run({"exec"}) == "*1\r\n*-1\r\n");
  CHECK(s.table().empty());
}

TEST_CASE("blocking: a delivery that closes another blocked client is safe") {
  // The server closes a client whose output crosses its limit inside
  // deliver(), and closing forgets it: the table changes while it serves.
  BlockingServer s;
  FakeSession& a = s.client();
  FakeSession& b = s.client();
  FakeSession& c = s.client();
  CHECK(s.run_as(a, {"rede.bpoll", "q", "1"}).empty());
  CHECK(s.run_as(b, {"rede.bpoll", "q", "1"}).empty());
  CHECK(s.run_as(c, {"rede.bpoll", "other", "0"}).empty());
  a.on_deliver = [&] {
    s.table().forget(b);  // b and c are "closed" by a's delivery
    s.table().forget(c);
  };
  s.now = kT0 + 1000;
  s.serve();
  CHECK(a.delivered == std::vector<std::string>{"*-1\r\n"});
  CHECK(b.delivered.empty());
  CHECK(s.table().empty());
}

TEST_CASE("blocking: a served client that closes on its reply is not resumed") {
  // Resuming goes through the client registry by id: a client closed by its
  // own delivery (its output limit) has left it.
  BlockingServer s;
  FakeSession& w = s.client();
  FakeSession& next = s.client();
  CHECK(s.run_as(w, {"rede.bpoll", "q", "1"}).empty());
  CHECK(s.run_as(next, {"rede.bpoll", "q", "1"}).empty());
  w.on_deliver = [&] { s.state.clients.remove(w); };
  s.now = kT0 + 1000;
  s.serve();
  CHECK(w.delivered == std::vector<std::string>{"*-1\r\n"});
  CHECK(w.resumed == 0);
  CHECK(next.resumed == 1);
}

}  // namespace
}  // namespace lawnkv::test
