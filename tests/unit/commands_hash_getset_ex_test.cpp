// Redis 8.0's HSETEX, HGETEX and HGETDEL on the command fixture's fake
// clock. No Redis 8 runs here: the expected replies, errors and keyspace
// events follow Redis 8.0's t_hash.c (hsetexParseArgs, hsetexCommand,
// hgetexCommand, hgetdelCommand) and its documentation.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv::test {
namespace {

struct HashServer : CommandServer {
  HashServer() : CommandServer(pubsub::kAll) {}
  size_t reap() { return state.data.keyspace.reap(now, 1'000'000); }
};

using Events = std::vector<std::string>;

}  // namespace

TEST_CASE("HSETEX: sets fields with a TTL, keeps or drops TTLs, FNX and FXX") {
  HashServer s;
  CHECK(s.run({"hsetex", "h", "PX", "1000", "FIELDS", "2", "a", "1", "b", "2"}) == ":1\r\n");
  CHECK(s.log.take() == Events{"hset h", "hexpire h"});
  CHECK(s.run({"hpttl", "h", "FIELDS", "2", "a", "b"}) == "*2\r\n:1000\r\n:1000\r\n");
  // No option: the value is set and its TTL dropped, as HSET does.
  CHECK(s.run({"hsetex", "h", "FIELDS", "1", "a", "x"}) == ":1\r\n");
  CHECK(s.log.take() == Events{"hset h"});
  CHECK(s.run({"hpttl", "h", "FIELDS", "2", "a", "b"}) == "*2\r\n:-1\r\n:1000\r\n");
  // KEEPTTL keeps b's.
  CHECK(s.run({"hsetex", "h", "KEEPTTL", "FIELDS", "1", "b", "y"}) == ":1\r\n");
  CHECK(s.log.take() == Events{"hset h"});
  CHECK(s.run({"hpttl", "h", "FIELDS", "1", "b"}) == "*1\r\n:1000\r\n");
  CHECK(s.run({"hget", "h", "b"}) == "$1\r\ny\r\n");
  // FNX: nothing set when any field exists; FXX: when any is missing.
  CHECK(s.run({"hsetex", "h", "FNX", "FIELDS", "2", "a", "1", "c", "3"}) == ":0\r\n");
  CHECK(s.run({"hsetex", "h", "FXX", "EX", "5", "FIELDS", "2", "a", "1", "c", "3"}) == ":0\r\n");
  CHECK(s.log.take().empty());
  CHECK(s.run({"hexists", "h", "c"}) == ":0\r\n");
  CHECK(s.run({"hsetex", "h", "FXX", "EX", "5", "FIELDS", "2", "a", "1", "b", "2"}) == ":1\r\n");
  CHECK(s.run({"hpttl", "h", "FIELDS", "2", "a", "b"}) == "*2\r\n:5000\r\n:5000\r\n");
  CHECK(s.run({"hsetex", "nokey", "FXX", "FIELDS", "1", "a", "1"}) == ":0\r\n");
  CHECK(s.run({"exists", "nokey"}) == ":0\r\n");
  CHECK(s.run({"hsetex", "new", "FNX", "EXAT", std::to_string(kT0 / 1000 + 100), "FIELDS", "1", "a", "1"}) == ":1\r\n");
  CHECK(s.run({"hexpiretime", "new", "FIELDS", "1", "a"}) == "*1\r\n:" + std::to_string(kT0 / 1000 + 100) + "\r\n");
}

TEST_CASE("HSETEX: a deadline not in the future deletes the fields, and the emptied key") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1"}) == ":1\r\n");
  s.log.take();
  CHECK(s.run({"hsetex", "h", "PXAT", std::to_string(kT0), "FIELDS", "1", "a", "2"}) == ":1\r\n");
  CHECK(s.log.take() == Events{"hset h", "hdel h", "del h"});
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
  CHECK(s.run({"hsetex", "h", "EX", "0", "FIELDS", "1", "a", "2"}) == ":1\r\n");
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
}

TEST_CASE("HSETEX: argument errors as Redis 8.0's") {
  HashServer s;
  CHECK(s.run({"hsetex", "h", "EX", "1", "PX", "1", "FIELDS", "1", "a", "1"}) ==
        "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n");
  CHECK(s.run({"hsetex", "h", "KEEPTTL", "EX", "1", "FIELDS", "1", "a", "1"}) ==
        "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n");
  CHECK(s.run({"hsetex", "h", "FNX", "FXX", "FIELDS", "1", "a", "1"}) ==
        "-ERR Only one of FXX or FNX arguments can be specified\r\n");
  CHECK(s.run({"hsetex", "h", "NX", "FIELDS", "1", "a", "1"}) == "-ERR unknown argument: NX\r\n");
  CHECK(s.run({"hsetex", "h", "FIELDS", "2", "a", "1"}) == "-ERR wrong number of arguments for 'hsetex' command\r\n");
  CHECK(s.run({"hsetex", "h", "FIELDS", "1", "a", "1", "b"}) ==
        "-ERR wrong number of arguments for 'hsetex' command\r\n");
  CHECK(s.run({"hsetex", "h", "FIELDS", "0", "a", "1"}) == "-ERR invalid number of fields\r\n");
  CHECK(s.run({"hsetex", "h", "FIELDS", "x", "a", "1"}) == "-ERR invalid number of fields\r\n");
  CHECK(s.run({"hsetex", "h", "EX", "-1", "FIELDS", "1", "a", "1"}) == "-ERR invalid expire time, must be >= 0\r\n");
  CHECK(s.run({"hsetex", "h", "EX", "x", "FIELDS", "1", "a", "1"}) ==
        "-ERR value is not an integer or out of range\r\n");
  CHECK(s.run({"hsetex", "h", "PXAT", "70368744177664", "FIELDS", "1", "a", "1"}) ==
        "-ERR invalid expire time in 'hsetex' command\r\n");
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
  REQUIRE(s.run({"set", "s", "v"}) == "+OK\r\n");
  CHECK(s.run({"hsetex", "s", "FIELDS", "1", "a", "1"}) ==
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
}

TEST_CASE("HGETEX: values, and their TTLs set, removed, or the fields deleted") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2", "c", "3"}) == ":3\r\n");
  s.log.take();
  CHECK(s.run({"hgetex", "h", "FIELDS", "2", "a", "x"}) == "*2\r\n$1\r\n1\r\n$-1\r\n");
  CHECK(s.log.take().empty());
  CHECK(s.run({"hgetex", "h", "PX", "500", "FIELDS", "3", "a", "b", "x"}) ==
        "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n");
  CHECK(s.log.take() == Events{"hexpire h"});
  CHECK(s.run({"hpttl", "h", "FIELDS", "3", "a", "b", "c"}) == "*3\r\n:500\r\n:500\r\n:-1\r\n");
  // PERSIST on a field without a TTL changes nothing: no event.
  CHECK(s.run({"hgetex", "h", "PERSIST", "FIELDS", "1", "c"}) == "*1\r\n$1\r\n3\r\n");
  CHECK(s.log.take().empty());
  CHECK(s.run({"hgetex", "h", "PERSIST", "FIELDS", "2", "a", "c"}) == "*2\r\n$1\r\n1\r\n$1\r\n3\r\n");
  CHECK(s.log.take() == Events{"hpersist h"});
  CHECK(s.run({"hpttl", "h", "FIELDS", "2", "a", "b"}) == "*2\r\n:-1\r\n:500\r\n");
  // The field lives until its deadline has passed, then is never returned.
  s.now = kT0 + 500;
  CHECK(s.run({"hgetex", "h", "FIELDS", "1", "b"}) == "*1\r\n$1\r\n2\r\n");
  s.now = kT0 + 501;
  CHECK(s.run({"hgetex", "h", "FIELDS", "1", "b"}) == "*1\r\n$-1\r\n");
  CHECK(s.log.take() == Events{"hexpired h"});
  // A time not in the future deletes what it reads.
  CHECK(s.run({"hgetex", "h", "EXAT", "1", "FIELDS", "2", "a", "c"}) == "*2\r\n$1\r\n1\r\n$1\r\n3\r\n");
  CHECK(s.log.take() == Events{"hdel h", "del h"});
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
  CHECK(s.run({"hgetex", "h", "EX", "5", "FIELDS", "2", "a", "b"}) == "*2\r\n$-1\r\n$-1\r\n");
}

TEST_CASE("HGETEX: argument errors as Redis 8.0's") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1"}) == ":1\r\n");
  CHECK(s.run({"hgetex", "h", "KEEPTTL", "FIELDS", "1", "a"}) ==
        "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n");
  CHECK(s.run({"hgetex", "h", "EX", "5", "FIELDS", "0", "a"}) ==
        "-ERR Number of fields must be a positive integer\r\n");
  CHECK(s.run({"hgetex", "h", "FIELDS", "2", "a"}) ==
        "-ERR The `numfields` parameter must match the number of arguments\r\n");
  CHECK(s.run({"hgetex", "h", "EX", "5", "FIELDS"}) ==
        "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n");
  CHECK(s.run({"hgetex", "h", "PX", "-1", "FIELDS", "1", "a"}) == "-ERR invalid expire time, must be >= 0\r\n");
  CHECK(s.run({"hgetex", "h", "EX", "70368744177", "FIELDS", "1", "a"}) ==
        "-ERR invalid expire time in 'hgetex' command\r\n");
  CHECK(s.run({"hpttl", "h", "FIELDS", "1", "a"}) == "*1\r\n:-1\r\n");
}

TEST_CASE("HGETDEL: values of the fields, which are deleted") {
  HashServer s;
  REQUIRE(s.run({"hset", "h", "a", "1", "b", "2"}) == ":2\r\n");
  s.log.take();
  CHECK(s.run({"hgetdel", "h", "FIELDS", "2", "a", "x"}) == "*2\r\n$1\r\n1\r\n$-1\r\n");
  CHECK(s.log.take() == Events{"hdel h"});
  CHECK(s.run({"hgetdel", "h", "FIELDS", "1", "x"}) == "*1\r\n$-1\r\n");
  CHECK(s.log.take().empty());
  CHECK(s.run({"hgetdel", "h", "FIELDS", "2", "b", "b"}) == "*2\r\n$1\r\n2\r\n$-1\r\n");
  CHECK(s.log.take() == Events{"hdel h", "del h"});
  CHECK(s.run({"exists", "h"}) == ":0\r\n");
  CHECK(s.run({"hgetdel", "h", "FIELDS", "1", "a"}) == "*1\r\n$-1\r\n");
  CHECK(s.run({"hgetdel", "h", "FIELD", "1", "a"}) ==
        "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n");
  CHECK(s.run({"hgetdel", "h", "FIELDS", "-1", "a"}) == "-ERR Number of fields must be a positive integer\r\n");
}
}  // namespace lawnkv::test
