// Whole datasets through the RDB writer and loader (src/persistence/):
// every type and encoding (field TTLs, dehydrators, lists, sorted sets,
// empty, binary, large and integer values, 16 dbs) written and loaded back,
// compared by digest and by command replies; deadlines across a restart;
// packed encodings Redis writes; what the loader refuses.

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "../support/temp_dir.hpp"
#include "persistence/keyspace_digest.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/rdb_input.hpp"
#include "persistence/rdb_loader.hpp"
#include "persistence/rdb_output.hpp"
#include "persistence/rdb_writer.hpp"
#include "persistence/value_codecs.hpp"
#include "rdb_test_bytes.hpp"
#include "types/hash.hpp"

namespace lawnkv::persistence {
namespace {

using test::CommandServer;
using test::kT0;
using namespace test_bytes;

std::string save(const store::Keyspace& ks, bool compress = true, bool checksum = true) {
  std::string out;
  StringSink sink(out);
  RdbOutput o(sink, compress, checksum);
  REQUIRE(write_rdb(ks, o, SaveOptions{compress, checksum, kT0, 0}));
  return out;
}

LoadOptions load_options(int64_t now, const CommandServer* s = nullptr) {
  LoadOptions o;
  o.values.now_ms = now;
  if (s) {
    const config::Values& v = s->state.config.values();
    o.values.hash_max_listpack_entries = v.hash_max_listpack_entries;
    o.values.hash_max_listpack_value = v.hash_max_listpack_value;
    o.values.set_max_intset_entries = v.set_max_intset_entries;
  }
  return o;
}

// A dataset of every type and encoding.
void fill(CommandServer& s) {
  s.run({"SET", "str", "hello"});
  s.run({"SET", "empty", ""});
  s.run({"SET", "int", "12345"});
  s.run({"SET", "neg", "-9223372036854775808"});
  s.run({"SET", "bin", std::string("\0\r\n\xff", 4)});
  s.run({"SET", "big", std::string(300000, 'z')});
  std::string noise;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 5000; ++i) noise.push_back(static_cast<char>(rng()));
  s.run({"SET", "noise", noise});
  s.run({"SET", "ttl", "v", "PX", "100000"});
  s.run({"HSET", "small_hash", "f1", "v1", "f2", "2"});
  for (int i = 0; i < 300; ++i) s.run({"HSET", "large_hash", "field" + std::to_string(i), std::to_string(i * 7)});
  s.run({"HSET", "ttl_hash", "a", "1", "b", "2", "c", "3"});
  s.run({"HPEXPIRE", "ttl_hash", "50000", "FIELDS", "1", "a"});
  s.run({"HPEXPIREAT", "ttl_hash", std::to_string(kT0 + 90000), "FIELDS", "1", "b"});
  s.run({"SADD", "intset", "1", "-5", "300", "70000", "-4000000000"});
  s.run({"SADD", "strset", "a", "b", std::string("\0x", 2)});
  for (int i = 0; i < 1000; ++i) s.run({"SADD", "large_intset", std::to_string(i * 3)});
  s.run({"RPUSH", "list", "a", "12", "", std::string(300, 'l'), "-5"});
  for (int i = 0; i < 2000; ++i) s.run({"RPUSH", "long_list", "e" + std::to_string(i % 37)});
  s.run({"ZADD", "zsmall", "1.5", "a", "-inf", "b", "inf", "c", "0", "d", "3", "e"});
  for (int i = 0; i < 300; ++i) s.run({"ZADD", "zlarge", std::to_string(i * 0.25), "m" + std::to_string(i)});
  s.run({"REDE.PUSH", "rede", "1000", "one", "id1"});
  s.run({"REDE.PUSH", "rede", "10", "two", "id2"});
  s.run({"REDE.PUSH", "rede", "10", "three", "id3"});
  s.run({"SELECT", "15"});
  s.run({"SET", "in15", "x", "EX", "1000"});
  s.run({"SELECT", "0"});
}

// Replies that show every key's contents and state.
std::vector<std::string> observe(CommandServer& s) {
  std::vector<std::string> r;
  for (const char* k : {"str", "empty", "int", "neg", "bin", "big", "noise", "ttl"}) {
    r.push_back(s.run({"GET", k}));
    r.push_back(s.run({"PTTL", k}));
  }
  for (const char* k : {"small_hash", "large_hash", "ttl_hash"}) {
    r.push_back(s.run({"HLEN", k}));
    r.push_back(s.run({"HGET", k, "f1"}));
    r.push_back(s.run({"HGET", k, "field299"}));
    r.push_back(s.run({"HPEXPIRETIME", k, "FIELDS", "3", "a", "b", "c"}));
    r.push_back(s.run({"OBJECT", "ENCODING", k}));
  }
  for (const char* k : {"intset", "strset", "large_intset"}) {
    r.push_back(s.run({"SCARD", k}));
    r.push_back(s.run({"SISMEMBER", k, "-4000000000"}));
    r.push_back(s.run({"SISMEMBER", k, std::string("\0x", 2)}));
    r.push_back(s.run({"OBJECT", "ENCODING", k}));
  }
  r.push_back(s.run({"SMEMBERS", "intset"}));
  r.push_back(s.run({"LRANGE", "list", "0", "-1"}));
  r.push_back(s.run({"LRANGE", "long_list", "0", "-1"}));
  r.push_back(s.run({"OBJECT", "ENCODING", "long_list"}));
  r.push_back(s.run({"ZRANGE", "zsmall", "0", "-1", "WITHSCORES"}));
  r.push_back(s.run({"ZRANGE", "zlarge", "0", "-1", "WITHSCORES"}));
  r.push_back(s.run({"OBJECT", "ENCODING", "zsmall"}));
  r.push_back(s.run({"OBJECT", "ENCODING", "zlarge"}));
  r.push_back(s.run({"REDE.TTN", "rede"}));
  r.push_back(s.run({"SELECT", "15"}));
  r.push_back(s.run({"PTTL", "in15"}));
  r.push_back(s.run({"SELECT", "0"}));
  r.push_back(s.run({"DBSIZE"}));
  return r;
}

TEST_CASE("a dataset of every type round-trips: same digest, same replies") {
  CommandServer a;
  fill(a);
  const std::string file = save(a.state.data.keyspace);
  CHECK(file.substr(0, 9) == "REDIS0012");  // a hash field has a TTL

  CommandServer b;
  b.now = a.now;
  const LoadResult r = load_rdb(file, b.state.data.keyspace, load_options(a.now, &b));
  REQUIRE_MESSAGE(r.ok(), r.error);
  CHECK(r.keys_loaded == a.state.data.keyspace.total_keys());
  CHECK(keyspace_digest(b.state.data.keyspace).hex() == keyspace_digest(a.state.data.keyspace).hex());
  const auto ob = observe(b), oa = observe(a);
  for (size_t i = 0; i < oa.size(); ++i) CHECK_MESSAGE(ob[i] == oa[i], i);
  // Dehydrator order survives: the two 10 ms elements, in push order.
  a.now = b.now = kT0 + 20;
  CHECK(a.run({"REDE.POLL", "rede"}) == "*2\r\n$3\r\ntwo\r\n$5\r\nthree\r\n");
  CHECK(b.run({"REDE.POLL", "rede"}) == "*2\r\n$3\r\ntwo\r\n$5\r\nthree\r\n");

  // The same without compression or checksum; a file without field TTLs is
  // version 10.
  CommandServer c;
  const LoadResult r2 = load_rdb(save(a.state.data.keyspace, false, false), c.state.data.keyspace, load_options(a.now, &c));
  REQUIRE_MESSAGE(r2.ok(), r2.error);
  CHECK(keyspace_digest(c.state.data.keyspace).hex() == keyspace_digest(a.state.data.keyspace).hex());
  a.run({"DEL", "ttl_hash"});
  CHECK(save(a.state.data.keyspace).substr(0, 9) == "REDIS0010");
}

TEST_CASE("random datasets over 16 dbs round-trip with the same digest") {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    CommandServer a;
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    auto value = [&]() {
      switch (pick(5)) {
        case 0: return std::to_string(static_cast<int64_t>(rng()) >> pick(64));  // integers of every width
        case 1: return std::string(pick(3) ? pick(30) : 1000 + pick(70000), static_cast<char>('a' + pick(3)));
        case 2: {
          std::string b(pick(300), '\0');
          for (char& c : b) c = static_cast<char>(rng());
          return b;
        }
        case 3: return std::string();
        default: return "v" + std::to_string(pick(100));
      }
    };
    for (int op = 0; op < 600; ++op) {
      a.run({"SELECT", std::to_string(pick(16))});
      const std::string key = "k" + std::to_string(pick(40));
      switch (pick(11)) {
        case 0: a.run({"SET", key, value()}); break;
        case 1: a.run({"SET", key, value(), "PX", std::to_string(100000000 + pick(1000000))}); break;
        case 2: a.run({"HSET", "h" + key, pick(2) ? "f" + std::to_string(pick(5)) : value(), value()}); break;
        case 3: {
          const std::string f = "f" + std::to_string(pick(5));
          a.run({"HSET", "h" + key, f, value()});
          a.run({"HPEXPIRE", "h" + key, std::to_string(100000000 + pick(1000000)), "FIELDS", "1", f});
          break;
        }
        case 4: a.run({"SADD", "s" + key, value()}); break;
        case 5: a.run({"SADD", "s" + key, std::to_string(pick(1000))}); break;
        case 9: a.run({pick(2) ? "RPUSH" : "LPUSH", "l" + key, value()}); break;
        case 10: a.run({"ZADD", "z" + key, std::to_string(static_cast<double>(static_cast<int64_t>(rng() >> pick(64))) / 7), value()}); break;
        case 6: a.run({"REDE.PUSH", "d" + key, std::to_string(pick(5000)), value(), "id" + std::to_string(pick(50))}); break;
        case 7: a.now += static_cast<int64_t>(pick(3000)); a.run({"REDE.XPOLL", "d" + key}); break;
        default: a.run({"DEL", key}); break;
      }
    }
    size_t ttl_fields = 0;
    for (int db = 0; db < 16; ++db)
      a.state.data.keyspace.db(db).dict().for_each([&](const store::Entry& e) {
        if (e.type() == store::Type::kHash) ttl_fields += static_cast<const types::Hash*>(e.obj())->ttl_fields();
      });
    CHECK(ttl_fields > 0);
    const std::string file = save(a.state.data.keyspace, pick(2) == 0, pick(2) == 0);
    CommandServer b;
    const LoadResult r = load_rdb(file, b.state.data.keyspace, load_options(a.now, &b));
    REQUIRE_MESSAGE(r.ok(), r.error);
    CHECK(r.keys_expired == 0);
    CHECK(b.state.data.keyspace.total_keys() == a.state.data.keyspace.total_keys());
    CHECK(keyspace_digest(b.state.data.keyspace).hex() == keyspace_digest(a.state.data.keyspace).hex());
  }
}

TEST_CASE("the digest tells datasets apart and ignores encoding history") {
  CommandServer a, b;
  CHECK(keyspace_digest(a.state.data.keyspace).hex() == std::string(40, '0'));
  a.run({"SADD", "s", "1", "2", "x"});
  b.run({"SADD", "s", "x", "2", "1"});
  CHECK(keyspace_digest(a.state.data.keyspace).hex() == keyspace_digest(b.state.data.keyspace).hex());
  b.run({"SADD", "s", "3"});
  CHECK(keyspace_digest(a.state.data.keyspace).hex() != keyspace_digest(b.state.data.keyspace).hex());
  a.run({"SET", "k", "v"});
  b.run({"SET", "k", "v"});
  a.run({"PEXPIRE", "k", "100"});
  b.run({"SREM", "s", "3"});
  CHECK(keyspace_digest(a.state.data.keyspace).hex() != keyspace_digest(b.state.data.keyspace).hex());
}

TEST_CASE("deadlines across a restart: keys and fields that passed are dropped, elements are due") {
  CommandServer a;
  a.run({"SET", "gone", "v", "PX", "1000"});
  a.run({"SET", "stays", "v", "PX", "5000"});
  a.run({"SET", "edge", "v", "PX", "2000"});  // deadline == load time: still alive
  a.run({"HSET", "h", "old", "1", "new", "2"});
  a.run({"HPEXPIRE", "h", "1000", "FIELDS", "1", "old"});
  a.run({"HPEXPIRE", "h", "9000", "FIELDS", "1", "new"});
  a.run({"HSET", "h_all_gone", "x", "1"});
  a.run({"HPEXPIRE", "h_all_gone", "1000", "FIELDS", "1", "x"});
  a.run({"REDE.PUSH", "d", "1000", "early", "e1"});
  a.run({"REDE.PUSH", "d", "500", "earlier", "e0"});
  a.run({"REDE.PUSH", "d", "60000", "later", "e2"});
  const std::string file = save(a.state.data.keyspace);

  CommandServer b;
  b.now = kT0 + 2000;
  const LoadResult r = load_rdb(file, b.state.data.keyspace, load_options(b.now));
  REQUIRE_MESSAGE(r.ok(), r.error);
  CHECK(r.keys_expired == 1);
  CHECK(b.run({"EXISTS", "gone"}) == ":0\r\n");
  CHECK(b.run({"PTTL", "stays"}) == ":3000\r\n");
  CHECK(b.run({"PTTL", "edge"}) == ":0\r\n");
  CHECK(b.run({"HGETALL", "h"}) == "*2\r\n$3\r\nnew\r\n$1\r\n2\r\n");
  CHECK(b.run({"EXISTS", "h_all_gone"}) == ":0\r\n");
  for (const std::string& e : b.log.take()) CHECK(e.rfind("expired", 0) != 0);  // none for what expired while down  // nothing published for what expired while down
  CHECK(b.run({"REDE.POLL", "d"}) == "*2\r\n$7\r\nearlier\r\n$5\r\nearly\r\n");
  CHECK(b.run({"REDE.TTN", "d"}) == ":58001\r\n");
}

TEST_CASE("a dehydrator's due list keeps its order through a save") {
  CommandServer a;
  a.run({"REDE.PUSH", "d", "5", "x", "1"});
  a.run({"REDE.PUSH", "d", "1", "y", "2"});
  a.run({"REDE.PUSH", "d", "100", "z", "3"});
  a.now += 10;
  CHECK(a.run({"REDE.XPOLL", "d"}) == "*2\r\n$1\r\n2\r\n$1\r\n1\r\n");  // now on the due list
  CommandServer b;
  b.now = a.now;
  REQUIRE(load_rdb(save(a.state.data.keyspace), b.state.data.keyspace, load_options(b.now)).ok());
  CHECK(keyspace_digest(b.state.data.keyspace).hex() == keyspace_digest(a.state.data.keyspace).hex());
  b.now += 200;
  CHECK(b.run({"REDE.POLL", "d"}) == "*3\r\n$1\r\ny\r\n$1\r\nx\r\n$1\r\nz\r\n");
}

TEST_CASE("packed encodings load: hash listpack and ziplist, set listpack, Redis 7.4 hash types") {
  CommandServer s;
  // FLUSHALL under the default save rules writes a snapshot: not where the tests run.
  const test::TempDir dir;
  s.state.config.mutable_values().dir = dir.path.string();
  auto load = [&](uint8_t type, const std::string& value, int version = 10) {
    store::Keyspace& ks = s.state.data.keyspace;
    s.run({"FLUSHALL"});
    return load_rdb(file_with(type, "k", value, version), ks, load_options(kT0));
  };
  REQUIRE(load(rdb::kTypeHashListpack, as_rdb_string(listpack({"f1", "v1", "f2", "v2"}))).ok());
  CHECK(s.run({"HGET", "k", "f2"}) == "$2\r\nv2\r\n");
  REQUIRE(load(rdb::kTypeHashZiplist, as_rdb_string(ziplist({"a", "1", "b", "22"}))).ok());
  CHECK(s.run({"HGETALL", "k"}) == "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$2\r\n22\r\n");
  REQUIRE(load(rdb::kTypeSetListpack, as_rdb_string(listpack({"x", "7", "y"}))).ok());
  CHECK(s.run({"SCARD", "k"}) == ":3\r\n");
  CHECK(s.run({"OBJECT", "ENCODING", "k"}) == "$9\r\nhashtable\r\n");
  // Redis 7.4's listpack with TTLs: field, value, absolute deadline or 0,
  // after the earliest deadline.
  const std::string deadline = std::to_string(kT0 + 5000);
  const std::string lpex = encoded([](RdbOutput& o) { o.ms(kT0 + 5000); }) +
                           as_rdb_string(listpack({"f", "v", deadline, "g", "w", "0", "old", "x", "1"}));
  REQUIRE(load(rdb::kTypeHashListpackEx, lpex, 12).ok());
  CHECK(s.run({"HPEXPIRETIME", "k", "FIELDS", "3", "f", "g", "old"}) ==
        "*3\r\n:" + deadline + "\r\n:-1\r\n:-2\r\n");  // "old" expired long ago: dropped
  // Its release-candidate form: absolute deadlines, no earliest one.
  const std::string meta = encoded([&](RdbOutput& o) {
    o.len(2);
    o.len(static_cast<uint64_t>(kT0 + 7000));
    o.string("f");
    o.string("v");
    o.len(0);
    o.string("g");
    o.string("w");
  });
  REQUIRE(load(rdb::kTypeHashMetadataPreGa, meta, 12).ok());
  CHECK(s.run({"HPEXPIRETIME", "k", "FIELDS", "2", "f", "g"}) ==
        "*2\r\n:" + std::to_string(kT0 + 7000) + "\r\n:-1\r\n");
  // Malformed blobs and duplicates are refused.
  CHECK(load(rdb::kTypeHashListpack, as_rdb_string(listpack({"f1", "v1", "f1", "v2"}))).error.find(
            "duplicate hash field") != std::string::npos);
  CHECK(load(rdb::kTypeHashListpack, as_rdb_string(listpack({"f1", "v1", "f2"}))).error.find("odd") !=
        std::string::npos);
  CHECK(load(rdb::kTypeSetIntset, as_rdb_string("\x02\x00\x00\x00\x05\x00\x00\x00")).error.find(
            "corrupt intset") != std::string::npos);
  CHECK(load(rdb::kTypeSet, encoded([](RdbOutput& o) {
               o.len(2);
               o.string("a");
               o.string("a");
             })).error.find("duplicate set member") != std::string::npos);
}

TEST_CASE("types lawnkv does not serve are refused by key and type; nothing is loaded") {
  std::string ok_then_stream;
  {
    std::string out;
    StringSink sink(out);
    RdbOutput o(sink, true, true);
    o.header(10);
    o.byte(rdb::kOpSelectDb);
    o.len(0);
    o.byte(rdb::kTypeString);
    o.string("first");
    o.string("v");
    o.byte(rdb::kTypeStreamListpacks3);  // Redis 7.4's streams: not read
    o.string("events");
    o.finish();
    ok_then_stream = out;
  }
  store::Keyspace ks(16);
  const LoadResult r = load_rdb(ok_then_stream, ks, load_options(kT0));
  CHECK(r.error.find("key 'events' (db 0) has type stream (RDB type 21), which lawnkv does not serve") !=
        std::string::npos);
  // DEBUG RELOAD and start-up load into a fresh keyspace: the caller's stays
  // as it was (tests/unit/commands_persistence_test.cpp).

  const LoadResult z = load_rdb(file_with(rdb::kTypeModulePreGa, "old", ""), ks, load_options(kT0));
  CHECK(z.error.find("key 'old' (db 0) has type module (RDB type 6)") != std::string::npos);

  // Another module's value: named by its module type.
  const std::string mod = bytes({0x01});  // module type id 1: "AAAAAAAAA", version 1
  const LoadResult m = load_rdb(file_with(rdb::kTypeModule2, "mod", mod), ks, load_options(kT0));
  CHECK_MESSAGE(m.error.find("module type 'AAAAAAAAA'") != std::string::npos, m.error);
  CHECK(m.error.find("key 'mod'") != std::string::npos);
}

TEST_CASE("corrupt files are refused with an offset, at every truncation and bit flip") {
  CommandServer a;
  fill(a);
  a.run({"DEL", "big", "noise", "large_hash", "large_intset"});  // keep the loops short
  const std::string file = save(a.state.data.keyspace);
  {
    store::Keyspace ks(16);
    REQUIRE(load_rdb(file, ks, load_options(kT0)).ok());
  }
  for (size_t cut = 0; cut < file.size(); ++cut) {
    store::Keyspace ks(16);
    const LoadResult r = load_rdb(file.substr(0, cut), ks, load_options(kT0));
    CHECK_FALSE(r.ok());
    CHECK(r.error.find("offset") != std::string::npos);
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 300; ++i) {
    std::string bad = file;
    bad[rng() % bad.size()] ^= static_cast<char>(1 << (rng() % 8));
    store::Keyspace ks(16);
    CHECK_FALSE(load_rdb(bad, ks, load_options(kT0)).ok());  // the checksum catches every flip
  }
  // With the checksum not checked, flips must still never crash.
  for (int i = 0; i < 300; ++i) {
    std::string bad = file;
    bad[9 + rng() % (bad.size() - 17)] = static_cast<char>(rng());
    store::Keyspace ks(16);
    LoadOptions o = load_options(kT0);
    o.verify_checksum = false;
    load_rdb(bad, ks, o);
  }
  store::Keyspace ks(16);
  CHECK(load_rdb("REDIS0013\xff", ks, load_options(kT0)).error.find("version 13") != std::string::npos);
  CHECK(load_rdb("HELLO0010\xff", ks, load_options(kT0)).error.find("signature") != std::string::npos);
  CHECK(load_rdb(std::string("REDIS0010\x00\x01k\x05" "abc", 15), ks, load_options(kT0)).error ==
        "Bad RDB file: unexpected end of file at offset 13");
}

TEST_CASE("an RDB image followed by other bytes (an AOF preamble) loads up to its checksum") {
  CommandServer a;
  a.run({"SET", "k", "v"});
  a.run({"SADD", "s", "1", "x"});
  const std::string image = save(a.state.data.keyspace);
  const std::string file = image + "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n";
  LoadOptions o = load_options(kT0);
  {
    store::Keyspace ks(16);
    CHECK_FALSE(load_rdb(file, ks, o).ok());  // a plain dump.rdb ends at its checksum
  }
  o.allow_trailing = true;
  store::Keyspace ks(16);
  const LoadResult r = load_rdb(file, ks, o);
  REQUIRE_MESSAGE(r.ok(), r.error);
  CHECK(r.end == image.size());
  CHECK(keyspace_digest(ks).hex() == keyspace_digest(a.state.data.keyspace).hex());
  std::string flipped = file;
  flipped[image.size() / 2] ^= 0x10;
  store::Keyspace ks2(16);
  CHECK_FALSE(load_rdb(flipped, ks2, o).ok());
}

TEST_CASE("a file with db past the configured databases is refused") {
  store::Keyspace big(32);
  big.db(20).add_string("k", "v");
  std::string out;
  StringSink sink(out);
  RdbOutput o(sink, true, true);
  REQUIRE(write_rdb(big, o, SaveOptions{}));
  store::Keyspace ks(16);
  CHECK(load_rdb(out, ks, load_options(kT0)).error.find("db 20 is past the 16 databases") != std::string::npos);
}

TEST_CASE("every type lawnkv serves has a codec; a value without one stops the save") {
  // A type that joins lawnkv joins this list with its codec (value_codecs.hpp).
  for (store::Type t :
       {store::Type::kHash, store::Type::kSet, store::Type::kDehydrator, store::Type::kList, store::Type::kZSet})
    CHECK(codec_for(t) != nullptr);

  // A type number no codec claims stands for a type added without one.
  static constexpr auto kUncovered = static_cast<store::Type>(250);
  REQUIRE(codec_for(kUncovered) == nullptr);
  struct Uncodable final : store::Object {
    store::Type type() const override { return kUncovered; }
    size_t memory_bytes() const override { return 0; }
    std::unique_ptr<store::Object> clone() const override { return std::make_unique<Uncodable>(); }
    std::string_view encoding() const override { return "test"; }
  };
  store::Keyspace ks(16);
  ks.db(0).add_string("fine", "v");
  ks.db(0).add_object("odd", std::make_unique<Uncodable>());
  std::string out, why;
  StringSink sink(out);
  RdbOutput o(sink, true, true);
  CHECK_FALSE(write_rdb(ks, o, SaveOptions{}, &why));
  CHECK(why == "no RDB form for the type of key 'odd'");
}

}  // namespace
}  // namespace lawnkv::persistence
