// Scripts and the append-only file: what a script did (its writes, as
// their effects), not the script, is appended, a script of several writes
// inside MULTI/EXEC; after a crash the replay rebuilds the same dataset
// (DEBUG DIGEST), with no script cached, and FUNCTION libraries loaded
// again from their recorded FUNCTION LOAD.

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;
using test::TempDir;
namespace fs = std::filesystem;

std::string aof_text(const TempDir& dir) {
  std::string all;
  for (const auto& e : fs::directory_iterator(dir.path / "appendonlydir")) {
    if (e.path().string().find(".incr.aof") == std::string::npos) continue;
    std::ifstream in(e.path(), std::ios::binary);
    all += std::string(std::istreambuf_iterator<char>(in), {});
  }
  return all;
}

}  // namespace

TEST_CASE("AOF: a script's effects are appended and replay to the same dataset") {
  TempDir dir;
  const std::vector<std::string> args{"--dir", dir.path.string(), "--appendonly", "yes"};
  std::string digest;
  {
    ServerProcess a = ServerProcess::lawnkv(args);
    Client c(a.port());
    // Several writes, a relative TTL, a random pop, a float: their records
    // are what was done (PXAT, SREM, SET of the value), not the script.
    c.call({"SADD", "s", "a", "b", "c", "d"});
    const std::string script =
        "redis.call('set', KEYS[1], ARGV[1], 'ex', 1000) "
        "redis.call('incrbyfloat', KEYS[2], '1.5') "
        "local m = redis.call('spop', 's') "
        "redis.call('rpush', 'popped', m) "
        "return m";
    REQUIRE(c.call({"EVAL", script, "2", "k", "f", "v"}).type == '$');
    const Reply sha = c.call({"SCRIPT", "LOAD", "return redis.call('incr', KEYS[1])"});
    REQUIRE(c.call({"EVALSHA", sha.text, "1", "counter"}).text == "1");
    REQUIRE(c.call({"EVALSHA", sha.text, "1", "counter"}).text == "2");
    // A function library (FUNCTION LOAD is recorded as itself) and a call.
    REQUIRE(c.call({"FUNCTION", "LOAD",
                    "#!lua name=lib\nredis.register_function('bump', function(keys) "
                    "return redis.call('incrby', keys[1], 10) end)"})
                .text == "lib");
    REQUIRE(c.call({"FCALL", "bump", "1", "counter"}).text == "12");
    // In another db, and one that fails after its first write.
    REQUIRE(c.call({"SELECT", "2"}).type == '+');
    c.call({"EVAL", "redis.call('set', 'in2', 'x') error('stop')", "0"});
    digest = c.call({"DEBUG", "DIGEST"}).text;
    const std::string aof = aof_text(dir);
    CHECK(aof.find("EVAL") == std::string::npos);
    CHECK(aof.find("evalsha") == std::string::npos);
    CHECK(aof.find("*1\r\n$5\r\nMULTI\r\n") != std::string::npos);
    CHECK(aof.find("$4\r\nincr\r\n$7\r\ncounter\r\n") != std::string::npos);
    a.signal(SIGKILL);
    REQUIRE(a.wait_exit(10s).has_value());
  }
  ServerProcess b = ServerProcess::lawnkv(args);
  Client c(b.port());
  CHECK(c.call({"DEBUG", "DIGEST"}).text == digest);
  CHECK(c.call({"GET", "counter"}).text == "12");
  // The library came back with the file; its function runs.
  CHECK(c.call({"FCALL", "bump", "1", "counter"}).text == "22");
  CHECK(c.call({"SCRIPT", "EXISTS", "2bab3b661081db58bd2341920e0ba7cf5dc77b25"}).elements.at(0).text == "0");
}

}  // namespace lawnkv::itest
