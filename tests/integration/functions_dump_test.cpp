// FUNCTION DUMP payloads move both ways between lawnkv and redis-server
// 7.0.15: what one dumps the other restores, with the same libraries
// (FUNCTION LIST WITHCODE) and functions that run. The bytes themselves
// may differ where the two LZF compressors choose differently.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using test::ServerProcess;

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
