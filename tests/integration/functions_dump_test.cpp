// FUNCTION libraries as data: FUNCTION DUMP payloads and dump.rdb files
// move both ways between lawnkv and redis-server 7.0.15 (what one writes
// the other loads, with the same libraries, FUNCTION LIST WITHCODE, and
// functions that run; the bytes may differ where the two LZF compressors
// choose differently), a restart from dump.rdb or from a rewritten AOF
// keeps them, and DEBUG RELOAD replaces them with the file's.

#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;
using test::TempDir;

// FUNCTION LIST WITHCODE flattened and sorted (libraries and functions
// come in dict order in Redis).
std::vector<std::string> listing(Client& c) {
  std::vector<std::string> out;
  std::function<void(const Reply&)> walk = [&](const Reply& r) {
    if (r.is_aggregate()) {
      for (const Reply& e : r.elements) walk(e);
    } else {
      out.push_back(r.text);
    }
  };
  walk(c.call({"FUNCTION", "LIST", "WITHCODE"}));
  std::sort(out.begin(), out.end());
  return out;
}

void load_libraries(Client& c) {
  REQUIRE(c.call({"FUNCTION", "LOAD",
                  "#!lua name=alpha\n"
                  "redis.register_function('a1', function(keys, args) return 'a1:' .. (keys[1] or '') end)\n"
                  "redis.register_function{function_name='a2', callback=function() return 2 end, "
                  "flags={'no-writes', 'allow-oom'}, description='the second of alpha, which repeats repeats repeats'}"})
              .text == "alpha");
  REQUIRE(c.call({"FUNCTION", "LOAD", "#!lua name=beta\nredis.register_function('b1', function() return 'b' end)"})
              .text == "beta");
}

void check_moves(Client& from, Client& to) {
  load_libraries(from);
  const Reply payload = from.call({"FUNCTION", "DUMP"});
  REQUIRE(payload.type == '$');
  REQUIRE(to.call({"FUNCTION", "FLUSH"}).text == "OK");
  CHECK(to.call({"FUNCTION", "RESTORE", payload.text}).text == "OK");
  CHECK(listing(to) == listing(from));
  CHECK(to.call({"FCALL", "a1", "1", "k"}).text == "a1:k");
  CHECK(to.call({"FCALL_RO", "a2", "0"}).text == "2");
  CHECK(to.call({"FCALL", "b1", "0"}).text == "b");
  // APPEND of the same libraries collides; REPLACE and FLUSH do not.
  CHECK(to.call({"FUNCTION", "RESTORE", payload.text}).text.find("already exists") != std::string::npos);
  CHECK(to.call({"FUNCTION", "RESTORE", payload.text, "REPLACE"}).text == "OK");
  CHECK(to.call({"FUNCTION", "RESTORE", payload.text, "FLUSH"}).text == "OK");
  CHECK(listing(to) == listing(from));
}

}  // namespace

TEST_CASE("FUNCTION DUMP: lawnkv's payload restores in redis-server, and redis-server's in lawnkv") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  Client ours(lawnkv.port()), theirs(redis.port());
  SUBCASE("lawnkv -> redis-server") { check_moves(ours, theirs); }
  SUBCASE("redis-server -> lawnkv") { check_moves(theirs, ours); }
}

}  // namespace lawnkv::itest

namespace lawnkv::itest {

TEST_CASE("dump.rdb keeps FUNCTION libraries, and carries them between lawnkv and redis-server") {
  TempDir ours_dir, theirs_dir;
  std::vector<std::string> want;
  {
    ServerProcess a = ServerProcess::lawnkv({"--dir", ours_dir.path.string()});
    Client c(a.port());
    load_libraries(c);
    want = listing(c);
    REQUIRE(c.call({"SAVE"}).text == "OK");
    // DEBUG RELOAD: the file's libraries replace those loaded since.
    REQUIRE(c.call({"FUNCTION", "LOAD", "#!lua name=later\nredis.register_function('l', function() end)"})
                .text == "later");
    REQUIRE(c.call({"DEBUG", "RELOAD", "NOSAVE"}).text == "OK");
    CHECK(listing(c) == want);
  }
  {
    ServerProcess b = ServerProcess::lawnkv({"--dir", ours_dir.path.string()});
    Client c(b.port());
    CHECK(listing(c) == want);
    CHECK(c.call({"FCALL", "a1", "1", "x"}).text == "a1:x");
  }
  // lawnkv's file in redis-server, and redis-server's in lawnkv.
  {
    ServerProcess r = ServerProcess::redis({"--dir", ours_dir.path.string()});
    Client c(r.port());
    CHECK(listing(c) == want);
    REQUIRE(c.call({"FUNCTION", "DELETE", "beta"}).text == "OK");
    want = listing(c);
    REQUIRE(c.call({"SAVE"}).text == "OK");
  }
  ServerProcess d = ServerProcess::lawnkv({"--dir", ours_dir.path.string()});
  Client c(d.port());
  CHECK(listing(c) == want);
  CHECK(c.call({"FCALL", "b1", "0"}).text == "ERR Function not found");
}

TEST_CASE("AOF: a rewritten base keeps FUNCTION libraries") {
  TempDir dir;
  std::vector<std::string> want;
  const std::vector<std::string> args{"--dir", dir.path.string(), "--appendonly", "yes"};
  {
    ServerProcess a = ServerProcess::lawnkv(args);
    Client c(a.port());
    load_libraries(c);
    want = listing(c);
    REQUIRE(c.call({"BGREWRITEAOF"}).type == '+');
    REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 30s, [&] {
      return info_int(c.call({"INFO", "persistence"}).text, "aof_rewrite_in_progress") == 0 &&
             info_int(c.call({"INFO", "persistence"}).text, "aof_rewrites") == 1;
    }));
    a.signal(SIGKILL);
    REQUIRE(a.wait_exit(10s).has_value());
  }
  ServerProcess b = ServerProcess::lawnkv(args);
  Client c(b.port());
  CHECK(listing(c) == want);
}

}  // namespace lawnkv::itest
