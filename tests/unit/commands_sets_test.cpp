// The set commands (src/commands/sets_family.cpp, sets_ops.cpp) through the
// dispatcher: replies, keyspace events in Redis 7.0's order, WATCH, the
// generic key commands on a set, encodings and their parameter. Replies
// whose order Redis leaves open are compared as sets of members; the
// byte-for-byte comparison with redis-server is tests/compat/cases/sets.txt.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

using Events = std::vector<std::string>;
using Members = std::multiset<std::string>;

struct Server : test::CommandServer {
  Server() : CommandServer(pubsub::kAll | pubsub::kNew) { log.with_db = true; }

  // The bulk strings of a (possibly nested) aggregate reply, as a multiset.
  static Members bulks(const std::string& reply) {
    Members out;
    for (size_t i = 0; (i = reply.find('$', i)) != std::string::npos;) {
      const size_t nl = reply.find("\r\n", i);
      const size_t len = std::stoul(reply.substr(i + 1, nl - i - 1));
      out.insert(reply.substr(nl + 2, len));
      i = nl + 2 + len + 2;
    }
    return out;
  }
  Members members(const std::string& key) { return bulks(run({"smembers", key})); }
  bool dirty_after(std::vector<std::string> command) {
    run({"watch", "s", "d"});
    run(std::move(command));
    const bool dirty = session.watcher.dirty;
    run({"unwatch"});
    return dirty;
  }
};

constexpr std::string_view kWrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

}  // namespace

TEST_CASE_FIXTURE(Server, "SADD creates (new, sadd), SREM deletes the emptied set (srem, del)") {
  CHECK(run({"sadd", "s", "b", "a", "b"}) == ":2\r\n");
  CHECK(log.take() == Events{"new s@0", "sadd s@0"});
  CHECK(run({"sadd", "s", "a"}) == ":0\r\n");
  CHECK(log.take().empty());
  CHECK(run({"type", "s"}) == "+set\r\n");
  CHECK(run({"scard", "s"}) == ":2\r\n");
  CHECK(run({"srem", "s", "a", "x"}) == ":1\r\n");
  CHECK(log.take() == Events{"srem s@0"});
  CHECK(run({"srem", "s", "x"}) == ":0\r\n");
  CHECK(run({"srem", "missing", "x"}) == ":0\r\n");
  CHECK(log.take().empty());
  // The set empties at "b": the rest is not looked at.
  CHECK(run({"srem", "s", "b", "b", "c"}) == ":1\r\n");
  CHECK(log.take() == Events{"srem s@0", "del s@0"});
  CHECK(run({"exists", "s"}) == ":0\r\n");
  run({"set", "str", "v"});
  CHECK(run({"sadd", "str", "x"}) == kWrongType);
  CHECK(run({"srem", "str", "x"}) == kWrongType);
}

TEST_CASE_FIXTURE(Server, "membership: SISMEMBER, SMISMEMBER, SCARD; a missing key is an empty set") {
  run({"sadd", "s", "1", "x"});
  CHECK(run({"sismember", "s", "1"}) == ":1\r\n");
  CHECK(run({"sismember", "s", "01"}) == ":0\r\n");
  CHECK(run({"sismember", "missing", "1"}) == ":0\r\n");
  CHECK(run({"smismember", "s", "x", "y", "1"}) == "*3\r\n:1\r\n:0\r\n:1\r\n");
  CHECK(run({"smismember", "missing", "x", "y"}) == "*2\r\n:0\r\n:0\r\n");
  CHECK(run({"scard", "missing"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Server, "SMEMBERS lists an intset ascending, as a RESP3 set") {
  run({"sadd", "s", "10", "-2", "7", "300000"});
  CHECK(run({"smembers", "s"}) == "*4\r\n$2\r\n-2\r\n$1\r\n7\r\n$2\r\n10\r\n$6\r\n300000\r\n");
  CHECK(run({"object", "encoding", "s"}) == "$6\r\nintset\r\n");
  session.protocol = 3;
  CHECK(run({"smembers", "s"}).rfind("~4\r\n$2\r\n-2\r\n", 0) == 0);
  CHECK(run({"smembers", "missing"}) == "~0\r\n");
  CHECK(run({"srandmember", "missing", "3"}) == "*0\r\n");
  CHECK(run({"spop", "missing", "3"}) == "~0\r\n");
  CHECK(run({"spop", "missing"}) == "_\r\n");
  session.protocol = 2;
  CHECK(run({"smembers", "missing"}) == "*0\r\n");
  CHECK(run({"spop", "missing"}) == "$-1\r\n");
}

TEST_CASE_FIXTURE(Server, "encodings: intset up to set-max-intset-entries, then hashtable for good") {
  CHECK(run({"config", "set", "set-max-intset-entries", "3"}) == "+OK\r\n");
  CHECK(run({"config", "get", "set-max-intset-entries"}) == "*2\r\n$22\r\nset-max-intset-entries\r\n$1\r\n3\r\n");
  run({"sadd", "s", "1", "2", "3"});
  CHECK(run({"object", "encoding", "s"}) == "$6\r\nintset\r\n");
  run({"sadd", "s", "4"});
  CHECK(run({"object", "encoding", "s"}) == "$9\r\nhashtable\r\n");
  run({"srem", "s", "4", "3"});
  CHECK(run({"object", "encoding", "s"}) == "$9\r\nhashtable\r\n");
  run({"sadd", "t", "1", "a"});
  CHECK(run({"object", "encoding", "t"}) == "$9\r\nhashtable\r\n");
  // A result is built anew: integers only, few enough: an intset again.
  CHECK(run({"sunionstore", "u", "s"}) == ":2\r\n");
  CHECK(run({"object", "encoding", "u"}) == "$6\r\nintset\r\n");
  CHECK(run({"config", "set", "set-max-intset-entries", "0"}) == "+OK\r\n");
  run({"sadd", "z", "1"});
  CHECK(run({"object", "encoding", "z"}) == "$9\r\nhashtable\r\n");
}

TEST_CASE_FIXTURE(Server, "SMOVE: srem (and del) on the source, new and sadd on the destination") {
  run({"sadd", "a", "x"});
  log.take();
  CHECK(run({"smove", "a", "b", "x"}) == ":1\r\n");
  CHECK(log.take() == Events{"srem a@0", "del a@0", "new b@0", "sadd b@0"});
  run({"sadd", "a", "x", "y"});
  log.take();
  // Already in the destination: moved all the same, no sadd.
  CHECK(run({"smove", "a", "b", "x"}) == ":1\r\n");
  CHECK(log.take() == Events{"srem a@0"});
  CHECK(members("a") == Members{"y"});
  CHECK(run({"smove", "a", "b", "nope"}) == ":0\r\n");
  CHECK(run({"smove", "b", "b", "x"}) == ":1\r\n");
  CHECK(run({"smove", "b", "b", "nope"}) == ":0\r\n");
  CHECK(log.take().empty());
  run({"set", "str", "v"});
  CHECK(run({"smove", "missing", "str", "x"}) == ":0\r\n");  // before any type check
  CHECK(run({"smove", "a", "str", "y"}) == kWrongType);
  CHECK(run({"smove", "str", "a", "y"}) == kWrongType);
  CHECK(members("a") == Members{"y"});
}

TEST_CASE_FIXTURE(Server, "SPOP: spop, then del when the set empties; with a count, a set reply") {
  run({"sadd", "s", "1", "2", "3"});
  log.take();
  const std::string one = run({"spop", "s"});
  CHECK(bulks(one).size() == 1);
  CHECK(log.take() == Events{"spop s@0"});
  CHECK(run({"scard", "s"}) == ":2\r\n");
  CHECK(run({"spop", "s", "0"}) == "*0\r\n");
  CHECK(log.take().empty());
  // The whole set: ascending, as SUNION of an intset lists it.
  run({"sadd", "s", "1", "2", "3"});
  log.take();
  CHECK(run({"spop", "s", "5"}) == "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
  CHECK(log.take() == Events{"spop s@0", "del s@0"});
  CHECK(run({"exists", "s"}) == ":0\r\n");
  for (int i = 0; i < 100; ++i) run({"sadd", "big", "m" + std::to_string(i)});
  log.take();
  for (int count : {3, 90}) {  // popping one by one, and rebuilding what is left
    const Members before = members("big");
    const Members popped = bulks(run({"spop", "big", std::to_string(count)}));
    CHECK(popped.size() == static_cast<size_t>(count));
    CHECK(std::set<std::string>(popped.begin(), popped.end()).size() == popped.size());
    Members after = members("big");
    CHECK(after.size() + popped.size() == before.size());
    after.insert(popped.begin(), popped.end());
    CHECK(after == before);
    CHECK(log.take() == Events{"spop big@0"});
  }
  CHECK(run({"spop", "big", "-1"}) == "-ERR value is out of range, must be positive\r\n");
  CHECK(run({"spop", "big", "x"}) == "-ERR value is out of range, must be positive\r\n");
  CHECK(run({"spop", "big", "1", "2"}) == "-ERR syntax error\r\n");
}

TEST_CASE_FIXTURE(Server, "SRANDMEMBER: repeats with a negative count, distinct with a positive one") {
  run({"sadd", "s", "5", "1", "3"});
  CHECK(run({"srandmember", "s", "-7"}).rfind("*7\r\n", 0) == 0);
  const Members repeated = bulks(run({"srandmember", "s", "-50"}));
  CHECK(repeated.size() == 50);
  for (const std::string& m : repeated) CHECK((m == "1" || m == "3" || m == "5"));
  CHECK(run({"srandmember", "s", "3"}) == "*3\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n5\r\n");
  CHECK(run({"srandmember", "s", "100"}) == "*3\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n5\r\n");
  const Members two = bulks(run({"srandmember", "s", "2"}));
  CHECK(std::set<std::string>(two.begin(), two.end()).size() == 2);
  CHECK(run({"srandmember", "s", "0"}) == "*0\r\n");
  CHECK(run({"srandmember", "s", "-9223372036854775808"}) ==
        "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n");
  CHECK(run({"srandmember", "s", "1", "2"}) == "-ERR syntax error\r\n");
  CHECK(run({"srandmember", "missing"}) == "$-1\r\n");
  CHECK(run({"scard", "s"}) == ":3\r\n");  // nothing taken
}

TEST_CASE_FIXTURE(Server, "SINTER, SUNION, SDIFF and SINTERCARD; a missing key is empty") {
  run({"sadd", "a", "1", "2", "3", "x"});
  run({"sadd", "b", "2", "3", "4"});
  run({"sadd", "c", "3", "2"});
  CHECK(run({"sinter", "b", "c"}) == "*2\r\n$1\r\n2\r\n$1\r\n3\r\n");  // c, an intset, is smallest
  CHECK(bulks(run({"sinter", "a", "b", "c"})) == Members{"2", "3"});
  CHECK(run({"sinter", "a", "missing"}) == "*0\r\n");
  CHECK(run({"sunion", "b", "c", "missing"}) == "*3\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n");
  CHECK(bulks(run({"sdiff", "a", "b"})) == Members{"1", "x"});
  CHECK(run({"sdiff", "missing", "a"}) == "*0\r\n");
  CHECK(run({"sdiff", "a", "a"}) == "*0\r\n");
  CHECK(run({"sintercard", "2", "a", "b"}) == ":2\r\n");
  CHECK(run({"sintercard", "2", "a", "b", "limit", "1"}) == ":1\r\n");
  CHECK(run({"sintercard", "2", "a", "missing"}) == ":0\r\n");
  CHECK(run({"sintercard", "0", "a"}) == "-ERR numkeys should be greater than 0\r\n");
  CHECK(run({"sintercard", "x", "a"}) == "-ERR numkeys should be greater than 0\r\n");
  CHECK(run({"sintercard", "3", "a", "b"}) == "-ERR Number of keys can't be greater than number of args\r\n");
  CHECK(run({"sintercard", "1", "a", "limit", "-1"}) == "-ERR LIMIT can't be negative\r\n");
  CHECK(run({"sintercard", "1", "a", "limit"}) == "-ERR syntax error\r\n");
  run({"set", "str", "v"});
  // Keys are looked up in order; a missing one before the string: WRONGTYPE.
  CHECK(run({"sinter", "missing", "str"}) == kWrongType);
  CHECK(run({"sunion", "a", "str"}) == kWrongType);
  CHECK(run({"sdiff", "a", "str"}) == kWrongType);
  CHECK(run({"sintercard", "2", "str", "a"}) == kWrongType);
}

TEST_CASE_FIXTURE(Server, "the STORE commands: reply, then sinterstore / del, as Redis orders them") {
  run({"sadd", "a", "1", "2", "3"});
  run({"sadd", "b", "2", "3", "4"});
  run({"set", "d", "string", "ex", "100"});
  log.take();
  CHECK(run({"sinterstore", "d", "a", "b"}) == ":2\r\n");
  CHECK(log.take() == Events{"sinterstore d@0"});
  CHECK(run({"ttl", "d"}) == ":-1\r\n");  // a stored result has no TTL
  CHECK(run({"smembers", "d"}) == "*2\r\n$1\r\n2\r\n$1\r\n3\r\n");
  CHECK(run({"sunionstore", "e", "a", "b"}) == ":4\r\n");
  CHECK(log.take() == Events{"new e@0", "sunionstore e@0"});
  CHECK(run({"sdiffstore", "e", "a", "b"}) == ":1\r\n");
  CHECK(log.take() == Events{"sdiffstore e@0"});
  // An empty result deletes the destination.
  CHECK(run({"sdiffstore", "e", "a", "a"}) == ":0\r\n");
  CHECK(log.take() == Events{"del e@0"});
  CHECK(run({"sinterstore", "d", "a", "missing"}) == ":0\r\n");
  CHECK(log.take() == Events{"del d@0"});
  CHECK(run({"sinterstore", "d", "a", "missing"}) == ":0\r\n");
  CHECK(log.take().empty());
  // A destination past its deadline: expired by the store, then new.
  run({"set", "x", "v", "px", "10"});
  now += 20;
  log.take();
  CHECK(run({"sunionstore", "x", "a"}) == ":3\r\n");
  CHECK(log.take() == Events{"expired x@0", "new x@0", "sunionstore x@0"});
  // The destination may be a source.
  CHECK(run({"sinterstore", "a", "a", "b"}) == ":2\r\n");
  CHECK(members("a") == Members{"2", "3"});
  run({"set", "str", "v"});
  CHECK(run({"sunionstore", "d", "a", "str"}) == kWrongType);
  CHECK(run({"exists", "d"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Server, "WATCH sees every change to a set, and no read") {
  run({"sadd", "s", "1", "2", "3"});
  CHECK(dirty_after({"sadd", "s", "4"}));
  CHECK_FALSE(dirty_after({"sadd", "s", "4"}));
  CHECK(dirty_after({"srem", "s", "4"}));
  CHECK_FALSE(dirty_after({"srem", "s", "4"}));
  CHECK(dirty_after({"spop", "s"}));
  run({"sadd", "s", "2"});
  CHECK(dirty_after({"smove", "s", "t", "2"}));
  CHECK(dirty_after({"sunionstore", "d", "s", "t"}));
  CHECK(dirty_after({"sinterstore", "d", "s", "t"}));  // empty: d deleted
  CHECK_FALSE(dirty_after({"sinterstore", "d", "s", "t"}));  // nothing to delete
  CHECK_FALSE(dirty_after({"smembers", "s"}));
  CHECK_FALSE(dirty_after({"sscan", "s", "0"}));
  CHECK_FALSE(dirty_after({"srandmember", "s", "-5"}));
  CHECK_FALSE(dirty_after({"sinter", "s", "d"}));
  CHECK_FALSE(dirty_after({"spop", "s", "0"}));
}

TEST_CASE_FIXTURE(Server, "COPY, RENAME, MOVE, SWAPDB, DEL, SCAN TYPE and MEMORY USAGE work on sets") {
  run({"sadd", "s", "1", "x"});
  CHECK(run({"copy", "s", "c"}) == ":1\r\n");
  run({"sadd", "c", "y"});
  CHECK(members("s") == Members{"1", "x"});  // a deep copy
  CHECK(members("c") == Members{"1", "x", "y"});
  CHECK(run({"object", "encoding", "c"}) == "$9\r\nhashtable\r\n");
  CHECK(run({"rename", "c", "r"}) == "+OK\r\n");
  CHECK(members("r") == Members{"1", "x", "y"});
  CHECK(run({"move", "r", "1"}) == ":1\r\n");
  run({"select", "1"});
  CHECK(members("r") == Members{"1", "x", "y"});
  run({"select", "0"});
  CHECK(run({"swapdb", "0", "1"}) == "+OK\r\n");
  CHECK(members("r") == Members{"1", "x", "y"});
  run({"set", "str", "v"});
  CHECK(run({"scan", "0", "type", "set"}) == "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nr\r\n");
  const auto usage = [&](const char* key) { return std::stol(run({"memory", "usage", key}).substr(1)); };
  const long small = usage("r");
  for (int i = 0; i < 1000; ++i) run({"sadd", "r", "member-" + std::to_string(i)});
  // Each 8- to 10-byte member: a 24-byte block, 4 to 8 bytes of buckets and
  // a 4-byte slot (and up to a quarter more).
  const long per_member = (usage("r") - small) / 1000;
  CHECK(per_member >= 32);
  CHECK(per_member <= 37);
  CHECK(run({"del", "r"}) == ":1\r\n");
  CHECK(run({"exists", "r"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Server, "DEBUG OBJECT names a set's encoding") {
  state.config.mutable_values().enable_debug_command = "yes";
  run({"sadd", "i", "1"});
  run({"sadd", "h", "x"});
  CHECK(run({"debug", "object", "i"}).find(" encoding:intset ") != std::string::npos);
  CHECK(run({"debug", "object", "h"}).find(" encoding:hashtable ") != std::string::npos);
}

TEST_CASE_FIXTURE(Server, "SSCAN: an intset whole with cursor 0; a hash table returns its stable members") {
  run({"sadd", "i", "3", "1", "2"});
  CHECK(run({"sscan", "i", "0", "count", "1"}) == "*2\r\n$1\r\n0\r\n*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
  CHECK(run({"sscan", "i", "0", "match", "[12]"}) == "*2\r\n$1\r\n0\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
  CHECK(run({"sscan", "missing", "0", "count", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");  // options unread
  CHECK(run({"sscan", "i", "0", "count", "0"}) == "-ERR syntax error\r\n");
  CHECK(run({"sscan", "i", "0", "type", "set"}) == "-ERR syntax error\r\n");
  CHECK(run({"sscan", "i", "x"}) == "-ERR invalid cursor\r\n");
  for (int i = 0; i < 50; ++i) run({"sadd", "h", "stable" + std::to_string(i)});
  std::set<std::string> seen;
  std::string cursor = "0";
  int churn = 0, steps = 0;
  do {
    const std::string reply = run({"sscan", "h", cursor, "count", "5"});
    const size_t nl = reply.find("\r\n", 4);
    cursor = reply.substr(nl + 2, reply.find("\r\n", nl + 2) - nl - 2);
    for (const std::string& m : bulks(reply.substr(reply.find("\r\n", nl + 2) + 2))) seen.insert(m);
    // Members come and go between steps: the table grows, then shrinks.
    for (int k = 0; k < 40; ++k, ++churn) {
      if (steps < 20) run({"sadd", "h", "churn" + std::to_string(churn)});
      else run({"srem", "h", "churn" + std::to_string(churn - 800)});
    }
    ++steps;
  } while (cursor != "0" && steps < 10000);
  CHECK(cursor == "0");
  for (int i = 0; i < 50; ++i) CHECK(seen.count("stable" + std::to_string(i)) == 1);
}

}  // namespace lawnkv
