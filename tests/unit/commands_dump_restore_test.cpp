// DUMP and RESTORE through the dispatcher (commands/dump_restore.cpp): a
// payload round trips every type (a hash with field TTLs as RDB 12), what
// RESTORE records for the AOF (an absolute deadline with ABSTTL, DEL when a
// REPLACEd key's deadline has passed), its notifications, and a corrupt
// payload changing nothing. Byte-exact replies against redis-server are in
// tests/compat/cases/dump_restore.txt and dump_exchange_test.cpp.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv::test {
namespace {

struct RecordingSink : EffectSink {
  std::vector<std::string> lines;
  void append(std::span<const EffectRecord> records) override {
    for (const auto& r : records) {
      std::string line;
      for (size_t i = 0; i < r.argv.size(); ++i)
        line += (i ? " " : "") + (r.argv[0] == "RESTORE" && i == 3 ? "<payload>" : r.argv[i]);
      lines.push_back(line);
    }
  }
};

// The bytes of a bulk reply.
std::string bulk(const std::string& reply) {
  REQUIRE(reply.size() > 1);
  REQUIRE(reply[0] == '$');
  const size_t crlf = reply.find("\r\n");
  return reply.substr(crlf + 2, reply.size() - crlf - 4);
}

}  // namespace

TEST_CASE("dump/restore: every type round trips, with its deadline") {
  CommandServer s;
  s.run({"set", "str", "hello"});
  s.run({"set", "int", "-12345"});
  s.run({"set", "long", std::string(300, 'x') + "y"});
  s.run({"rpush", "list", "a", "1", std::string(100, 'b')});
  s.run({"sadd", "ints", "1", "2", "300000"});
  s.run({"sadd", "strs", "a", "b"});
  s.run({"zadd", "z", "1.5", "a", "-inf", "b"});
  s.run({"hset", "h", "f", "v", "g", "1"});
  s.run({"hset", "hf", "f", "v", "g", "w"});
  s.run({"hpexpire", "hf", "50000", "FIELDS", "1", "f"});
  const std::vector<std::pair<std::string, std::vector<std::string>>> reads = {
      {"str", {"get"}},       {"int", {"get"}},          {"long", {"get"}},
      {"list", {"lrange", "0", "-1"}}, {"ints", {"smembers"}}, {"strs", {"sort_not_used"}},
      {"z", {"zrange", "0", "-1", "withscores"}}, {"h", {"hget", "f"}}, {"hf", {"hpttl", "FIELDS", "2", "f", "g"}}};
  for (const auto& entry : reads) {
    // Not a structured binding: clang 14 cannot capture one (CAPTURE does).
    const std::string& key = entry.first;
    const std::vector<std::string>& read = entry.second;
    CAPTURE(key);
    const std::string payload = bulk(s.run({"dump", key}));
    CHECK(s.run({"restore", key + ":copy", "0", payload}) == "+OK\r\n");
    CHECK(s.run({"type", key + ":copy"}) == s.run({"type", key}));
    if (read[0] == "sort_not_used") {
      CHECK(s.run({"scard", key + ":copy"}) == ":2\r\n");
      continue;
    }
    std::vector<std::string> a{read[0], key}, b{read[0], key + ":copy"};
    a.insert(a.end(), read.begin() + 1, read.end());
    b.insert(b.end(), read.begin() + 1, read.end());
    CHECK(s.run(b) == s.run(a));
  }
  // The version of a hash with a field TTL is 12, past Redis 7.0's 10.
  const std::string hf = bulk(s.run({"dump", "hf"}));
  CHECK(static_cast<uint8_t>(hf[hf.size() - 10]) == 12);
  const std::string str = bulk(s.run({"dump", "str"}));
  CHECK(static_cast<uint8_t>(str[str.size() - 10]) == 10);

  CHECK(s.run({"restore", "t", "5000", str}) == "+OK\r\n");
  CHECK(s.run({"pexpiretime", "t"}) == ":" + std::to_string(kT0 + 5000) + "\r\n");
  CHECK(s.run({"dump", "missing"}) == "$-1\r\n");
}

TEST_CASE("dump/restore: the AOF records an absolute deadline, and DEL for a replaced key already past") {
  CommandServer s;
  RecordingSink sink;
  s.state.data.effects.attach(&sink);
  s.run({"set", "k", "v"});
  const std::string payload = bulk(s.run({"dump", "k"}));
  sink.lines.clear();
  s.run({"RESTORE", "a", "1000", payload});
  s.run({"RESTORE", "b", std::to_string(kT0 + 9), payload, "ABSTTL"});
  s.run({"RESTORE", "c", "0", payload});
  s.run({"RESTORE", "b", std::to_string(kT0 - 1), payload, "ABSTTL", "REPLACE"});
  s.run({"RESTORE", "gone", std::to_string(kT0), payload, "ABSTTL"});  // past, nothing to delete
  s.run({"RESTORE", "c", "0", payload});                                // BUSYKEY: nothing
  CHECK(sink.lines == std::vector<std::string>{
                          "RESTORE a " + std::to_string(kT0 + 1000) + " <payload> ABSTTL",
                          "RESTORE b " + std::to_string(kT0 + 9) + " <payload> ABSTTL",
                          "RESTORE c 0 <payload>",
                          "DEL b",
                      });
  CHECK(s.run({"exists", "b", "gone"}) == ":0\r\n");
  s.state.data.effects.detach(&sink);
}

TEST_CASE("dump/restore: notifications, and a corrupt payload changes nothing") {
  CommandServer s;
  s.run({"rpush", "l", "a", "b"});
  std::string payload = bulk(s.run({"dump", "l"}));
  s.log.take();
  CHECK(s.run({"restore", "r", "0", payload}) == "+OK\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"new r", "restore r"});

  // The checksum covers every byte before it.
  std::string bad = payload;
  bad[1] ^= 1;
  CHECK(s.run({"restore", "r", "0", bad, "REPLACE"}) == "-ERR DUMP payload version or checksum are wrong\r\n");
  CHECK(s.run({"lrange", "r", "0", "-1"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(s.log.take().empty());
  CHECK(s.run({"restore", "r", "0", payload}) == "-BUSYKEY Target key name already exists.\r\n");
}

}  // namespace lawnkv::test
