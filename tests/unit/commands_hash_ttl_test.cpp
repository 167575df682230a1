// Hash-field TTLs (Redis 7.4's HEXPIRE family) on the command fixture's
// fake clock: reply codes and conditions, never early (a field lives while
// now <= deadline), reaped by the keys' expiry index with `hexpired` and
// `del`, lazy removal before replies, HSET clearing and HINCRBY keeping a
// TTL, and RENAME, MOVE, COPY, FLUSHALL carrying or dropping the timers.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {
namespace {

struct HashServer : CommandServer {
  HashServer() : CommandServer(pubsub::kAll) {}
  store::Keyspace& ks() { return state.data.keyspace; }
  // Active expiry at `now`, as the server's cycle runs it.
  size_t reap() { return ks().reap(now, 1'000'000); }
};

}  // namespace

TEST_CASE("hash TTL: reply codes, conditions, and the time that deletes") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2", "c", "3"}) == ":3\r\n");
  CHECK(s.run({"hpexpire", "h", "1000", "FIELDS", "2", "a", "nosuch"}) == "*2\r\n:1\r\n:-2\r\n");
  CHECK(s.run({"hpexpire", "h", "500", "NX", "FIELDS", "2", "a", "b"}) == "*2\r\n:0\r\n:1\r\n");
  CHECK(s.run({"hpexpire", "h", "2000", "XX", "FIELDS", "2", "a", "c"}) == "*2\r\n:1\r\n:0\r\n");
  CHECK(s.run({"hpexpire", "h", "1500", "GT", "FIELDS", "2", "a", "c"}) == "*2\r\n:0\r\n:0\r\n");
  CHECK(s.run({"hpexpire", "h", "1500", "LT", "FIELDS", "2", "a", "c"}) == "*2\r\n:1\r\n:1\r\n");
  CHECK(s.run({"hpttl", "h", "FIELDS", "4", "a", "b", "c", "x"}) == "*4\r\n:1500\r\n:500\r\n:1500\r\n:-2\r\n");
  CHECK(s.run({"httl", "h", "FIELDS", "1", "b"}) == "*1\r\n:1\r\n");  // 0.5 s rounds up
  CHECK(s.run({"hpexpiretime", "h", "FIELDS", "1", "b"}) == "*1\r\n:" + std::to_string(kT0 + 500) + "\r\n");
  CHECK(s.run({"hexpiretime", "h", "FIELDS", "1", "b"}) == "*1\r\n:" + std::to_string((kT0 + 500 + 999) / 1000) + "\r\n");
  s.log.take();
  // A time not in the future deletes the field: code 2, an hdel event.
  CHECK(s.run({"hpexpireat", "h", std::to_string(kT0), "FIELDS", "1", "c"}) == "*1\r\n:2\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"hdel h"});
  CHECK(s.run({"hpexpire", "h", "10", "FIELDS", "1", "a"}) == "*1\r\n:1\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"hexpire h"});
  CHECK(s.run({"hpersist", "h", "FIELDS", "3", "a", "c", "x"}) == "*3\r\n:1\r\n:-2\r\n:-2\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"hpersist h"});
  CHECK(s.run({"hpersist", "h", "FIELDS", "1", "a"}) == "*1\r\n:-1\r\n");
  CHECK(s.log.take().empty());
  CHECK(s.run({"hexpire", "nokey", "10", "FIELDS", "2", "a", "b"}) == "*2\r\n:-2\r\n:-2\r\n");
  CHECK(s.run({"httl", "nokey", "FIELDS", "1", "a"}) == "*1\r\n:-2\r\n");
}

TEST_CASE("hash TTL: a field lives while now <= deadline; the index reaps it after") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2"}) == ":2\r\n");
  REQUIRE(s.run({"hpexpire", "h", "100", "FIELDS", "1", "a"}) == "*1\r\n:1\r\n");
  s.log.take();
  s.now = kT0 + 100;  // at the deadline: still there, for reads and for the reaper
  CHECK(s.reap() == 0);
  CHECK(s.run({"hget", "h", "a"}) == "$1\r\n1\r\n");
  s.now = kT0 + 101;
  CHECK(s.reap() == 1);
  CHECK(s.log.take() == std::vector<std::string>{"hexpired h"});
  CHECK(s.run({"hgetall", "h"}) == "*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
  CHECK(s.ks().db(0).expires() == 0);  // fields are not keys with a TTL
  // The last field going takes the key.
  REQUIRE(s.run({"hpexpire", "h", "5", "FIELDS", "1", "b"}) == "*1\r\n:1\r\n");
  s.log.take();
  s.now += 6;
  CHECK(s.reap() == 1);
  CHECK(s.log.take() == std::vector<std::string>{"hexpired h", "del h"});
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
  CHECK(s.ks().stats().expired_subkeys == 2);
}

TEST_CASE("hash TTL: a due field not yet reaped is never shown, and is removed first") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2", "c", "3"}) == ":3\r\n");
  REQUIRE(s.run({"hpexpire", "h", "10", "FIELDS", "2", "a", "b"}) == "*2\r\n:1\r\n:1\r\n");
  s.log.take();
  s.now += 11;  // no reap: as between two loop iterations
  CHECK(s.run({"hlen", "h"}) == ":1\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"hexpired h"});
  CHECK(s.run({"hget", "h", "a"}) == "$-1\r\n");
  CHECK(s.run({"hkeys", "h"}) == "*1\r\n$1\r\nc\r\n");
  CHECK(s.reap() == 0);  // nothing left for the reaper
  REQUIRE(s.run({"hpexpire", "h", "10", "FIELDS", "1", "c"}) == "*1\r\n:1\r\n");
  s.log.take();
  s.now += 11;
  CHECK(s.run({"hget", "h", "c"}) == "$-1\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"hexpired h", "del h"});
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
  // At its deadline a field is still there, even when an earlier one is due.
  REQUIRE(s.run({"hset", "g", "x", "1", "y", "2"}) == ":2\r\n");
  REQUIRE(s.run({"hpexpire", "g", "10", "FIELDS", "1", "x"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"hpexpire", "g", "20", "FIELDS", "1", "y"}) == "*1\r\n:1\r\n");
  s.now += 20;
  CHECK(s.run({"hgetall", "g"}) == "*2\r\n$1\r\ny\r\n$1\r\n2\r\n");
}

TEST_CASE("hash TTL: HSET drops a field's TTL, HINCRBY keeps it") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "n", "1", "s", "x"}) == ":2\r\n");
  REQUIRE(s.run({"hpexpire", "h", "100", "FIELDS", "2", "n", "s"}) == "*2\r\n:1\r\n:1\r\n");
  CHECK(s.run({"hincrby", "h", "n", "5"}) == ":6\r\n");
  CHECK(s.run({"hincrbyfloat", "h", "n", "0.5"}) == "$3\r\n6.5\r\n");
  CHECK(s.run({"hset", "h", "s", "longer value than before"}) == ":0\r\n");
  CHECK(s.run({"hpttl", "h", "FIELDS", "2", "n", "s"}) == "*2\r\n:100\r\n:-1\r\n");
  CHECK(s.run({"hdel", "h", "n"}) == ":1\r\n");
  CHECK(s.ks().db(0).next_deadline() == expiry::kNever);  // HDEL cancelled the timer
}

TEST_CASE("hash TTL: RENAME, MOVE and COPY carry field TTLs; FLUSHALL drops them") {
  HashServer s;
  // FLUSHALL under the default save rules writes a snapshot: not where the tests run.
  const test::TempDir dir;
  s.state.config.mutable_values().dir = dir.path.string();
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2"}) == ":2\r\n");
  REQUIRE(s.run({"hpexpire", "h", "100", "FIELDS", "1", "a"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"rename", "h", "r"}) == "+OK\r\n");
  CHECK(s.run({"hpttl", "r", "FIELDS", "1", "a"}) == "*1\r\n:100\r\n");
  REQUIRE(s.run({"copy", "r", "c"}) == ":1\r\n");
  REQUIRE(s.run({"move", "r", "3"}) == ":1\r\n");
  CHECK(s.ks().db(3).next_deadline() <= kT0 + 100);
  s.log.with_db = true;
  s.log.take();
  s.now = kT0 + 101;
  CHECK(s.reap() == 2);  // the copy in db 0 and the moved hash in db 3
  auto events = s.log.take();
  std::sort(events.begin(), events.end());
  CHECK(events == std::vector<std::string>{"hexpired c@0", "hexpired r@3"});
  REQUIRE(s.run({"hpexpire", "c", "100", "FIELDS", "1", "b"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"flushall"}) == "+OK\r\n");
  CHECK(s.ks().db(0).next_deadline() == expiry::kNever);
  s.now += 1000;
  CHECK(s.reap() == 0);
}

TEST_CASE("hash TTL: 10,000 fields with one TTL expire together, key deleted once") {
  HashServer s;
  std::vector<std::string> hset{"hset", "big"};
  std::vector<std::string> hexpire{"hpexpire", "big", "1000", "FIELDS", "10000"};
  for (int i = 0; i < 10'000; ++i) {
    hset.push_back("f" + std::to_string(i));
    hset.push_back("v");
    hexpire.push_back("f" + std::to_string(i));
  }
  REQUIRE(s.run(hset) == ":10000\r\n");
  REQUIRE(s.run(hexpire).size() == 10'000 * 4 + 8);
  s.log.take();
  s.now = kT0 + 1000;
  CHECK(s.reap() == 0);
  s.now = kT0 + 1001;
  CHECK(s.reap() == 10'000);
  CHECK(s.run({"exists", "big"}) == ":0\r\n");
  // One pass: one `hexpired` for the 10,000 fields, as Redis 7.4.
  CHECK(s.log.take() == std::vector<std::string>{"hexpired big", "del big"});
}

TEST_CASE("hash TTL: a reaping pass reports each hash once, in the order their fields first went") {
  HashServer s;
  // Fields of a and b interleave in deadline order: a1 b1 a2 b2.
  REQUIRE(s.run({"hset", "a", "a1", "1", "a2", "2", "keep", "3"}) == ":3\r\n");
  REQUIRE(s.run({"hset", "b", "b1", "1", "b2", "2"}) == ":2\r\n");
  REQUIRE(s.run({"hpexpire", "a", "10", "FIELDS", "1", "a1"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"hpexpire", "b", "11", "FIELDS", "1", "b1"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"hpexpire", "a", "12", "FIELDS", "1", "a2"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"hpexpire", "b", "13", "FIELDS", "1", "b2"}) == "*1\r\n:1\r\n");
  s.log.take();
  s.now = kT0 + 100;
  {
    // The expiry cycle's chunks (here of one item) make one pass.
    const store::Keyspace::ReapPass pass(s.ks());
    size_t reaped = 0;  // a call may spend its budget of 1 on moving timers in the wheel
    for (int i = 0; i < 100 && reaped < 4; ++i) reaped += s.ks().reap(s.now, 1);
    CHECK(reaped == 4);
    CHECK(s.log.take().empty());  // nothing before the pass ends
  }
  CHECK(s.log.take() == std::vector<std::string>{"hexpired a", "hexpired b", "del b"});
  CHECK(s.run({"hgetall", "a"}) == "*2\r\n$4\r\nkeep\r\n$1\r\n3\r\n");
  // Outside a pass, each reap call is one.
  REQUIRE(s.run({"hset", "c", "c1", "1", "c2", "2", "c3", "3"}) == ":3\r\n");
  REQUIRE(s.run({"hpexpire", "c", "10", "FIELDS", "2", "c1", "c2"}) == "*2\r\n:1\r\n:1\r\n");
  s.log.take();
  s.now += 11;
  for (int field = 0; field < 2; ++field) {
    size_t reaped = 0;
    for (int i = 0; i < 100 && reaped == 0; ++i) reaped = s.ks().reap(s.now, 1);
    CHECK(reaped == 1);
    CHECK(s.log.take() == std::vector<std::string>{"hexpired c"});
  }
}

TEST_CASE("hash TTL: a hash whose own TTL ends in the pass has its fields reported before `expired`") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "f", "1", "g", "2"}) == ":2\r\n");
  REQUIRE(s.run({"hpexpire", "h", "10", "FIELDS", "1", "f"}) == "*1\r\n:1\r\n");
  REQUIRE(s.run({"pexpire", "h", "20"}) == ":1\r\n");
  s.log.take();
  s.now += 100;
  {
    const store::Keyspace::ReapPass pass(s.ks());
    CHECK(s.ks().reap(s.now, 10) == 2);
  }
  CHECK(s.log.take() == std::vector<std::string>{"hexpired h", "expired h"});
}

TEST_CASE("hash TTL: a hash's fields and then the hash itself reaped in one call") {
  // The reaper holds due fields back in a batch (Db::reap) and meets the
  // key's own timer (1 ms later) before the batch has run. Expiring the
  // batch deletes the key when it takes the last field; the key must not be
  // touched after that (ASan), nor reported twice.
  HashServer s;
  REQUIRE(s.run({"hset", "last", "f", "1"}) == ":1\r\n");
  REQUIRE(s.run({"hset", "more", "f", "1", "g", "2"}) == ":2\r\n");
  for (const char* key : {"last", "more"})
    REQUIRE(s.run({"hpexpire", key, "10", "FIELDS", "1", "f"}) == "*1\r\n:1\r\n");
  for (const char* key : {"last", "more"}) REQUIRE(s.run({"pexpire", key, "11"}) == ":1\r\n");
  s.log.take();
  s.now += 12;
  {
    const store::Keyspace::ReapPass pass(s.ks());
    CHECK(s.ks().reap(s.now, 100) == 3);  // two fields, one key ("last" went with its field)
  }
  CHECK(s.run({"exists", "last", "more"}) == ":0\r\n");
  // A key expiring in the pass has its fields reported just before it; the
  // others at the end of the pass.
  CHECK(s.log.take() == std::vector<std::string>{"hexpired more", "expired more", "hexpired last", "del last"});
}

}  // namespace lawnkv::test

namespace lawnkv::test {

// Every reply here was checked against a Redis 7.4.1 built from its source.
TEST_CASE("hash TTL: OBJECT ENCODING says listpackex as Redis 7.4, until the listpack limits are passed") {
  HashServer s;
  REQUIRE(s.run({"config", "set", "hash-max-listpack-entries", "3"}) == "+OK\r\n");
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2"}) == ":2\r\n");
  CHECK(s.run({"object", "encoding", "h"}) == "$8\r\nlistpack\r\n");
  REQUIRE(s.run({"hpexpire", "h", "1000", "FIELDS", "1", "a"}) == "*1\r\n:1\r\n");
  CHECK(s.run({"object", "encoding", "h"}) == "$10\r\nlistpackex\r\n");
  // Kept when the TTLs go, and in a copy.
  REQUIRE(s.run({"hpersist", "h", "FIELDS", "1", "a"}) == "*1\r\n:1\r\n");
  CHECK(s.run({"object", "encoding", "h"}) == "$10\r\nlistpackex\r\n");
  REQUIRE(s.run({"copy", "h", "h2"}) == ":1\r\n");
  CHECK(s.run({"object", "encoding", "h2"}) == "$10\r\nlistpackex\r\n");
  // A value past hash-max-listpack-value, or a fourth field: hashtable, for good.
  REQUIRE(s.run({"hset", "h", "c", std::string(65, 'x')}) == ":1\r\n");
  CHECK(s.run({"object", "encoding", "h"}) == "$9\r\nhashtable\r\n");
  REQUIRE(s.run({"hdel", "h", "c"}) == ":1\r\n");
  CHECK(s.run({"object", "encoding", "h"}) == "$9\r\nhashtable\r\n");
  REQUIRE(s.run({"hset", "h2", "c", "3"}) == ":1\r\n");
  CHECK(s.run({"object", "encoding", "h2"}) == "$10\r\nlistpackex\r\n");
  REQUIRE(s.run({"hset", "h2", "d", "4"}) == ":1\r\n");
  CHECK(s.run({"object", "encoding", "h2"}) == "$9\r\nhashtable\r\n");
  // A hash past the limits before its first TTL stays a hashtable.
  REQUIRE(s.run({"hset", "big", "a", "1", "b", "2", "c", "3", "d", "4"}) == ":4\r\n");
  REQUIRE(s.run({"hpexpire", "big", "1000", "FIELDS", "1", "a"}) == "*1\r\n:1\r\n");
  CHECK(s.run({"object", "encoding", "big"}) == "$9\r\nhashtable\r\n");
}

}  // namespace lawnkv::test
