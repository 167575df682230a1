// The harness's own parts, without servers: RESP framing and round trips,
// the comparison forms, escaping, and the case-file parser. A harness that
// misreads replies would hide server bugs, so it is pinned here.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "../support/escape.hpp"
#include "../support/process.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "case_script.hpp"
#include "reply_forms.hpp"

namespace lawnkv::test {

TEST_CASE("support: reply_length finds exactly one complete reply, at every cut") {
  const std::string replies[] = {
      "+OK\r\n", "-ERR x\r\n", ":-12\r\n", "$3\r\na\r\n\r\n", "$0\r\n\r\n", "$-1\r\n", "*-1\r\n",
      "*0\r\n", "*2\r\n$1\r\na\r\n*1\r\n:1\r\n", "_\r\n", ",1.5\r\n", "#t\r\n", "(123\r\n",
      "%1\r\n+k\r\n~2\r\n:1\r\n:2\r\n", "=7\r\ntxt:abc\r\n", "!3\r\nERR\r\n",
      ">2\r\n+message\r\n$1\r\nx\r\n", "|1\r\n+key\r\n+val\r\n:5\r\n"};
  for (const auto& reply : replies) {
    CAPTURE(escape_bytes(reply));
    for (size_t cut = 0; cut < reply.size(); ++cut) CHECK(reply_length(reply.substr(0, cut)) == 0);
    CHECK(reply_length(reply) == reply.size());
    CHECK(reply_length(reply + "+NEXT\r\n") == reply.size());
    CHECK(write_reply(parse_reply(reply)) == reply);
  }
}

TEST_CASE("support: malformed replies are errors, not hangs") {
  CHECK_THROWS_AS(reply_length("?x\r\n"), RespError);
  CHECK_THROWS_AS(reply_length("$abc\r\n"), RespError);
  CHECK_THROWS_AS(reply_length("$1\r\nab\r\n"), RespError);
  CHECK_THROWS_AS(reply_length("%-1\r\n"), RespError);
  CHECK_THROWS_AS(parse_reply("+OK\r\n+OK\r\n"), RespError);
}

TEST_CASE("support: encode_command is a binary-safe multibulk") {
  CHECK(encode_command({"SET", "k", std::string_view("\0\r\n", 3)}) ==
        std::string("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n\0\r\n\r\n", 29));
  std::vector<std::string> empty_arg{"ECHO", ""};
  CHECK(encode_command(empty_arg) == "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n");
}

TEST_CASE("support: escape_bytes shows control bytes and cuts long input") {
  CHECK(escape_bytes(std::string("+OK\r\n\0\xff\"\\", 9)) == "\"+OK\\r\\n\\x00\\xff\\\"\\\\\"");
  CHECK(escape_bytes(std::string(10, 'a'), 4) == "\"aaaa\"...(10 bytes)");
}

TEST_CASE("compat: comparison forms") {
  SUBCASE("sorted_form sorts arrays and sets at every depth, maps by key") {
    CHECK(sorted_form("*2\r\n$1\r\nb\r\n$1\r\na\r\n") == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    CHECK(sorted_form("*2\r\n$1\r\n0\r\n*2\r\n$1\r\nz\r\n$1\r\ny\r\n") ==
          sorted_form("*2\r\n*2\r\n$1\r\ny\r\n$1\r\nz\r\n$1\r\n0\r\n"));
    CHECK(sorted_form("%2\r\n+b\r\n:1\r\n+a\r\n:2\r\n") == "%2\r\n+a\r\n:2\r\n+b\r\n:1\r\n");
    CHECK(sorted_form("*2\r\n$1\r\nb\r\n$1\r\na\r\n") != sorted_form("*2\r\n$1\r\nb\r\n$1\r\nc\r\n"));
    CHECK(sorted_form("-ERR x\r\n") == "-ERR x\r\n");
  }
  SUBCASE("hello_form drops server, version and id, keeps the rest") {
    std::string redis = "%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:7\r\n";
    std::string other = "%3\r\n$6\r\nserver\r\n$6\r\nlawnkv\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:9\r\n";
    CHECK(hello_form(redis) == hello_form(other));
    CHECK(hello_form(redis) == "%1\r\n$5\r\nproto\r\n:3\r\n");
    CHECK(hello_form("-NOPROTO unsupported protocol version\r\n") ==
          "-NOPROTO unsupported protocol version\r\n");
  }
  SUBCASE("type_form keeps the type byte and null-ness") {
    CHECK(type_form(":5\r\n") == type_form(":7\r\n"));
    CHECK(type_form("$-1\r\n") != type_form("$1\r\nx\r\n"));
    CHECK(type_form("*1\r\n:1\r\n") != type_form(":1\r\n"));
  }
}

TEST_CASE("compat: the case-file parser") {
  auto path = std::filesystem::temp_directory_path() / "lawnkv-case-parser-test.txt";
  {
    std::ofstream out(path);
    out << "# comment\n\n  SET k \"a b\\x00\"\n@also-resp3\n@client 2\n@sorted KEYS *\n"
           "@closes @raw \"PING\\r\\n\"\n@scan SCAN 0 COUNT 1\n";
  }
  CaseScript script = load_case_script(path);
  REQUIRE(script.steps.size() == 5);
  CHECK(script.also_resp3);
  CHECK(script.steps[0].line == 3);
  CHECK(script.steps[0].argv == std::vector<std::string>{"SET", "k", std::string("a b\0", 4)});
  CHECK(script.steps[1].switch_to_client == 2);
  CHECK(script.steps[2].compare == Compare::kSorted);
  CHECK(script.steps[3].raw);
  CHECK(script.steps[3].closes);
  CHECK(script.steps[3].argv == std::vector<std::string>{"PING\r\n"});
  CHECK(script.steps[4].compare == Compare::kScan);
  CHECK(scan_cursor_at(script.steps[4].argv) == 1);
  CHECK(scan_cursor_at({"SSCAN", "k", "0"}) == 2);

  for (const char* bad : {"@nosuch PING\n", "@sorted\n", "@raw a b\n", "SET \"unbalanced\n",
                          "@sorted @type GET k\n", "@scan SSCAN k\n"}) {
    std::ofstream(path) << bad;
    CHECK_THROWS_AS(load_case_script(path), std::runtime_error);
  }
  std::filesystem::remove(path);
}

TEST_CASE("support: ServerProcess and RawClient against redis-server") {
  ServerProcess redis = ServerProcess::redis();
  RawClient client(redis.port(), std::chrono::milliseconds(500));

  SUBCASE("pipelined replies come back one at a time, in order") {
    std::string batch;
    for (int i = 0; i < 1000; ++i) batch += encode_command({"ECHO", std::to_string(i)});
    client.send(batch);
    for (int i = 0; i < 1000; ++i) {
      std::string n = std::to_string(i);
      REQUIRE(client.read_reply() == "$" + std::to_string(n.size()) + "\r\n" + n + "\r\n");
    }
    CHECK_FALSE(client.has_buffered_bytes());
  }
  SUBCASE("a reply that never completes is a Timeout, not a hang") {
    client.send("*2\r\n$4\r\nECHO\r\n");
    CHECK_THROWS_AS(client.read_reply(), Timeout);
  }
  SUBCASE("a closed connection is reported") {
    CHECK(client.call({"QUIT"}) == "+OK\r\n");
    CHECK(client.wait_closed());
    CHECK_THROWS_AS(client.read_reply(), ConnectionClosed);
  }
  SUBCASE("a 10 MB value round-trips") {
    std::string big(10 << 20, 'x');
    client.set_timeout(std::chrono::milliseconds(10'000));
    CHECK(client.call({"SET", "big", big}) == "+OK\r\n");
    CHECK(client.call({"GET", "big"}) == "$" + std::to_string(big.size()) + "\r\n" + big + "\r\n");
  }
  SUBCASE("stop() ends the process with SIGTERM") {
    CHECK(describe_status(redis.stop()) == "exit 0");
    CHECK_FALSE(redis.running());
  }
}

}  // namespace lawnkv::test
