// dump.rdb carried between redis-server 7.0.15 and lawnkv, both ways: Redis
// writes a dataset in every encoding it has for the types lawnkv serves
// (int-encoded and LZF-compressed strings, listpack and hashtable hashes,
// intsets of 16/32/64-bit members and hashtable sets, expiries, several
// dbs); lawnkv loads it and answers every key as Redis does (value, type,
// encoding, exact PEXPIRETIME). lawnkv then saves, a second redis-server
// loads that file, and its DEBUG DIGEST (Redis's own) equals the first's.
// What Redis 7.0 cannot read is refused by it, as the README says: a
// dehydrator (module type lawn-rede) and a hash with a field TTL (RDB 12).
// With REDIS74_SERVER naming a Redis 7.4 redis-server, hash field TTLs are
// carried both ways too (skipped without it).

#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <optional>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../support/raw_calls.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "../support/poll_until.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> in_dir(const TempDir& d) { return {"--dir", d.path.string()}; }

void fill(RawClient& c) {
  std::mt19937_64 rng(42);
  must(c, {"SET", "str", "hello"});
  must(c, {"SET", "empty", ""});
  for (const char* n : {"0", "12", "-1", "127", "-128", "32767", "-32768", "2147483647", "-2147483648",
                        "2147483648", "9223372036854775807", "-9223372036854775808", "007", "+5", "1.5"})
    must(c, {"SET", std::string("num:") + n, n});
  must(c, {"SET", "compressible", std::string(5000, 'a') + "tail"});
  std::string noise(3000, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  must(c, {"SET", "binary", noise});
  must(c, {"SET", "ttl", "v", "PX", "100000000"});
  must(c, {"SET", "ttl_abs", "v", "PXAT", "4102444800000"});
  must(c, {"HSET", "hash_small", "a", "1", "b", "-77", "c", "text"});
  for (int i = 0; i < 600; ++i)
    must(c, {"HSET", "hash_large", "f" + std::to_string(i), std::to_string(i * 1000003)});
  must(c, {"HSET", "hash_long_value", "f", std::string(100, 'z'), "g", "1"});
  must(c, {"HSET", "hash_ttl", "f", "v"});
  must(c, {"PEXPIRE", "hash_ttl", "50000000"});
  must(c, {"SADD", "intset16", "1", "2", "-3", "300"});
  must(c, {"SADD", "intset32", "1", "70000", "-70000"});
  must(c, {"SADD", "intset64", "1", "5000000000", "-9223372036854775808"});
  must(c, {"SADD", "set_strings", "a", "b", "c", std::string("\0\x01", 2)});
  for (int i = 0; i < 700; ++i) must(c, {"SADD", "set_large_ints", std::to_string(i * 7)});
  for (int i = 0; i < 100; ++i) must(c, {"SADD", "set_mixed", i % 3 ? std::to_string(i) : "m" + std::to_string(i)});
  must(c, {"RPUSH", "list_small", "a", "12", "-7", "", "5000000000"});
  for (int i = 0; i < 3000; ++i) must(c, {"RPUSH", "list_long", i % 3 ? std::to_string(i) : std::string(40, 'x')});
  must(c, {"RPUSH", "list_big_element", std::string(20000, 'b'), "small"});
  must(c, {"ZADD", "zset_small", "1", "a", "-2.5", "b", "inf", "c", "-inf", "d", "0", "e"});
  for (int i = 0; i < 300; ++i) must(c, {"ZADD", "zset_large", std::to_string(i / 3.0), "m" + std::to_string(i)});
  must(c, {"ZADD", "zset_long_member", "1", std::string(100, 'z')});
  // Streams: nodes of 5 entries, fields shared with a node's first entry or
  // not, tombstones, a trim, groups with pending entries and consumers, an
  // empty stream with a group, metadata set by XSETID.
  must(c, {"CONFIG", "SET", "stream-node-max-entries", "5"});
  for (int i = 1; i <= 40; ++i) {
    if (i % 7 == 0) {
      must(c, {"XADD", "stream", std::to_string(i) + "-" + std::to_string(i % 3), "other", std::string(i * 10, 'o')});
    } else {
      must(c, {"XADD", "stream", std::to_string(i) + "-" + std::to_string(i % 3), "a", std::to_string(i * 1000003),
               "b", "-" + std::to_string(i)});
    }
  }
  must(c, {"XDEL", "stream", "3-0", "12-0", "13-1"});
  must(c, {"XTRIM", "stream", "MINID", "4"});
  must(c, {"XGROUP", "CREATE", "stream", "g1", "0"});
  must(c, {"XGROUP", "CREATE", "stream", "g2", "$"});
  must(c, {"XGROUP", "CREATE", "stream", "g3", "10", "ENTRIESREAD", "7"});
  must(c, {"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "6", "STREAMS", "stream", ">"});
  must(c, {"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "4", "STREAMS", "stream", ">"});
  must(c, {"XREADGROUP", "GROUP", "g3", "carol", "NOACK", "COUNT", "3", "STREAMS", "stream", ">"});
  must(c, {"XGROUP", "CREATECONSUMER", "stream", "g1", "idle"});
  must(c, {"XACK", "stream", "g1", "5-2"});
  must(c, {"XCLAIM", "stream", "g1", "bob", "0", "6-0", "RETRYCOUNT", "9"});
  must(c, {"XGROUP", "CREATE", "stream_empty", "g", "$", "MKSTREAM"});
  must(c, {"XADD", "stream_meta", "5-5", "f", "v"});
  must(c, {"XSETID", "stream_meta", "9-9", "ENTRIESADDED", "30", "MAXDELETEDID", "7-7"});
  must(c, {"CONFIG", "SET", "stream-node-max-entries", "100"});
  must(c, {"SELECT", "3"});
  must(c, {"SET", "in_db3", "x", "EX", "86400"});
  must(c, {"SADD", "set_db3", "q"});
  must(c, {"SELECT", "15"});
  must(c, {"HSET", "h15", "k", "v"});
  must(c, {"SELECT", "0"});
}

std::vector<std::string> sorted(std::vector<Reply> elements) {
  std::vector<std::string> out;
  for (const Reply& r : elements) out.push_back(r.text);
  std::sort(out.begin(), out.end());
  return out;
}

// XINFO STREAM key FULL COUNT 0 with each consumer's seen-time as 0.
std::string full_without_seen(RawClient& c, const std::string& key) {
  Reply r = parse_reply(c.call({"XINFO", "STREAM", key, "FULL", "COUNT", "0"}));
  std::function<void(Reply&)> zero = [&](Reply& x) {
    for (size_t i = 0; i + 1 < x.elements.size(); ++i)
      if (x.elements[i].text == "seen-time") x.elements[i + 1] = Reply{':', false, "0", {}};
    for (Reply& child : x.elements) zero(child);
  };
  zero(r);
  return write_reply(r);
}

// Every key of every db of `ref` answers the same on `other`. Consumers'
// seen times are compared unless replayed: an AOF replay makes the
// consumers it touches seen at the load (in Redis 7.0 too).
void compare(RawClient& ref, RawClient& other, const std::string& label, bool replayed = false) {
  size_t keys = 0;
  for (int db = 0; db < 16; ++db) {
    const std::string n = std::to_string(db);
    REQUIRE(ref.call({"SELECT", n}) == "+OK\r\n");
    REQUIRE(other.call({"SELECT", n}) == "+OK\r\n");
    CHECK(other.call({"DBSIZE"}) == ref.call({"DBSIZE"}));
    const Reply names = parse_reply(ref.call({"KEYS", "*"}));
    for (const Reply& k : names.elements) {
      const std::string& key = k.text;
      CAPTURE(label);
      CAPTURE(db);
      CAPTURE(key);
      ++keys;
      const std::string type = ref.call({"TYPE", key});
      CHECK(other.call({"TYPE", key}) == type);
      CHECK(other.call({"PEXPIRETIME", key}) == ref.call({"PEXPIRETIME", key}));
      CHECK(other.call({"OBJECT", "ENCODING", key}) == ref.call({"OBJECT", "ENCODING", key}));
      if (type == "+string\r\n") {
        CHECK(other.call({"GET", key}) == ref.call({"GET", key}));
      } else if (type == "+hash\r\n") {
        CHECK(sorted(parse_reply(other.call({"HGETALL", key})).elements) ==
              sorted(parse_reply(ref.call({"HGETALL", key})).elements));
        CHECK(other.call({"HLEN", key}) == ref.call({"HLEN", key}));
      } else if (type == "+set\r\n") {
        CHECK(sorted(parse_reply(other.call({"SMEMBERS", key})).elements) ==
              sorted(parse_reply(ref.call({"SMEMBERS", key})).elements));
        // An intset lists its members in order: the same order.
        if (ref.call({"OBJECT", "ENCODING", key}) == "$6\r\nintset\r\n")
          CHECK(other.call({"SMEMBERS", key}) == ref.call({"SMEMBERS", key}));
      } else if (type == "+list\r\n") {
        CHECK(other.call({"LRANGE", key, "0", "-1"}) == ref.call({"LRANGE", key, "0", "-1"}));
      } else if (type == "+zset\r\n") {
        CHECK(other.call({"ZRANGE", key, "0", "-1", "WITHSCORES"}) == ref.call({"ZRANGE", key, "0", "-1", "WITHSCORES"}));
      } else if (type == "+stream\r\n") {
        CHECK(other.call({"XRANGE", key, "-", "+"}) == ref.call({"XRANGE", key, "-", "+"}));
        CHECK(other.call({"XINFO", "STREAM", key}) == ref.call({"XINFO", "STREAM", key}));
        // Delivery and seen times are absolute: loaded, they are equal.
        if (replayed) {
          CHECK(full_without_seen(other, key) == full_without_seen(ref, key));
        } else {
          CHECK(other.call({"XINFO", "STREAM", key, "FULL", "COUNT", "0"}) ==
                ref.call({"XINFO", "STREAM", key, "FULL", "COUNT", "0"}));
        }
        CHECK(other.call({"XINFO", "GROUPS", key}) == ref.call({"XINFO", "GROUPS", key}));
      } else {
        FAIL("unexpected type " << type);
      }
    }
  }
  CHECK(keys > 30);
  ref.call({"SELECT", "0"});
  other.call({"SELECT", "0"});
}

}  // namespace

TEST_CASE("compat: redis-server's dump.rdb loads in lawnkv, and lawnkv's in redis-server") {
  TempDir from_redis;
  ServerProcess redis = ServerProcess::redis(in_dir(from_redis));
  RawClient r(redis.port());
  fill(r);
  REQUIRE(r.call({"SAVE"}) == "+OK\r\n");
  const std::string redis_digest = r.call({"DEBUG", "DIGEST"});

  ServerProcess lawnkv = ServerProcess::lawnkv(in_dir(from_redis));
  RawClient l(lawnkv.port());
  compare(r, l, "redis -> lawnkv");

  // lawnkv writes (over Redis's file); a fresh redis-server loads it.
  TempDir from_lawnkv;
  REQUIRE(l.call({"SAVE"}) == "+OK\r\n");
  fs::copy_file(from_redis.path / "dump.rdb", from_lawnkv.path / "dump.rdb");
  ServerProcess redis2 = ServerProcess::redis(in_dir(from_lawnkv));
  RawClient r2(redis2.port());
  compare(r2, l, "lawnkv -> redis");
  CHECK(r2.call({"DEBUG", "DIGEST"}) == redis_digest);
  // And once more without compression.
  REQUIRE(l.call({"CONFIG", "SET", "rdbcompression", "no"}) == "+OK\r\n");
  REQUIRE(l.call({"SAVE"}) == "+OK\r\n");
  TempDir plain;
  fs::copy_file(from_redis.path / "dump.rdb", plain.path / "dump.rdb");
  CHECK(fs::file_size(plain.path / "dump.rdb") > fs::file_size(from_lawnkv.path / "dump.rdb"));
  ServerProcess redis3 = ServerProcess::redis(in_dir(plain));
  RawClient r3(redis3.port());
  CHECK(r3.call({"DEBUG", "DIGEST"}) == redis_digest);
}

// Redis 7.4 at binary, no persistence of its own, dir given.
ServerProcess redis74(const std::string& binary, const TempDir& dir) {
  return ServerProcess("redis74", [binary, d = dir.path.string()](uint16_t port) {
    return std::vector<std::string>{binary, "--port", std::to_string(port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--daemonize", "no", "--dir", d};
  });
}

TEST_CASE("compat: hash field TTLs between Redis 7.4 and lawnkv through RDB 12, both ways") {
  const char* binary = std::getenv("REDIS74_SERVER");
  if (!binary || !*binary) {
    MESSAGE("REDIS74_SERVER not set: Redis 7.4 exchange skipped");
    return;
  }
  TempDir from_redis;
  ServerProcess r74 = redis74(binary, from_redis);
  RawClient r(r74.port());
  must(r, {"HSET", "small", "a", "1", "b", "2", "c", "3"});
  must(r, {"HPEXPIRE", "small", "50000000", "FIELDS", "2", "a", "b"});
  for (int i = 0; i < 700; ++i) must(r, {"HSET", "big", "f" + std::to_string(i), std::to_string(i)});
  must(r, {"HPEXPIREAT", "big", "4102444800000", "FIELDS", "2", "f1", "f2"});
  must(r, {"HSET", "plain", "x", "y"});
  must(r, {"SET", "s", "v", "PX", "90000000"});
  REQUIRE(r.call({"SAVE"}) == "+OK\r\n");

  auto same = [](RawClient& a, RawClient& b, const std::string& label) {
    CAPTURE(label);
    for (const char* key : {"small", "big", "plain"}) {
      CAPTURE(key);
      for (const char* f : {"a", "b", "c", "f1", "f2", "f3", "x"})
        CHECK(b.call({"HPEXPIRETIME", key, "FIELDS", "1", f}) == a.call({"HPEXPIRETIME", key, "FIELDS", "1", f}));
      CHECK(sorted(parse_reply(b.call({"HGETALL", key})).elements) ==
            sorted(parse_reply(a.call({"HGETALL", key})).elements));
      CHECK(b.call({"OBJECT", "ENCODING", key}) == a.call({"OBJECT", "ENCODING", key}));
    }
    CHECK(b.call({"PEXPIRETIME", "s"}) == a.call({"PEXPIRETIME", "s"}));
  };
  ServerProcess lawnkv = ServerProcess::lawnkv(in_dir(from_redis));
  RawClient l(lawnkv.port());
  same(r, l, "redis 7.4 -> lawnkv");

  TempDir from_lawnkv;
  REQUIRE(l.call({"SAVE"}) == "+OK\r\n");
  fs::copy_file(from_redis.path / "dump.rdb", from_lawnkv.path / "dump.rdb");
  ServerProcess r74b = redis74(binary, from_lawnkv);
  RawClient r2(r74b.port());
  same(r, r2, "lawnkv -> redis 7.4");
}

TEST_CASE("compat: what Redis 7.0 cannot hold is refused by it: dehydrators, hash field TTLs") {
  for (const std::string what : {"dehydrator", "field-ttl"}) {
    CAPTURE(what);
    TempDir dir;
    {
      ServerProcess lawnkv = ServerProcess::lawnkv(in_dir(dir));
      RawClient l(lawnkv.port());
      if (what == "dehydrator") {
        REQUIRE(l.call({"REDE.PUSH", "q", "1000", "e", "id"}) == "+OK\r\n");
      } else {
        REQUIRE(l.call({"HSET", "h", "f", "v"}) == ":1\r\n");
        REQUIRE(l.call({"HEXPIRE", "h", "100", "FIELDS", "1", "f"}) == "*1\r\n:1\r\n");
      }
      REQUIRE(l.call({"SAVE"}) == "+OK\r\n");
    }
    // Redis listens before it loads: it may accept a connection, then exit
    // (with status 0 for the module value: it checks the file, finds it
    // well-formed, and still stops).
    bool refused = false;
    std::string log;
    try {
      ServerProcess redis = ServerProcess::redis(in_dir(dir));
      const std::optional<int> status = redis.wait_exit(std::chrono::seconds(10));
      refused = status.has_value();
      log = redis.log();
    } catch (const std::exception& e) {
      refused = true;
      log = e.what();
    }
    if (what == "dehydrator") CHECK_MESSAGE(log.find("lawn-rede") != std::string::npos, log);
    else CHECK_MESSAGE(log.find("version 12") != std::string::npos, log);
    CHECK(refused);
  }
}

TEST_CASE("compat: redis-server's append-only directory loads in lawnkv") {
  // Redis 7.0.15 logs with appendfsync always (its files are whole while it
  // runs): an RDB base from a rewrite, then an increment holding what it
  // logs for relative times, random draws, blocking pops, transactions.
  TempDir dir;
  std::vector<std::string> args = in_dir(dir);
  args.insert(args.end(), {"--appendonly", "yes", "--appendfsync", "always"});
  ServerProcess redis = ServerProcess::redis(args);
  RawClient r(redis.port());
  fill(r);
  must(r, {"BGREWRITEAOF"});
  REQUIRE(poll_until(std::chrono::steady_clock::now() + std::chrono::seconds(30), [&] {
    const std::string info = r.call({"INFO", "persistence"});
    return info.find("aof_rewrite_in_progress:0") != std::string::npos &&
           info.find("aof_rewrite_scheduled:0") != std::string::npos;
  }));
  must(r, {"SET", "after", "v", "EX", "100000"});
  must(r, {"EXPIRE", "str", "200000"});
  must(r, {"INCRBYFLOAT", "float", "1.1"});
  must(r, {"SPOP", "set_strings"});
  must(r, {"SPOP", "set_large_ints", "3"});
  must(r, {"RPUSH", "queue", "j1", "j2"});
  must(r, {"BLPOP", "queue", "0"});
  must(r, {"BLMOVE", "queue", "done", "LEFT", "RIGHT", "0"});
  must(r, {"ZPOPMIN", "zset_small"});
  must(r, {"HINCRBYFLOAT", "hash_small", "a", "0.5"});
  must(r, {"MULTI"});
  must(r, {"SELECT", "4"});
  must(r, {"LPUSH", "in_txn", "x"});
  must(r, {"EXEC"});
  must(r, {"GETEX", "ttl", "PERSIST"});
  must(r, {"DEL", "hash_large"});
  // Streams as Redis logs them: XADD with its ID and explicit trims,
  // deliveries and claims as XCLAIMs, NOACK reads as SETID, deletions.
  must(r, {"SELECT", "0"});
  must(r, {"XADD", "stream", "MAXLEN", "~", "20", "*", "f", "new"});
  must(r, {"XADD", "stream_empty", "*", "f", "v"});
  must(r, {"XREADGROUP", "GROUP", "g1", "dora", "COUNT", "3", "STREAMS", "stream", ">"});
  must(r, {"XREADGROUP", "GROUP", "g2", "ed", "NOACK", "STREAMS", "stream", ">"});
  must(r, {"XREADGROUP", "GROUP", "g", "fay", "STREAMS", "stream_empty", ">"});
  must(r, {"XACK", "stream", "g1", "7-1"});
  must(r, {"XCLAIM", "stream", "g1", "dora", "0", "8-2", "9-0", "RETRYCOUNT", "4"});
  must(r, {"XAUTOCLAIM", "stream", "g1", "gus", "0", "0", "COUNT", "3"});
  must(r, {"XDEL", "stream", "15-0"});
  must(r, {"XGROUP", "SETID", "stream", "g3", "12", "ENTRIESREAD", "9"});
  must(r, {"XGROUP", "CREATECONSUMER", "stream", "g3", "hal"});
  must(r, {"XGROUP", "DELCONSUMER", "stream", "g1", "idle"});
  must(r, {"XTRIM", "stream", "MAXLEN", "12"});
  must(r, {"XSETID", "stream_meta", "10-0", "ENTRIESADDED", "31"});
  TempDir copy, copy2;
  std::filesystem::copy(dir.path / "appendonlydir", copy.path / "appendonlydir");
  std::filesystem::copy(dir.path / "appendonlydir", copy2.path / "appendonlydir");
  std::vector<std::string> largs = in_dir(copy);
  largs.insert(largs.end(), {"--appendonly", "yes"});
  ServerProcess lawnkv = ServerProcess::lawnkv(largs);
  RawClient l(lawnkv.port());
  // The reference is redis-server replaying the same files: what Redis logs
  // does not carry everything (a group's read counter after XREADGROUP).
  std::vector<std::string> rargs = in_dir(copy2);
  rargs.insert(rargs.end(), {"--appendonly", "yes"});
  ServerProcess redis2 = ServerProcess::redis(rargs);
  RawClient r2(redis2.port());
  REQUIRE(poll_until(std::chrono::steady_clock::now() + std::chrono::seconds(30),
                     [&] { return r2.call({"PING"}) == "+PONG\r\n"; }));
  compare(r2, l, "redis-server's AOF in lawnkv", true);
}

}  // namespace lawnkv::test
