// A script past busy-reply-threshold (scripting/runtime.hpp): its hook
// calls the server's loop (engine/busy_loop.hpp), here a fake one that runs
// another client's commands through dispatch, as a connection would. What
// they get (-BUSY but for the allow-busy commands), SCRIPT KILL and
// FUNCTION KILL, -UNKILLABLE once the script wrote, NOTBUSY outside a script.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "core/sha1.hpp"
#include "scripting/runtime.hpp"

namespace lawnkv::test {
namespace {

constexpr char kBusyEval[] =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
constexpr char kBusyFunction[] =
    "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n";
constexpr char kUnkillable[] =
    "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the "
    "script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n";
constexpr char kNotBusy[] = "-NOTBUSY No scripts in execution right now.\r\n";

// The server's loop as the busy script sees it: each call runs the next
// command of `steps` as `other` and keeps its reply; once they are done it
// counts the calls.
struct ScriptedLoop final : BusyLoop {
  ScriptedLoop(BlockingServer& server, std::vector<std::vector<std::string>> commands)
      : s(server), other(server.client()), steps(std::move(commands)) {
    s.state.busy_loop = this;
  }
  ~ScriptedLoop() override { s.state.busy_loop = nullptr; }
  void serve_while_busy() override {
    ++calls;
    if (next < steps.size()) replies.push_back(s.run_as(other, steps[next++]));
  }

  BlockingServer& s;
  FakeSession& other;
  std::vector<std::vector<std::string>> steps;
  std::vector<std::string> replies;
  size_t next = 0;
  size_t calls = 0;
};

}  // namespace

TEST_CASE("busy script: others get -BUSY but for allow-busy commands; SCRIPT KILL stops it") {
  BlockingServer s;
  s.state.config.mutable_values().busy_reply_threshold = 5;
  s.run({"set", "k", "v"});
  ScriptedLoop loop(s, {{"ping"},
                        {"get", "k"},
                        {"nosuch"},                  // unknown and arity errors come first
                        {"get"},
                        {"multi"},                   // allow-busy: MULTI, DISCARD, WATCH ...
                        {"get", "k"},                // ... a queued command is refused,
                        {"exec"},                    // which dooms the transaction
                        {"watch", "k"},
                        {"unwatch"},
                        {"function", "kill"},        // not an eval's
                        {"function", "stats"},
                        {"shutdown"},                // only NOSAVE while busy
                        {"script", "kill"}});
  const std::string body = "while true do end";
  const std::string r = s.run({"eval", body, "0"});
  CHECK(r == "-ERR Script killed by user with SCRIPT KILL... script: " + sha1_hex(body) + ", on @user_script:1.\r\n");
  REQUIRE(loop.replies.size() == 13);
  CHECK(loop.replies[0] == kBusyEval);
  CHECK(loop.replies[1] == kBusyEval);
  CHECK(loop.replies[2] == "-ERR unknown command 'nosuch', with args beginning with: \r\n");
  CHECK(loop.replies[3] == "-ERR wrong number of arguments for 'get' command\r\n");
  CHECK(loop.replies[4] == "+OK\r\n");
  CHECK(loop.replies[5] == kBusyEval);
  CHECK(loop.replies[6] == std::string("-EXECABORT Transaction discarded because of: ") + (kBusyEval + 1));
  CHECK(loop.replies[7] == "+OK\r\n");
  CHECK(loop.replies[8] == "+OK\r\n");
  CHECK(loop.replies[9] == kBusyEval);
  CHECK(loop.replies[10] == kBusyEval);
  CHECK(loop.replies[11] == kBusyEval);
  CHECK(loop.replies[12] == "+OK\r\n");
  CHECK_FALSE(s.state.shutdown_requested);
  // Busy no more: everything runs again.
  CHECK(s.state.busy_error.empty());
  CHECK(s.run_as(loop.other, {"get", "k"}) == "$1\r\nv\r\n");
  CHECK(s.run({"script", "kill"}) == kNotBusy);
  CHECK(s.run({"function", "kill"}) == kNotBusy);
}

TEST_CASE("busy script: a pcall cannot catch SCRIPT KILL's error for long") {
  BlockingServer s;
  s.state.config.mutable_values().busy_reply_threshold = 5;
  ScriptedLoop loop(s, {{"script", "kill"}});
  const std::string r = s.run({"eval", "while true do pcall(function() while true do end end) end", "0"});
  CHECK(r.rfind("-ERR Script killed by user with SCRIPT KILL... script: ", 0) == 0);
  CHECK(loop.replies == std::vector<std::string>{"+OK\r\n"});
}

TEST_CASE("busy script: one that wrote cannot be killed and runs to its end") {
  BlockingServer s;
  s.state.config.mutable_values().busy_reply_threshold = 1;
  ScriptedLoop loop(s, {{"script", "kill"}, {"function", "kill"}, {"get", "k"}});
  // Long enough to pass 1 ms by far (tens of millions of VM instructions).
  const std::string r =
      s.run({"eval", "redis.call('set', KEYS[1], 'v') for i = 1, 3e7 do end return 'done'", "1", "k"});
  CHECK(r == "$4\r\ndone\r\n");
  CHECK(loop.replies == std::vector<std::string>{kUnkillable, kUnkillable, kBusyEval});
  CHECK(s.run({"get", "k"}) == "$1\r\nv\r\n");
}

TEST_CASE("busy function: FUNCTION KILL stops it, SCRIPT KILL does not; FUNCTION STATS shows it") {
  BlockingServer s;
  s.state.config.mutable_values().busy_reply_threshold = 5;
  REQUIRE(s.run({"function", "load",
                 "#!lua name=lib\nredis.register_function('spin', function(keys, args)\n  while true do end\nend)"}) ==
          "$3\r\nlib\r\n");
  ScriptedLoop loop(s, {{"ping"}, {"script", "kill"}, {"function", "stats"}, {"function", "kill"}});
  const std::string r = s.run({"fcall", "spin", "1", "key", "arg"});
  CHECK(r == "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3.\r\n");
  REQUIRE(loop.replies.size() == 4);
  CHECK(loop.replies[0] == kBusyFunction);
  CHECK(loop.replies[1] == kBusyFunction);
  // RESP2: the maps as arrays; duration_ms last, whatever it is.
  const std::string stats_head =
      "*4\r\n$14\r\nrunning_script\r\n*6\r\n$4\r\nname\r\n$4\r\nspin\r\n$7\r\ncommand\r\n*5\r\n$5\r\nfcall\r\n"
      "$4\r\nspin\r\n$1\r\n1\r\n$3\r\nkey\r\n$3\r\narg\r\n$11\r\nduration_ms\r\n:";
  CHECK(loop.replies[2].rfind(stats_head, 0) == 0);
  CHECK(loop.replies[2].find("$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n$15\r\nlibraries_count\r\n:1\r\n") !=
        std::string::npos);
  CHECK(loop.replies[3] == "+OK\r\n");
  CHECK(s.run({"function", "stats"}).rfind("*4\r\n$14\r\nrunning_script\r\n$-1\r\n", 0) == 0);
}

TEST_CASE("busy script: SHUTDOWN NOSAVE is accepted while busy (the server's loop then ends the process)") {
  BlockingServer s;
  s.state.config.mutable_values().busy_reply_threshold = 5;
  ScriptedLoop loop(s, {{"shutdown", "nosave"}, {"script", "kill"}});
  s.run({"eval", "while true do end", "0"});
  REQUIRE(loop.replies.size() == 2);
  CHECK(loop.replies[0].empty());  // SHUTDOWN replies nothing: the server stops
  CHECK(s.state.shutdown_requested);
}

TEST_CASE("busy script: a server without a loop stops the script past the threshold; it goes on") {
  CommandServer s;  // no BusyLoop: nothing could ever kill the script
  s.state.config.mutable_values().busy_reply_threshold = 20;
  std::string r = s.run({"eval", "while true do end", "0"});
  CHECK(r.rfind("-ERR Script killed: it ran longer than busy-reply-threshold (lua-time-limit) milliseconds script: ",
                0) == 0);
  // pcall cannot keep it alive: once stopped, every line raises again.
  r = s.run({"eval", "while true do pcall(function() while true do end end) end", "0"});
  CHECK(r.rfind("-ERR Script killed: ", 0) == 0);
  CHECK(s.state.busy_error.empty());
  CHECK(s.run({"eval", "return 1", "0"}) == ":1\r\n");
}

TEST_CASE("busy script: below the threshold, or with it at 0, the loop is never called") {
  BlockingServer s;
  ScriptedLoop loop(s, {});
  s.state.config.mutable_values().busy_reply_threshold = 0;
  CHECK(s.run({"eval", "for i = 1, 1e6 do end return 1", "0"}) == ":1\r\n");
  s.state.config.mutable_values().busy_reply_threshold = 60'000;
  CHECK(s.run({"eval", "for i = 1, 1e6 do end return 1", "0"}) == ":1\r\n");
  CHECK(loop.calls == 0);
}

}  // namespace lawnkv::test
