// A script past busy-reply-threshold on a real server: the loop goes on
// reading and answering the other clients (-BUSY, the allow-busy commands,
// a client that connects meanwhile), SCRIPT KILL and FUNCTION KILL stop a
// script that has not written, -UNKILLABLE one that has, SHUTDOWN NOSAVE
// ends the process without saving; a key's deadline passing meanwhile
// does not remove it under the script. The replies are compared with
// redis-server 7.0.15's, byte for byte.
//
// No sleeps: a client knows the script is busy when its PING gets -BUSY
// (each PING waits for the server to read it, which it does once busy).

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::RawClient;
using test::ServerProcess;
using test::TempDir;
using SteadyClock = std::chrono::steady_clock;

const std::string kBusyEval =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
const std::string kBusyFunction =
    "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n";
const std::string kUnkillable =
    "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the "
    "script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n";
const std::string kNotBusy = "-NOTBUSY No scripts in execution right now.\r\n";

// PINGs until the reply is `busy` (a PING answered before the script
// started gets PONG). Fails the test after 10 s.
void wait_busy(RawClient& c, const std::string& busy) {
  const auto deadline = SteadyClock::now() + 10s;
  for (;;) {
    const std::string r = c.call({"PING"});
    if (r == busy) return;
    REQUIRE(r == "+PONG\r\n");
    REQUIRE(SteadyClock::now() < deadline);
  }
}

// An EVAL that loops until SCRIPT KILL, with other clients around it. Every
// reply, in order.
std::vector<std::string> killed_eval(uint16_t port) {
  std::vector<std::string> out;
  RawClient admin(port);
  REQUIRE(admin.call({"CONFIG", "SET", "busy-reply-threshold", "10"}) == "+OK\r\n");
  RawClient caller(port);
  // One write: a reply due before the script, the script, one after.
  caller.send(encode_command({"SET", "a", "1"}) + encode_command({"EVAL", "while true do end", "0"}) +
              encode_command({"GET", "a"}));
  wait_busy(admin, kBusyEval);
  // Connected while busy; a pipeline of refused and allow-busy commands.
  RawClient late(port);
  late.send(encode_command({"GET", "a"}) + encode_command({"MULTI"}) + encode_command({"SET", "a", "2"}) +
            encode_command({"EXEC"}) + encode_command({"WATCH", "a"}) + encode_command({"UNWATCH"}) +
            encode_command({"FUNCTION", "KILL"}) + encode_command({"FUNCTION", "STATS"}) +
            encode_command({"SHUTDOWN"}) + encode_command({"NOSUCH"}) + encode_command({"GET"}));
  for (int i = 0; i < 11; ++i) out.push_back(late.read_reply());
  // Half a command now, the rest once the script is over.
  late.send("*3\r\n$3\r\nSET\r\n$1\r\nb");
  out.push_back(admin.call({"SCRIPT", "KILL"}));
  for (int i = 0; i < 3; ++i) out.push_back(caller.read_reply());
  late.send("\r\n$1\r\n2\r\n");
  out.push_back(late.read_reply());
  out.push_back(admin.call({"SCRIPT", "KILL"}));
  out.push_back(admin.call({"FUNCTION", "KILL"}));
  out.push_back(admin.call({"MGET", "a", "b"}));
  return out;
}

// A function that loops until FUNCTION KILL (SCRIPT KILL may not).
std::vector<std::string> killed_function(uint16_t port) {
  std::vector<std::string> out;
  RawClient admin(port);
  REQUIRE(admin.call({"CONFIG", "SET", "busy-reply-threshold", "10"}) == "+OK\r\n");
  REQUIRE(admin.call({"FUNCTION", "LOAD",
                      "#!lua name=lib\nredis.register_function('spin', function(keys, args)\n"
                      "  while true do end\nend)"}) == "$3\r\nlib\r\n");
  RawClient caller(port);
  caller.send(encode_command({"FCALL", "spin", "0"}));
  wait_busy(admin, kBusyFunction);
  out.push_back(admin.call({"SCRIPT", "KILL"}));
  out.push_back(admin.call({"FUNCTION", "KILL"}));
  out.push_back(caller.read_reply());
  out.push_back(caller.call({"PING"}));
  return out;
}

}  // namespace

TEST_CASE("busy EVAL: others get -BUSY while the loop serves them; SCRIPT KILL stops it; as redis-server") {
  auto lawnkv = ServerProcess::lawnkv();
  const std::vector<std::string> got = killed_eval(lawnkv.port());
  REQUIRE(got.size() == 19);
  CHECK(got[0] == kBusyEval);
  CHECK(got[1] == "+OK\r\n");  // MULTI
  CHECK(got[2] == kBusyEval);
  CHECK(got[3] == "-EXECABORT Transaction discarded because of: " + kBusyEval.substr(1));
  CHECK(got[6] == kBusyEval);  // FUNCTION KILL names SCRIPT KILL
  CHECK(got[7] == kBusyEval);  // FUNCTION STATS during an EVAL
  CHECK(got[8] == kBusyEval);  // SHUTDOWN without NOSAVE
  CHECK(got[11] == "+OK\r\n");  // SCRIPT KILL
  CHECK(got[12] == "+OK\r\n");  // the caller's SET, then the script, then its GET
  CHECK(got[13] ==
        "-ERR Script killed by user with SCRIPT KILL... script: 694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, "
        "on @user_script:1.\r\n");
  CHECK(got[14] == "$1\r\n1\r\n");
  CHECK(got[15] == "+OK\r\n");  // the command split across the busy time
  CHECK(got[16] == kNotBusy);
  CHECK(got[17] == kNotBusy);
  CHECK(got[18] == "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
  CHECK(itest::serves(lawnkv.port()));

  auto redis = ServerProcess::redis();
  CHECK(killed_eval(redis.port()) == got);
}

TEST_CASE("busy FCALL: FUNCTION KILL stops it, SCRIPT KILL does not; as redis-server") {
  auto lawnkv = ServerProcess::lawnkv();
  const std::vector<std::string> got = killed_function(lawnkv.port());
  const std::vector<std::string> want{
      kBusyFunction, "+OK\r\n",
      "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3.\r\n", "+PONG\r\n"};
  CHECK(got == want);
  auto redis = ServerProcess::redis();
  CHECK(killed_function(redis.port()) == want);
}

TEST_CASE("busy script that wrote: -UNKILLABLE; SHUTDOWN NOSAVE ends the server without saving") {
  TempDir dir;
  auto server = ServerProcess::lawnkv({"--dir", dir.path.string(), "--save", "3600 1"});
  RawClient admin(server.port());
  REQUIRE(admin.call({"CONFIG", "SET", "busy-reply-threshold", "10"}) == "+OK\r\n");
  RawClient caller(server.port());
  caller.send(encode_command({"EVAL", "redis.call('set', KEYS[1], 'v') while true do end", "1", "k"}));
  wait_busy(admin, kBusyEval);
  CHECK(admin.call({"SCRIPT", "KILL"}) == kUnkillable);
  CHECK(admin.call({"FUNCTION", "KILL"}) == kUnkillable);
  CHECK(admin.call({"SHUTDOWN"}) == kBusyEval);
  CHECK(admin.call({"SHUTDOWN", "NOSAVE", "ABORT"}) == "-ERR syntax error\r\n");
  admin.send(encode_command({"SHUTDOWN", "NOSAVE"}));
  CHECK(admin.wait_closed());
  const auto status = server.wait_exit(10s);
  REQUIRE(status.has_value());
  CHECK(WIFEXITED(*status));
  CHECK(WEXITSTATUS(*status) == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path / "dump.rdb"));
}

TEST_CASE("busy script: a deadline that passes meanwhile removes no key under it") {
  auto server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  REQUIRE(admin.call({"CONFIG", "SET", "busy-reply-threshold", "10"}) == "+OK\r\n");
  RawClient caller(server.port());
  // One write: the key's 300 ms start together with the script, which
  // returns as soon as it sees the key gone.
  const auto sent = SteadyClock::now();
  caller.send(encode_command({"SET", "k", "v", "PX", "300"}) +
              encode_command({"EVAL", "while redis.call('exists', KEYS[1]) == 1 do end return 'gone'", "1", "k"}));
  wait_busy(admin, kBusyEval);
  // Busy well past the deadline (each PING answered by the busy loop).
  while (SteadyClock::now() - sent < 600ms) REQUIRE(admin.call({"PING"}) == kBusyEval);
  CHECK(admin.call({"SCRIPT", "KILL"}) == "+OK\r\n");
  CHECK(caller.read_reply() == "+OK\r\n");
  CHECK(caller.read_reply().rfind("-ERR Script killed by user with SCRIPT KILL...", 0) == 0);
  CHECK(caller.call({"EXISTS", "k"}) == ":0\r\n");
}

}  // namespace lawnkv::itest
