// The keyspace commands (src/commands/keys_family.cpp, keys_ops.cpp) run through the
// dispatcher on a ServerState of their own, at time snapshots the test
// chooses. Expected replies and events are redis-server 7.0.15's for the same
// commands (order-free replies such as KEYS are compared as sets).

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

using test::kT0;
using Events = std::vector<std::string>;

// The shared fixture, with this file's helpers.
struct Server : test::CommandServer {
  Server() : CommandServer(pubsub::kAll | pubsub::kNew) { log.with_db = true; }

  // The bulk strings of a (possibly nested) array reply, as a set.
  static std::set<std::string> bulks(const std::string& reply) {
    std::set<std::string> out;
    for (size_t i = 0; (i = reply.find('$', i)) != std::string::npos;) {
      const size_t nl = reply.find("\r\n", i);
      const size_t len = std::stoul(reply.substr(i + 1, nl - i - 1));
      out.insert(reply.substr(nl + 2, len));
      i = nl + 2 + len + 2;
    }
    return out;
  }

  // One SCAN step: the next cursor, and the keys added to *seen.
  std::string scan_step(const std::string& cursor, std::vector<std::string> opts,
                        std::set<std::string>* seen) {
    std::vector<std::string> args = {"scan", cursor};
    args.insert(args.end(), opts.begin(), opts.end());
    const std::string reply = run(args);
    REQUIRE(reply.rfind("*2\r\n$", 0) == 0);
    const size_t nl = reply.find("\r\n", 4);
    const size_t len = std::stoul(reply.substr(5, nl - 5));
    const std::string next = reply.substr(nl + 2, len);
    for (const std::string& k : bulks(reply.substr(nl + 2 + len + 2))) seen->insert(k);
    return next;
  }
};

}  // namespace

TEST_CASE_FIXTURE(Server, "DEL and UNLINK count live keys; an expired key is expired, not deleted") {
  run({"mset", "a", "1", "b", "2"});
  run({"set", "e", "v", "px", "10"});
  log.take();
  now += 11;
  CHECK(run({"del", "a", "a", "e", "missing"}) == ":1\r\n");
  CHECK(log.take() == Events{"del a@0", "expired e@0"});
  CHECK(run({"unlink", "b"}) == ":1\r\n");
  CHECK(run({"exists", "a", "b", "e"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Server, "EXISTS counts repeats, TOUCH counts live keys, TYPE names them") {
  run({"set", "a", "1"});
  CHECK(run({"exists", "a", "a", "missing"}) == ":2\r\n");
  CHECK(run({"touch", "a", "missing"}) == ":1\r\n");
  CHECK(run({"type", "a"}) == "+string\r\n");
  CHECK(run({"type", "missing"}) == "+none\r\n");
}

TEST_CASE_FIXTURE(Server, "RENAME keeps the TTL and emits new, rename_from, rename_to") {
  run({"set", "a", "1"});
  run({"pexpire", "a", "5000"});
  run({"set", "b", "2"});
  log.take();
  CHECK(run({"rename", "a", "b"}) == "+OK\r\n");
  CHECK(log.take() == Events{"new b@0", "rename_from a@0", "rename_to b@0"});
  CHECK(run({"pttl", "b"}) == ":5000\r\n");
  CHECK(run({"get", "b"}) == "$1\r\n1\r\n");
  CHECK(run({"exists", "a"}) == ":0\r\n");

  CHECK(run({"rename", "b", "b"}) == "+OK\r\n");
  CHECK(run({"renamenx", "b", "b"}) == ":0\r\n");
  CHECK(run({"rename", "missing", "missing"}) == "-ERR no such key\r\n");
  CHECK(run({"renamenx", "missing", "x"}) == "-ERR no such key\r\n");
  run({"set", "c", "3"});
  CHECK(run({"renamenx", "b", "c"}) == ":0\r\n");
  CHECK(run({"renamenx", "b", "d"}) == ":1\r\n");
  CHECK(run({"pttl", "d"}) == ":5000\r\n");
}

TEST_CASE_FIXTURE(Server, "COPY: same or other db, REPLACE, TTL kept, errors") {
  run({"set", "s", "v"});
  run({"pexpire", "s", "7000"});
  log.take();
  CHECK(run({"copy", "s", "t"}) == ":1\r\n");
  CHECK(log.take() == Events{"new t@0", "copy_to t@0"});
  CHECK(run({"pttl", "t"}) == ":7000\r\n");
  CHECK(run({"copy", "s", "t"}) == ":0\r\n");
  run({"set", "s", "w"});
  CHECK(run({"copy", "s", "t", "REPLACE"}) == ":1\r\n");
  CHECK(run({"get", "t"}) == "$1\r\nw\r\n");
  CHECK(run({"pttl", "t"}) == ":-1\r\n");
  CHECK(run({"copy", "s", "s", "db", "3"}) == ":1\r\n");
  CHECK(log.take() == Events{"set s@0", "new t@0", "copy_to t@0", "new s@3", "copy_to s@3"});
  CHECK(run({"copy", "missing", "x"}) == ":0\r\n");

  CHECK(run({"copy", "s", "s"}) == "-ERR source and destination objects are the same\r\n");
  CHECK(run({"copy", "s", "u", "db", "16"}) == "-ERR DB index is out of range\r\n");
  CHECK(run({"copy", "s", "u", "db", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(run({"copy", "s", "u", "db", "4294967296"}) ==
        "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
  CHECK(run({"copy", "s", "u", "db"}) == "-ERR syntax error\r\n");
  CHECK(run({"copy", "s", "u", "db", "99", "foo"}) == "-ERR DB index is out of range\r\n");
}

TEST_CASE_FIXTURE(Server, "MOVE keeps the TTL and emits new, move_from, move_to") {
  run({"set", "m", "v"});
  run({"pexpire", "m", "3000"});
  log.take();
  CHECK(run({"move", "m", "0"}) == "-ERR source and destination objects are the same\r\n");
  CHECK(run({"move", "m", "16"}) == "-ERR DB index is out of range\r\n");
  CHECK(run({"move", "m", "2"}) == ":1\r\n");
  CHECK(log.take() == Events{"new m@2", "move_from m@0", "move_to m@2"});
  CHECK(run({"exists", "m"}) == ":0\r\n");
  run({"set", "m", "here"});
  CHECK(run({"move", "m", "2"}) == ":0\r\n");
  run({"select", "2"});
  CHECK(run({"pttl", "m"}) == ":3000\r\n");
  CHECK(run({"move", "missing", "0"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Server, "SWAPDB swaps contents; the selected number stays") {
  run({"set", "x", "zero"});
  run({"select", "1"});
  run({"set", "x", "one"});
  run({"select", "0"});
  CHECK(run({"swapdb", "0", "1"}) == "+OK\r\n");
  CHECK(run({"get", "x"}) == "$3\r\none\r\n");
  CHECK(run({"swapdb", "0", "0"}) == "+OK\r\n");
  CHECK(run({"swapdb", "0", "16"}) == "-ERR DB index is out of range\r\n");
  CHECK(run({"swapdb", "x", "0"}) == "-ERR invalid first DB index\r\n");
  CHECK(run({"swapdb", "0", "4294967296"}) == "-ERR invalid second DB index\r\n");
}

TEST_CASE_FIXTURE(Server, "KEYS and SCAN skip expired keys; SCAN deletes them, KEYS does not") {
  run({"mset", "foo", "1", "bar", "2", "fob", "3"});
  run({"set", "fexp", "v", "px", "10"});
  now += 11;
  CHECK(bulks(run({"keys", "f*"})) == std::set<std::string>{"foo", "fob"});
  CHECK(run({"dbsize"}) == ":4\r\n");
  log.take();
  std::set<std::string> seen;
  CHECK(scan_step("0", {"match", "f*", "count", "100"}, &seen) == "0");
  CHECK(seen == std::set<std::string>{"foo", "fob"});
  CHECK(log.take() == Events{"expired fexp@0"});
  CHECK(run({"dbsize"}) == ":3\r\n");

  seen.clear();
  scan_step("0", {"type", "STRING", "count", "100"}, &seen);
  CHECK(seen.size() == 3);
  seen.clear();
  scan_step("0", {"type", "hash", "count", "100"}, &seen);
  CHECK(seen.empty());
}

TEST_CASE_FIXTURE(Server, "SCAN returns every stable key while keys come and go") {
  for (int i = 0; i < 200; ++i) run({"set", "stable" + std::to_string(i), "v"});
  std::set<std::string> seen;
  std::string cursor = "0";
  int churn = 0, steps = 0;
  do {
    cursor = scan_step(cursor, {"count", "3"}, &seen);
    // Grow the table for a while, then shrink it back.
    if (steps < 60) {
      for (int i = 0; i < 40; ++i) run({"set", "churn" + std::to_string(churn++), "v"});
    } else if (churn > 0) {
      for (int i = 0; i < 80 && churn > 0; ++i) run({"del", "churn" + std::to_string(--churn)});
    }
    ++steps;
  } while (cursor != "0" && steps < 100000);
  CHECK(cursor == "0");
  for (int i = 0; i < 200; ++i) CHECK(seen.count("stable" + std::to_string(i)) == 1);
}

TEST_CASE_FIXTURE(Server, "SCAN reads its cursor as strtoul and checks its options") {
  run({"set", "k", "v"});
  CHECK(run({"scan", ""}) == "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n");
  for (const char* ok : {"+0", "-0", "18446744073709551615", "-1"})
    CHECK(run({"scan", ok}).rfind("*2\r\n", 0) == 0);
  for (const char* bad : {" 1", "1 ", "0x1", "x", "+", "-", "18446744073709551616"})
    CHECK(run({"scan", bad}) == "-ERR invalid cursor\r\n");
  CHECK(run({"scan", "0", "count", "0"}) == "-ERR syntax error\r\n");
  CHECK(run({"scan", "0", "count", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(run({"scan", "0", "match"}) == "-ERR syntax error\r\n");
  CHECK(run({"scan", "x", "count", "0"}) == "-ERR invalid cursor\r\n");
}

TEST_CASE_FIXTURE(Server, "RANDOMKEY deletes the expired keys it draws") {
  CHECK(run({"randomkey"}) == "$-1\r\n");
  run({"set", "a", "v", "px", "10"});
  run({"set", "b", "v", "px", "10"});
  now += 11;
  CHECK(run({"randomkey"}) == "$-1\r\n");
  CHECK(run({"dbsize"}) == ":0\r\n");
  run({"set", "c", "v"});
  CHECK(run({"randomkey"}) == "$1\r\nc\r\n");
}

}  // namespace lawnkv
