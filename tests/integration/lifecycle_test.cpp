// Starting and stopping: SHUTDOWN, SIGTERM and SIGINT end the server with
// exit code 0 (also with clients connected, requests half sent, and
// replies waiting for a client that does not read); a bad
// configuration stops start-up with exit code 1 and a message naming the
// line, as redis-server does (both binaries are run on the same input).

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/paths.hpp"
#include "../support/process.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::describe_status;
using test::RawClient;
using test::ServerProcess;

bool exited_zero(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
bool exited_one(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 1; }

// lawnkv-server beside the test binary, or LAWNKV_SERVER as for ServerProcess::lawnkv.
std::string lawnkv_binary() {
  const char* env = std::getenv("LAWNKV_SERVER");
  return env && *env ? env : (test::build_dir() / "lawnkv-server").string();
}

// Writes `text` to build/test-logs/<name> and returns its path.
std::filesystem::path write_config(const std::string& name, const std::string& text) {
  std::filesystem::path path = test::log_dir() / name;
  std::ofstream(path) << text;
  return path;
}

TEST_CASE("SHUTDOWN stops the server with exit code 0") {
  auto server = ServerProcess::lawnkv();
  Client idle(server.port());
  RawClient half(server.port());
  half.send("*2\r\n$3\r\nGET\r\n$5\r\nab");  // a request cut short
  REQUIRE(idle.call({"SET", "k", "v"}) == status("OK"));

  RawClient c(server.port());
  c.send("SHUTDOWN\r\n");
  // Redis closes the connection without a reply when SHUTDOWN succeeds.
  CHECK(c.wait_closed());
  std::optional<int> status_code = server.wait_exit(10s);
  REQUIRE_MESSAGE(status_code.has_value(), "the server still runs 10 s after SHUTDOWN");
  CHECK_MESSAGE(exited_zero(*status_code), describe_status(*status_code));
  CHECK(half.wait_closed());
}

// Redis 7.0 exits inside SHUTDOWN, before the replies of the requests ahead
// of it in the same read are written: redis-server sends nothing here.
// lawnkv may send those replies, but nothing for requests after SHUTDOWN.
TEST_CASE("SHUTDOWN NOSAVE inside a pipeline: nothing after it runs") {
  const std::string pipeline = "PING\r\nSET k v\r\nSHUTDOWN NOSAVE\r\nPING\r\n";
  for (bool is_redis : {true, false}) {
    auto server = is_redis ? ServerProcess::redis() : ServerProcess::lawnkv();
    INFO(server.label());
    Outcome got = probe(server.port(), pipeline, 3, true);
    CHECK_MESSAGE(got.closed, describe(got));
    CHECK_MESSAGE(std::string("+PONG\r\n+OK\r\n").starts_with(got.replies), describe(got));
    if (is_redis) CHECK_MESSAGE(got.replies.empty(), describe(got));
    std::optional<int> status_code = server.wait_exit(10s);
    REQUIRE(status_code.has_value());
    CHECK_MESSAGE(exited_zero(*status_code), describe_status(*status_code));
  }
}

TEST_CASE("SIGTERM and SIGINT stop the server cleanly with exit code 0") {
  for (int sig : {SIGTERM, SIGINT}) {
    INFO("signal ", sig);
    auto server = ServerProcess::lawnkv();
    std::vector<Client> clients;
    for (int i = 0; i < 20; ++i) clients.emplace_back(server.port());
    for (auto& c : clients) REQUIRE(c.call({"SET", "k", "v", "PX", "100000"}) == status("OK"));
    RawClient pending(server.port());
    pending.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nonly part");
    // A client that does not read, with megabytes of replies waiting.
    REQUIRE(clients[0].call(Argv{"SET", "big", std::string(1024 * 1024, 'b')}) == status("OK"));
    RawClient stalled(server.port());
    std::string gets;
    for (int i = 0; i < 100; ++i) gets += test::encode_command({"GET", "big"});
    stalled.send(gets);
    REQUIRE(clients[0].call({"PING"}) == status("PONG"));

    server.signal(sig);
    std::optional<int> status_code = server.wait_exit(10s);
    REQUIRE_MESSAGE(status_code.has_value(), "the server still runs 10 s after the signal");
    CHECK_MESSAGE(exited_zero(*status_code), describe_status(*status_code));
    CHECK(pending.wait_closed());
  }
}

// redis-server ignores SIGHUP and SIGPIPE (initServer). A signal is
// delivered before the process returns to user space, so a round trip after
// kill() sees its effect.
TEST_CASE("SIGHUP and SIGPIPE do not stop the server, as redis-server") {
  for (bool is_redis : {true, false}) {
    for (int sig : {SIGHUP, SIGPIPE}) {
      auto server = is_redis ? ServerProcess::redis() : ServerProcess::lawnkv();
      INFO(server.label(), ", signal ", sig);
      Client c(server.port());
      server.signal(sig);
      bool answered = false;
      try {
        answered = c.call({"PING"}) == status("PONG");
      } catch (const std::exception&) {
      }
      std::optional<int> exit = answered ? std::nullopt : server.wait_exit(2000ms);
      CHECK_MESSAGE(answered, "no PONG after the signal",
                    exit ? "; the server exited: " + describe_status(*exit) : std::string());
    }
  }
}

// Runs a server binary on a bad configuration: it must exit 1 with a
// message that names the line. Returns its output.
std::string run_bad_config(const std::vector<std::string>& argv) {
  test::ProcessResult r = test::run_process(argv, 10s);
  INFO("output: ", test::escape_bytes(r.output, 1000));
  CHECK_MESSAGE(exited_one(r.status), argv[0], " ended with ", describe_status(r.status));
  return r.output;
}

TEST_CASE("a bad directive in a config file stops start-up with exit code 1, naming the line") {
  struct BadConfig {
    std::string name;
    std::string text;
    std::string line;  // "at line N"
    std::string shown; // part of the bad line the message quotes
  };
  const std::vector<BadConfig> configs = {
      {"unknown directive", "# a comment\nport 0\nno-such-directive yes\nmaxclients 10\n", "at line 3",
       "no-such-directive"},
      {"malformed number", "port 0\n\n\nmaxclients lots\n", "at line 4", "maxclients"},
      {"bad enum value", "port 0\nloglevel loudest\n", "at line 2", "loudest"},
      {"wrong number of arguments", "port 0 1\n", "at line 1", "port"},
      {"unbalanced quotes", "port 0\nrequirepass \"abc\n", "at line 2", ""},
  };
  for (const BadConfig& bad : configs) {
    INFO("config: ", bad.name, ": ", test::escape_bytes(bad.text));
    std::filesystem::path path = write_config("bad-" + std::to_string(&bad - configs.data()) + ".conf", bad.text);
    const std::string out = run_bad_config({lawnkv_binary(), path.string()});
    CHECK_MESSAGE(out.find(bad.line) != std::string::npos, "lawnkv said: ", out);
    CHECK_MESSAGE(out.find(bad.shown) != std::string::npos, "lawnkv said: ", out);
    // The reference refuses the same file the same way.
    const std::string redis_out = run_bad_config({"redis-server", path.string()});
    CHECK_MESSAGE(redis_out.find(bad.line) != std::string::npos, "redis-server said: ", redis_out);
  }
}

TEST_CASE("a bad directive on the command line stops start-up with exit code 1") {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--port", "0", "--no-such-directive", "yes"},
           {"--port", "0", "--maxclients", "lots"},
           {"--port", "0", "--databases", "0"},
       }) {
    std::vector<std::string> argv{lawnkv_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    INFO("arguments: ", args[2], " ", args[3]);
    const std::string out = run_bad_config(argv);
    CHECK_MESSAGE(out.find(args[2].substr(2)) != std::string::npos, "lawnkv said: ", out);
  }
}

TEST_CASE("a good config file is read, and the command line overrides it") {
  std::filesystem::path path =
      write_config("good.conf", "# lawnkv test\nmaxclients 77\ndatabases 4\nrequirepass \"s e\\x63ret\"\n");
  auto server = ServerProcess::lawnkv({path.string(), "--databases", "5"});
  Client c(server.port());
  CHECK(c.wire({"PING"}) == "-NOAUTH Authentication required.\r\n");
  CHECK(c.call({"AUTH", "s ecret"}) == status("OK"));
  CHECK(c.call({"CONFIG", "GET", "maxclients"}).elements == std::vector<Reply>{bulk("maxclients"), bulk("77")});
  CHECK(c.call({"CONFIG", "GET", "databases"}).elements == std::vector<Reply>{bulk("databases"), bulk("5")});
  CHECK(c.call({"SELECT", "4"}) == status("OK"));
  CHECK(c.call({"SELECT", "5"}) == error("ERR DB index is out of range"));
}

}  // namespace
}  // namespace lawnkv::itest
