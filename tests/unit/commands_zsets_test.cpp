// The sorted-set commands on the command fixture: blocking pops (served in
// the order clients blocked, woken by a ZADD inside MULTI/EXEC, timeout
// replies in both protocols, a key of another type while blocked), and the
// keyspace events of the writes, in Redis 7.0's order.

#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv::test {
namespace {

// A fixture with extra clients, registered as the server registers its
// connections.
struct ZServer : CommandServer {
  std::deque<FakeSession> others;

  FakeSession& client(int protocol = 2) {
    FakeSession& c = others.emplace_back();
    c.id = state.clients.next_id();
    c.authenticated = true;
    c.protocol = protocol;
    state.clients.add(c);
    return c;
  }
  ~ZServer() {
    for (FakeSession& c : others) {
      state.data.blocking.forget(c);
      state.clients.remove(c);
    }
  }
  void serve() { serve_blocked(state, now); }
};

using Replies = std::vector<std::string>;

TEST_CASE("zsets: blocked BZPOPMIN clients are served in the order they blocked") {
  ZServer s;
  FakeSession& first = s.client();
  FakeSession& second = s.client();
  CHECK(s.run_as(first, {"bzpopmin", "q", "0"}).empty());
  CHECK(s.run_as(second, {"bzpopmin", "other", "q", "0"}).empty());
  CHECK(first.blocked);
  REQUIRE(s.run({"zadd", "q", "2", "b", "1", "a"}) == ":2\r\n");
  s.serve();
  CHECK(first.delivered == Replies{"*3\r\n$1\r\nq\r\n$1\r\na\r\n$1\r\n1\r\n"});
  CHECK(second.delivered == Replies{"*3\r\n$1\r\nq\r\n$1\r\nb\r\n$1\r\n2\r\n"});
  CHECK(s.run({"exists", "q"}) == ":0\r\n");
  CHECK(s.state.data.blocking.empty());
}

TEST_CASE("zsets: a ZADD inside MULTI/EXEC wakes a blocked BZPOPMAX; BZMPOP's shape") {
  ZServer s;
  FakeSession& waiter = s.client();
  FakeSession& multi = s.client(3);
  CHECK(s.run_as(waiter, {"bzpopmax", "q", "0"}).empty());
  CHECK(s.run_as(multi, {"bzmpop", "0", "2", "x", "q", "MIN", "COUNT", "5"}).empty());
  REQUIRE(s.run({"multi"}) == "+OK\r\n");
  REQUIRE(s.run({"zadd", "q", "1", "a", "2", "b", "3", "c"}) == "+QUEUED\r\n");
  REQUIRE(s.run({"exec"}) == "*1\r\n:3\r\n");
  s.serve();
  CHECK(waiter.delivered == Replies{"*3\r\n$1\r\nq\r\n$1\r\nc\r\n$1\r\n3\r\n"});
  CHECK(multi.delivered == Replies{"*2\r\n$1\r\nq\r\n*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n"});
}

TEST_CASE("zsets: blocking pops time out with a null array; inside MULTI they never block") {
  ZServer s;
  FakeSession& two = s.client(2);
  FakeSession& three = s.client(3);
  CHECK(s.run_as(two, {"bzpopmin", "q", "0.5"}).empty());
  CHECK(s.run_as(three, {"bzmpop", "1", "1", "q", "MAX"}).empty());
  s.now += 499;
  s.serve();
  CHECK(two.delivered.empty());
  s.now += 1;
  s.serve();
  CHECK(two.delivered == Replies{"*-1\r\n"});
  CHECK(three.delivered.empty());
  s.now += 500;
  s.serve();
  CHECK(three.delivered == Replies{"_\r\n"});
  REQUIRE(s.run({"multi"}) == "+OK\r\n");
  REQUIRE(s.run({"bzpopmin", "q", "0"}) == "+QUEUED\r\n");
  CHECK(s.run({"exec"}) == "*1\r\n*-1\r\n");
}

TEST_CASE("zsets: while blocked, a key of another type counts as empty") {
  ZServer s;
  FakeSession& waiter = s.client();
  CHECK(s.run_as(waiter, {"bzpopmin", "q", "0"}).empty());
  REQUIRE(s.run({"set", "q", "x"}) == "+OK\r\n");
  s.serve();
  CHECK(waiter.delivered.empty());
  CHECK(waiter.blocked);
  REQUIRE(s.run({"del", "q"}) == ":1\r\n");
  REQUIRE(s.run({"zadd", "q", "5", "m"}) == ":1\r\n");
  s.serve();
  CHECK(waiter.delivered == Replies{"*3\r\n$1\r\nq\r\n$1\r\nm\r\n$1\r\n5\r\n"});
}

TEST_CASE("zsets: keyspace events of the writes") {
  ZServer s;
  s.run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  CHECK(s.log.take() == Replies{"new z", "zadd z"});
  s.run({"zadd", "z", "1", "a"});
  s.run({"zadd", "z", "NX", "5", "a"});
  CHECK(s.log.take().empty());
  s.run({"zincrby", "z", "1", "a"});
  CHECK(s.log.take() == Replies{"zincr z"});
  s.run({"zrem", "z", "a", "nope"});
  CHECK(s.log.take() == Replies{"zrem z"});
  s.run({"zrangestore", "d", "z", "0", "-1"});
  CHECK(s.log.take() == Replies{"new d", "zrangestore d"});
  s.run({"zunionstore", "d", "1", "z"});
  CHECK(s.log.take() == Replies{"zunionstore d"});
  s.run({"zinterstore", "d", "2", "z", "nokey"});
  CHECK(s.log.take() == Replies{"keymiss nokey", "del d"});
  s.run({"zremrangebyscore", "z", "0", "2"});
  CHECK(s.log.take() == Replies{"zremrangebyscore z"});
  s.run({"zpopmax", "z"});
  CHECK(s.log.take() == Replies{"zpopmax z", "del z"});
  CHECK(s.run({"zadd", "z", "1", "a", "2", "nan"}) == ":2\r\n");
  s.log.take();
  CHECK(s.run({"zadd", "z", "INCR", "-inf", "a"}) == "$4\r\n-inf\r\n");
  CHECK(s.run({"zadd", "z", "INCR", "inf", "a"}) == "-ERR resulting score is not a number (NaN)\r\n");
  CHECK(s.log.take() == Replies{"zincr z"});
}

TEST_CASE("zsets: a write inside WATCH/MULTI aborts the transaction") {
  ZServer s;
  FakeSession& other = s.client();
  s.run({"zadd", "z", "1", "a"});
  REQUIRE(s.run({"watch", "z"}) == "+OK\r\n");
  s.run_as(other, {"zpopmin", "z"});
  REQUIRE(s.run({"multi"}) == "+OK\r\n");
  REQUIRE(s.run({"zadd", "z", "1", "b"}) == "+QUEUED\r\n");
  CHECK(s.run({"exec"}) == "*-1\r\n");
}

}  // namespace
}  // namespace lawnkv::test
