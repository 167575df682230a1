// CLIENT REPLY where a case file cannot look (tests/compat/cases/
// client_reply.txt has the rest): a blocked command's reply is muted as
// Redis mutes it, while Pub/Sub messages still come. Checked against
// redis-server 7.0.15 by hand: CLIENT REPLY SKIP then BLPOP l 0, RPUSH l x
// from another client: no reply, the element is taken, PING answers PONG;
// the same under OFF.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv::test {
namespace {

TEST_CASE("CLIENT REPLY SKIP and OFF mute the reply of a command that blocked, when it is served") {
  BlockingServer s;
  FakeSession& waiter = s.client();
  CHECK(s.run_as(waiter, {"client", "reply", "skip"}).empty());
  CHECK(s.run_as(waiter, {"blpop", "l", "0"}).empty());
  REQUIRE(waiter.blocked);
  CHECK(s.run({"rpush", "l", "x"}) == ":1\r\n");
  s.serve();
  CHECK_FALSE(waiter.blocked);
  CHECK(waiter.delivered.empty());
  CHECK(s.run({"llen", "l"}) == ":0\r\n");  // served all the same
  CHECK(s.run_as(waiter, {"ping"}) == "+PONG\r\n");  // the SKIP is spent

  CHECK(s.run_as(waiter, {"client", "reply", "off"}).empty());
  CHECK(s.run_as(waiter, {"blpop", "l", "0"}).empty());
  CHECK(s.run({"rpush", "l", "y"}) == ":1\r\n");
  s.serve();
  CHECK(waiter.delivered.empty());
  CHECK(s.run({"llen", "l"}) == ":0\r\n");
  CHECK(s.run_as(waiter, {"client", "reply", "on"}) == "+OK\r\n");

  // Without CLIENT REPLY the served reply comes.
  CHECK(s.run_as(waiter, {"blpop", "l", "0"}).empty());
  CHECK(s.run({"rpush", "l", "z"}) == ":1\r\n");
  s.serve();
  CHECK(waiter.delivered == std::vector<std::string>{"*2\r\n$1\r\nl\r\n$1\r\nz\r\n"});
}

TEST_CASE("CLIENT REPLY OFF still delivers Pub/Sub confirmations and messages") {
  BlockingServer s;
  FakeSession& listener = s.client();
  CHECK(s.run_as(listener, {"client", "reply", "off"}).empty());
  CHECK(s.run_as(listener, {"subscribe", "ch"}) == "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  CHECK(s.run({"publish", "ch", "hi"}) == ":1\r\n");
  CHECK(listener.delivered == std::vector<std::string>{"*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"});
  CHECK(s.run_as(listener, {"ping"}).empty());  // muted
}

}  // namespace
}  // namespace lawnkv::test
