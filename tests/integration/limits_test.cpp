// Bad input and the protocol's limits, side by side with redis-server 7.0:
// each case is sent on a fresh connection to lawnkv and to Redis started
// with the same limits, and both must send the same reply bytes and close
// (or keep) the connection alike. The expected bytes are also written in the
// case, so a case that no longer matches Redis shows which side moved. After
// every case lawnkv must still serve another client.

#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/net.hpp"
#include "../support/poll_until.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using test::encode_command;
using test::escape_bytes;
using test::ServerProcess;

struct Case {
  std::string name;
  std::string bytes;     // sent in one write on a fresh connection
  size_t replies;        // replies to read
  std::string expected;  // those replies, concatenated
  bool closes;           // whether the server then closes the connection
};

const std::string kInvalidMultibulk = "-ERR Protocol error: invalid multibulk length\r\n";
const std::string kInvalidBulk = "-ERR Protocol error: invalid bulk length\r\n";

// Runs `cases` against lawnkv and redis-server, both started with `args`
// (`password` is the requirepass among them, if any).
void side_by_side(const std::vector<std::string>& args, const std::vector<Case>& cases,
                  const std::string& password = "") {
  auto lawnkv = ServerProcess::lawnkv(args);
  auto redis = ServerProcess::redis(args);
  for (const Case& c : cases) {
    INFO("case: ", c.name, "; input ", escape_bytes(c.bytes, 120));
    const Outcome want{c.expected, c.closes};
    const Outcome from_redis = probe(redis.port(), c.bytes, c.replies, c.closes);
    const Outcome from_lawnkv = probe(lawnkv.port(), c.bytes, c.replies, c.closes);
    CHECK_MESSAGE(from_redis == want, "redis-server (the reference) disagrees with the case: got ",
                  describe(from_redis), ", case expects ", describe(want));
    CHECK_MESSAGE(from_lawnkv == from_redis, "lawnkv: ", describe(from_lawnkv),
                  "; redis-server: ", describe(from_redis));
    REQUIRE_MESSAGE(serves(lawnkv.port(), password), "lawnkv stopped serving after this case");
  }
  CHECK(lawnkv.running());
}

TEST_CASE("protocol errors: Redis's replies and closes") {
  const std::string one_mb(1024 * 1024, 'm');
  side_by_side(
      {"--proto-max-bulk-len", "1mb"},
      {
          {"multibulk count not a number", "*abc\r\n", 1, kInvalidMultibulk, true},
          {"multibulk count with a sign", "*+1\r\n", 1, kInvalidMultibulk, true},
          {"multibulk count over INT_MAX", "*2147483648\r\n", 1, kInvalidMultibulk, true},
          {"multibulk count over 1024*1024 is accepted in 7.0 (then a bad bulk header)",
           "*1048577\r\n$4\r\nPING\r\nx\r\n", 1, "-ERR Protocol error: expected '$', got 'x'\r\n", true},
          {"bulk length not a number", "*1\r\n$abc\r\n", 1, kInvalidBulk, true},
          {"bulk length negative", "*1\r\n$-1\r\n", 1, kInvalidBulk, true},
          {"bulk length with leading zero", "*1\r\n$04\r\nPING\r\n", 1, kInvalidBulk, true},
          {"bulk over proto-max-bulk-len", "*2\r\n$3\r\nGET\r\n$1048577\r\n", 1, kInvalidBulk, true},
          {"bulk of exactly proto-max-bulk-len",
           "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n" + one_mb + "\r\n", 1, "+OK\r\n", false},
          {"bulk header without '$'", "*1\r\nx\r\n", 1, "-ERR Protocol error: expected '$', got 'x'\r\n", true},
          {"bulk header that is an empty line", "*2\r\n$3\r\nGET\r\n\r\n", 1,
           "-ERR Protocol error: expected '$', got ' '\r\n", true},
          {"inline request over 64 KB without newline", std::string(64 * 1024 + 1, 'A'), 1,
           "-ERR Protocol error: too big inline request\r\n", true},
          // Redis reads 16 KB at a time and gives up once 64 KB have come
          // without a newline, even if the newline is on its way.
          {"inline request of 200 KB with its newline in the same write",
           "ECHO " + std::string(200'000, 'a') + "\r\n", 1, "-ERR Protocol error: too big inline request\r\n",
           true},
          {"inline request of 64 KB with its newline is served",
           "ECHO " + std::string(65'000, 'a') + "\r\n", 1, "$65000\r\n" + std::string(65'000, 'a') + "\r\n",
           false},
          {"multibulk count line over 64 KB", "*" + std::string(64 * 1024 + 1, '1'), 1,
           "-ERR Protocol error: too big mbulk count string\r\n", true},
          {"bulk length line over 64 KB", "*1\r\n$" + std::string(64 * 1024 + 1, '1'), 1,
           "-ERR Protocol error: too big bulk count string\r\n", true},
          {"unbalanced double quote", "SET k \"abc\r\n", 1,
           "-ERR Protocol error: unbalanced quotes in request\r\n", true},
          {"unbalanced single quote", "ECHO 'abc\r\n", 1, "-ERR Protocol error: unbalanced quotes in request\r\n",
           true},
          {"closing quote not followed by a space", "SET k \"a\"b\r\n", 1,
           "-ERR Protocol error: unbalanced quotes in request\r\n", true},
          {"replies before the error are sent, requests after it are not",
           "PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$x\r\nPING\r\n", 3, "+PONG\r\n+PONG\r\n" + kInvalidBulk, true},
          {"empty requests are skipped and the connection stays", "*0\r\n*-1\r\n\r\n \r\nPING\r\n", 1,
           "+PONG\r\n", false},
          {"unknown command with NUL bytes in its name and arguments",
           encode_command({std::string("n\0ul", 4), std::string("a\0b", 3), "c"}), 1,
           "-ERR unknown command 'n', with args beginning with: 'a' 'c' \r\n", false},
          {"unknown subcommand with a NUL byte", encode_command({"CLIENT", std::string("x\0y", 3), "z"}), 1,
           "-ERR unknown subcommand 'x'. Try CLIENT HELP.\r\n", false},
          {"unknown command with CR LF in its name", encode_command({"a\r\nb", "x\ny"}), 1,
           "-ERR unknown command 'a  b', with args beginning with: 'x y' \r\n", false},
          {"wrong arity", encode_command({"GET"}), 1, "-ERR wrong number of arguments for 'get' command\r\n",
           false},
          {"the two bytes after a bulk are skipped unchecked", "*1\r\n$4\r\nPINGxxPING\r\n", 2,
           "+PONG\r\n+PONG\r\n", false},
          {"a negative multibulk count is an empty request", "*-5\r\nPING\r\n", 1, "+PONG\r\n", false},
          {"an empty command name", "*1\r\n$0\r\n\r\n", 1,
           "-ERR unknown command '', with args beginning with: \r\n", false},
          {"a NUL hides an inline newline until the 64 KB limit",
           std::string("ECHO a\0b\r\n", 10) + std::string(64 * 1024, 'x'), 1,
           "-ERR Protocol error: too big inline request\r\n", true},
          {"a NUL hides a multibulk count's CR until the 64 KB limit",
           std::string("*1\0\r\n", 5) + std::string(64 * 1024, 'x'), 1,
           "-ERR Protocol error: too big mbulk count string\r\n", true},
          {"QUIT answers +OK and closes; nothing after it runs", "PING\r\nQUIT\r\nPING\r\n", 2,
           "+PONG\r\n+OK\r\n", true},
      });
}

TEST_CASE("client-query-buffer-limit closes the client without a reply") {
  std::string echoes;
  for (int i = 0; i < 20'000; ++i) echoes += "ECHO " + std::string(100, 'e') + "\r\n";
  std::string echo_replies;
  for (int i = 0; i < 20'000; ++i) echo_replies += "$100\r\n" + std::string(100, 'e') + "\r\n";
  std::vector<std::string> mset{"MSET"};
  for (int i = 0; i < 1000; ++i) {
    mset.push_back("key:" + std::to_string(i));
    mset.push_back(std::string(2048, 'v'));
  }
  side_by_side({"--client-query-buffer-limit", "1mb"},
               {
                   {"a 2 MB bulk over a 1 MB query buffer limit",
                    encode_command({"SET", "k", std::string(2 * 1024 * 1024, 'q')}), 1, "", true},
                   {"a 900 KB bulk under the limit", encode_command({"SET", "k", std::string(900 * 1024, 'q')}), 1,
                    "+OK\r\n", false},
                   {"2 MB of small requests in one write: parsed as they arrive, under the limit", echoes,
                    20'000, echo_replies, false},
                   // Redis moves each complete argument out of its query
                   // buffer as it parses: only the unparsed bytes count.
                   {"one 2 MB request of 2 KB arguments", encode_command(mset), 1, "+OK\r\n", false},
               });
}

TEST_CASE("limits before AUTH with requirepass") {
  const std::string bulk16k(16 * 1024, 'b');
  const std::string bulk16k1(16 * 1024 + 1, 'b');
  const std::string noauth = "-NOAUTH Authentication required.\r\n";
  auto repeat = [](const std::string& text, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += text;
    return out;
  };
  auto gets = [&](int n) { return repeat("GET k\r\n", n); };
  std::vector<std::string> mset{"MSET"};
  for (int i = 0; i < 5; ++i) {
    mset.push_back("k" + std::to_string(i));
    mset.push_back("v");
  }
  side_by_side(
      {"--requirepass", "secret"},
      {
          {"more than 10 arguments before AUTH", "*11\r\n", 1,
           "-ERR Protocol error: unauthenticated multibulk length\r\n", true},
          {"a bulk over 16 KB before AUTH", "*2\r\n$4\r\nECHO\r\n$16385\r\n", 1,
           "-ERR Protocol error: unauthenticated bulk length\r\n", true},
          {"10 arguments and a 16 KB bulk before AUTH are parsed, then refused",
           encode_command({"ECHO", bulk16k}) + encode_command({"MGET", "1", "2", "3", "4", "5", "6", "7", "8", "9"}) +
               "GET k\r\n",
           3, noauth + noauth + noauth, false},
          {"a wrong password", encode_command({"AUTH", "wrong"}), 1,
           "-WRONGPASS invalid username-password pair or user is disabled.\r\n", false},
          // More than 16 KB of replies waiting closes a client that has not
          // authenticated (CVE-2025-21605's fix, which Debian's 7.0.15
          // carries): 481 NOAUTH replies of 34 bytes fit, 482 do not.
          {"481 refused requests in one write: 16,354 bytes of replies", gets(481), 481, repeat(noauth, 481),
           false},
          {"482 refused requests in one write: closed without a reply", gets(482), 1, "", true},
          {"after AUTH the limits are lifted",
           encode_command({"AUTH", "secret"}) + encode_command(mset) + encode_command({"ECHO", bulk16k1}), 3,
           "+OK\r\n+OK\r\n$16385\r\n" + bulk16k1 + "\r\n", false},
      },
      "secret");
}

// Issue 14, finding 6: clients that never authenticate and pipeline without
// reading. Each is closed once more than 16 KB of its (NOAUTH) replies wait,
// so what they hold stays small while they flood, and the server serves
// the others all along.
TEST_CASE("100 unauthenticated clients pipelining without reading are closed; memory stays bounded") {
  using namespace std::chrono_literals;
  constexpr int kClients = 100;
  // What one of these clients (inline requests) may hold at most: 16 KB of
  // replies, a 64 KB inline line, a 16 KB read.
  constexpr long long kPerClientBytes = 128 * 1024;
  auto server = ServerProcess::lawnkv({"--requirepass", "secret"});
  Client admin(server.port());
  REQUIRE(admin.call({"AUTH", "secret"}) == status("OK"));
  const long long memory_before = info_int(admin.call({"INFO", "memory"}).text, "used_memory");

  std::string gets;
  while (gets.size() < 64 * 1024) gets += "GET k\r\n";  // 318 KB of NOAUTH replies a round
  std::vector<int> fds;
  for (int i = 0; i < kClients; ++i) {
    fds.push_back(test::connect_loopback(server.port()));
    REQUIRE(fds.back() >= 0);
  }
  long long memory_max = 0;
  for (int round = 0; round < 4; ++round) {
    for (int fd : fds) test::send_what_fits(fd, gets);
    memory_max = std::max(memory_max, info_int(admin.call({"INFO", "memory"}).text, "used_memory"));
    CHECK(admin.call({"PING"}) == status("PONG"));
  }
  CHECK(test::poll_until(std::chrono::steady_clock::now() + 10s, [&] { return client_count(admin) == 1; }));
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "client_output_buffer_limit_disconnections") == kClients);
  const long long memory_after = info_int(admin.call({"INFO", "memory"}).text, "used_memory");
  MESSAGE("used_memory before ", memory_before, ", at most ", memory_max, " during the flood, ", memory_after,
          " after");
  CHECK(memory_max < memory_before + kClients * kPerClientBytes);
  CHECK(memory_after < memory_before + kClients * kPerClientBytes);
  for (int fd : fds) ::close(fd);
  CHECK(serves(server.port(), "secret"));
}

}  // namespace
}  // namespace lawnkv::itest
