// DUMP payloads carried between redis-server 7.0.15 and lawnkv, both ways:
// every type in every encoding Redis 7.0 gives it (int-encoded and LZF
// strings, quicklists with packed and plain nodes, intsets of each width,
// listpack and hashtable hashes, sets and sorted sets), DUMPed on one
// server and RESTOREd on the other with an absolute deadline, then read on
// both: the same value, type, encoding and deadline. Payloads are not
// compared byte for byte: lawnkv writes the plain RDB form of a non-string
// value, which Redis reads (tests/compat/cases/dump_restore.txt compares
// the replies that are the same).

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

void must(RawClient& c, std::vector<std::string> argv) {
  const Reply r = parse_reply(c.call(std::span<const std::string>(argv)));
  REQUIRE_MESSAGE(r.type != '-', r.text);
}

// The same keys, in every encoding, on c.
void fill(RawClient& c) {
  std::mt19937_64 rng(7);
  must(c, {"SET", "str", "hello"});
  must(c, {"SET", "empty", ""});
  for (const char* n : {"0", "-128", "32767", "-2147483648", "2147483648", "007"})
    must(c, {"SET", std::string("num:") + n, n});
  must(c, {"SET", "compressible", std::string(5000, 'a') + "tail"});
  std::string noise(3000, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  must(c, {"SET", "binary", noise});
  must(c, {"HSET", "hash_small", "a", "1", "b", "-77", "c", "text"});
  std::vector<std::string> args{"HSET", "hash_large"};
  for (int i = 0; i < 600; ++i) args.insert(args.end(), {"f" + std::to_string(i), std::to_string(i * 1000003)});
  must(c, args);
  must(c, {"SADD", "intset16", "1", "2", "-3", "300"});
  must(c, {"SADD", "intset32", "1", "70000", "-70000"});
  must(c, {"SADD", "intset64", "1", "5000000000", "-9223372036854775808"});
  must(c, {"SADD", "set_strings", "a", "b", "c", std::string("\0\x01", 2)});
  args = {"SADD", "set_large"};
  for (int i = 0; i < 700; ++i) args.push_back(std::to_string(i * 7));
  must(c, args);
  must(c, {"RPUSH", "list_small", "a", "12", "-7", "", "5000000000"});
  args = {"RPUSH", "list_long"};
  for (int i = 0; i < 3000; ++i) args.push_back(i % 3 ? std::to_string(i) : std::string(40, 'x'));
  must(c, args);
  must(c, {"RPUSH", "list_big_element", std::string(20000, 'b'), "small"});
  must(c, {"ZADD", "zset_small", "1", "a", "-2.5", "b", "inf", "c", "-inf", "d", "0", "e"});
  args = {"ZADD", "zset_large"};
  for (int i = 0; i < 300; ++i) args.insert(args.end(), {std::to_string(i / 3.0), "m" + std::to_string(i)});
  must(c, args);
}

std::vector<std::string> sorted(const std::string& reply) {
  std::vector<std::string> out;
  for (const Reply& r : parse_reply(reply).elements) out.push_back(r.text);
  std::sort(out.begin(), out.end());
  return out;
}

// The value of key on a equals that of copy on b.
void same_value(RawClient& a, const std::string& key, RawClient& b, const std::string& copy) {
  const std::string type = a.call({"TYPE", key});
  CHECK(b.call({"TYPE", copy}) == type);
  CHECK(b.call({"OBJECT", "ENCODING", copy}) == a.call({"OBJECT", "ENCODING", key}));
  if (type == "+string\r\n") {
    CHECK(b.call({"GET", copy}) == a.call({"GET", key}));
  } else if (type == "+hash\r\n") {
    CHECK(sorted(b.call({"HGETALL", copy})) == sorted(a.call({"HGETALL", key})));
  } else if (type == "+set\r\n") {
    CHECK(sorted(b.call({"SMEMBERS", copy})) == sorted(a.call({"SMEMBERS", key})));
  } else if (type == "+list\r\n") {
    CHECK(b.call({"LRANGE", copy, "0", "-1"}) == a.call({"LRANGE", key, "0", "-1"}));
  } else if (type == "+zset\r\n") {
    CHECK(b.call({"ZRANGE", copy, "0", "-1", "WITHSCORES"}) == a.call({"ZRANGE", key, "0", "-1", "WITHSCORES"}));
  } else {
    FAIL("unexpected type " << type);
  }
}

// Every key of from, DUMPed there and RESTOREd into to as "copy:<key>".
void carry(RawClient& from, RawClient& to, const std::string& label) {
  const Reply keys = parse_reply(from.call({"KEYS", "*"}));
  REQUIRE(keys.elements.size() > 20);
  for (const Reply& k : keys.elements) {
    if (k.text.rfind("copy:", 0) == 0) continue;
    CAPTURE(label);
    CAPTURE(k.text);
    const Reply payload = parse_reply(from.call({"DUMP", k.text}));
    REQUIRE(payload.type == '$');
    const std::string copy = "copy:" + k.text;
    REQUIRE(to.call({"RESTORE", copy, "4102444800000", payload.text, "ABSTTL"}) == "+OK\r\n");
    CHECK(to.call({"PEXPIRETIME", copy}) == ":4102444800000\r\n");
    same_value(from, k.text, to, copy);
  }
}

}  // namespace

TEST_CASE("compat: DUMP payloads from redis-server RESTORE in lawnkv, and lawnkv's in redis-server") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  fill(r);
  fill(l);
  carry(r, l, "redis -> lawnkv");
  carry(l, r, "lawnkv -> redis");
  // And without LZF on lawnkv's side.
  REQUIRE(l.call({"CONFIG", "SET", "rdbcompression", "no"}) == "+OK\r\n");
  REQUIRE(r.call({"FLUSHALL"}) == "+OK\r\n");
  fill(r);
  carry(l, r, "lawnkv (rdbcompression no) -> redis");
}

}  // namespace lawnkv::test
