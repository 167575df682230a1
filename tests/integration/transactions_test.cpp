// Transactions across clients and time: WATCH aborts EXEC when another
// client touches the key, or when the key expires before EXEC (found lazily
// at EXEC or reaped by the active cycle), as in Redis; MULTI/EXEC pipelined
// in one write.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::RawClient;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

long long time_ms(Client& c) {
  Reply t = c.call({"TIME"});
  REQUIRE(t.elements.size() == 2);
  return std::stoll(t.elements[0].text) * 1000 + std::stoll(t.elements[1].text) / 1000;
}

// WATCH key, then `between` runs, then MULTI / SET side 1 / EXEC. Returns
// EXEC's wire bytes: "*-1\r\n" when the transaction was aborted.
template <class Between>
std::string watch_then_exec(RawClient& c, const std::string& key, Between between) {
  REQUIRE(c.call({"WATCH", key}) == "+OK\r\n");
  between();
  REQUIRE(c.call({"MULTI"}) == "+OK\r\n");
  REQUIRE(c.call({"SET", "side", "1"}) == "+QUEUED\r\n");
  return c.call({"EXEC"});
}

TEST_CASE("a watched key that expires before EXEC aborts the transaction") {
  auto server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient c(server.port());
  // After an abort nothing ran, and the client is out of the transaction
  // and watches nothing.
  auto check_aborted = [&](const std::string& exec) {
    CHECK(exec == "*-1\r\n");
    CHECK(admin.call({"GET", "side"}) == nil());
    CHECK(c.call({"SET", "side", "2"}) == "+OK\r\n");
    CHECK(c.call({"EXEC"}) == "-ERR EXEC without MULTI\r\n");
  };

  SUBCASE("found expired at EXEC (active expiry off)") {
    REQUIRE(admin.call({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}) == status("OK"));
    REQUIRE(admin.call(Argv{"SET", "w", "v", "PXAT", std::to_string(time_ms(admin) + 100'000)}) == status("OK"));
    std::string exec = watch_then_exec(c, "w", [&] {
      REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "100001"}) == status("OK"));
      CHECK(admin.call({"DBSIZE"}) == integer(1));  // due but not reaped: nothing touched it
    });
    check_aborted(exec);
  }
  SUBCASE("reaped by the active cycle before EXEC") {
    REQUIRE(admin.call(Argv{"SET", "w", "v", "PXAT", std::to_string(time_ms(admin) + 100'000)}) == status("OK"));
    std::string exec = watch_then_exec(c, "w", [&] {
      REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "100001"}) == status("OK"));
      REQUIRE(test::poll_until(SteadyClock::now() + 5s, [&] { return admin.integer({"DBSIZE"}) == 0; }));
    });
    check_aborted(exec);
  }
  SUBCASE("a TTL that has not passed does not abort") {
    REQUIRE(admin.call({"SET", "w", "v", "PX", "100000"}) == status("OK"));
    std::string exec = watch_then_exec(c, "w", [&] {
      REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "99000"}) == status("OK"));
    });
    CHECK(exec == "*1\r\n+OK\r\n");
    CHECK(admin.call({"GET", "side"}) == bulk("1"));
  }
}

// WATCH on keys that are already expired when watched (stored with a past
// PXAT, active expiry off), side by side with redis-server: each step runs
// on client A or B of both servers, and the replies must be the same bytes.
TEST_CASE("WATCH on a key already expired when watched, as redis-server") {
  struct Step {
    char client;  // 'A' or 'B'
    Argv argv;
  };
  const Argv kMulti{"MULTI"}, kSide{"SET", "side", "1"}, kExec{"EXEC"};
  const std::vector<std::pair<std::string, std::vector<Step>>> scripts = {
      {"nothing touches it",
       {{'A', {"SET", "k", "v", "PXAT", "1"}}, {'A', {"WATCH", "k"}}, {'A', kMulti}, {'A', kSide}, {'A', kExec}}},
      {"another client reads it (lazy expiry deletes it)",
       {{'A', {"SET", "k", "v", "PXAT", "1"}},
        {'A', {"WATCH", "k"}},
        {'B', {"GET", "k"}},
        {'A', kMulti},
        {'A', kSide},
        {'A', kExec}}},
      {"another client overwrites it",
       {{'A', {"SET", "k", "v", "PXAT", "1"}},
        {'A', {"WATCH", "k"}},
        {'B', {"SET", "k", "v2"}},
        {'A', kMulti},
        {'A', kSide},
        {'A', kExec}}},
      {"another client stores an expired key where none was",
       {{'A', {"DEL", "k"}}, {'A', {"WATCH", "k"}}, {'B', {"SET", "k", "v", "PXAT", "1"}}, {'A', kMulti},
        {'A', kSide}, {'A', kExec}}},
      {"the watching client reads it inside the transaction",
       {{'A', {"SET", "k", "v", "PXAT", "1"}}, {'A', {"WATCH", "k"}}, {'A', kMulti}, {'A', {"GET", "k"}},
        {'A', kExec}}},
  };
  for (const auto& script : scripts) {
    // Not a structured binding: clang 14 cannot capture one (INFO does).
    const auto& name = script.first;
    const auto& steps = script.second;
    INFO("script: ", name);
    auto lawnkv = ServerProcess::lawnkv();
    auto redis = ServerProcess::redis();
    RawClient la(lawnkv.port()), lb(lawnkv.port()), ra(redis.port()), rb(redis.port());
    REQUIRE(la.call({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}) == "+OK\r\n");
    REQUIRE(ra.call({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}) == "+OK\r\n");
    for (const Step& step : steps) {
      std::string cmd;
      for (const auto& a : step.argv) cmd += a + " ";
      INFO("step: ", step.client, ": ", cmd);
      const std::string from_lawnkv = (step.client == 'A' ? la : lb).call(step.argv);
      const std::string from_redis = (step.client == 'A' ? ra : rb).call(step.argv);
      CHECK(from_lawnkv == from_redis);
    }
  }
}

TEST_CASE("WATCH aborts EXEC when another client writes the key") {
  auto server = ServerProcess::lawnkv();
  Client other(server.port());
  RawClient c(server.port());
  REQUIRE(other.call({"SET", "w", "1"}) == status("OK"));

  CHECK(watch_then_exec(c, "w", [&] { other.call({"INCR", "w"}); }) == "*-1\r\n");
  CHECK(watch_then_exec(c, "w", [&] { other.call({"DEL", "w"}); }) == "*-1\r\n");
  CHECK(watch_then_exec(c, "w", [&] { other.call({"GET", "w"}); }) == "*1\r\n+OK\r\n");  // a read is no write
  CHECK(watch_then_exec(c, "w", [&] { other.call({"SET", "unrelated", "x"}); }) == "*1\r\n+OK\r\n");
  // UNWATCH forgets the watch.
  REQUIRE(c.call({"WATCH", "w"}) == "+OK\r\n");
  REQUIRE(c.call({"UNWATCH"}) == "+OK\r\n");
  other.call({"SET", "w", "2"});
  REQUIRE(c.call({"MULTI"}) == "+OK\r\n");
  REQUIRE(c.call({"GET", "w"}) == "+QUEUED\r\n");
  CHECK(c.call({"EXEC"}) == "*1\r\n$1\r\n2\r\n");
}

TEST_CASE("a transaction pipelined in one write, with other clients' requests interleaved") {
  auto server = ServerProcess::lawnkv();
  RawClient a(server.port());
  Client b(server.port());
  a.send(encode_command({"MULTI"}) + encode_command({"INCR", "n"}) + encode_command({"INCR", "n"}) +
         encode_command({"GET", "n"}));
  for (int i = 0; i < 4; ++i) a.read_reply();
  // Another client's write lands before EXEC: the queued commands run after it.
  CHECK(b.call({"SET", "n", "10"}) == status("OK"));
  a.send(encode_command({"EXEC"}) + encode_command({"GET", "n"}));
  CHECK(a.read_reply() == "*3\r\n:11\r\n:12\r\n$2\r\n12\r\n");
  CHECK(a.read_reply() == "$2\r\n12\r\n");
  // An error while queueing aborts EXEC.
  a.send(encode_command({"MULTI"}) + encode_command({"INCR"}) + encode_command({"EXEC"}));
  CHECK(a.read_reply() == "+OK\r\n");
  CHECK(a.read_reply() == "-ERR wrong number of arguments for 'incr' command\r\n");
  CHECK(a.read_reply() == "-EXECABORT Transaction discarded because of previous errors.\r\n");
}

}  // namespace
}  // namespace lawnkv::itest
