// The wire protocol against the built server: binary-safe keys and values,
// 10 MB values, requests split across reads at every byte, inline commands,
// and RESP3 through HELLO 3.

#include <doctest/doctest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::escape_bytes;
using test::RawClient;
using test::ServerProcess;

// n bytes from a seeded generator: every byte value occurs, including NUL,
// CR, LF and 0xFF.
std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(rng() & 0xFF);
  return s;
}

// Whether two big strings are equal; on a difference, says where (doctest
// would print both strings whole).
bool same_bytes(const std::string& got, const std::string& want) {
  if (got == want) return true;
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  MESSAGE("sizes ", got.size(), " and ", want.size(), "; first difference at byte ", i);
  return false;
}

// The bytes the server has read from all clients (INFO stats
// total_net_input_bytes).
long long net_input_bytes(Client& observer) {
  return info_int(observer.call({"INFO", "stats"}).text, "total_net_input_bytes");
}

// The observer's own "INFO stats" request counts too: its size is known.
const size_t kInfoStatsRequestBytes = encode_command({"INFO", "stats"}).size();

// Sends `stream` one byte per write, and before each next byte waits (by
// polling INFO stats from `observer`) until the server has read the byte, so
// that every byte arrives in its own read. Returns the replies read after
// the last byte: `reply_count` of them, concatenated.
std::string send_byte_by_byte(uint16_t port, const std::string& stream, size_t reply_count) {
  Client observer(port);
  RawClient client(port);
  long long base = net_input_bytes(observer);  // includes this INFO request
  long long observer_bytes = 0;                // observer bytes read after `base`
  for (size_t i = 0; i < stream.size(); ++i) {
    client.send(std::string_view(stream).substr(i, 1));
    const long long want = base + static_cast<long long>(i + 1);
    bool read = test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
      observer_bytes += static_cast<long long>(kInfoStatsRequestBytes);
      return net_input_bytes(observer) - observer_bytes >= want;
    });
    INFO("byte ", i, " of ", escape_bytes(stream));
    REQUIRE_MESSAGE(read, "the server did not read byte ", i, " within 5 s");
  }
  std::string replies;
  for (size_t i = 0; i < reply_count; ++i) replies += client.read_reply();
  return replies;
}

TEST_CASE("binary keys and values round trip byte-exact") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());

  const std::string all_bytes = [] {
    std::string s;
    for (int round = 0; round < 4; ++round)
      for (int b = 0; b < 256; ++b) s.push_back(static_cast<char>(b));
    return s;
  }();
  const std::vector<std::string> keys = {
      std::string("k\0ey", 4),        std::string("\r\n"),          std::string("\xff\xfe\x00", 3),
      std::string("*1\r\n$4\r\nPING\r\n"), std::string(""),           std::string("a b\tc"),
      all_bytes.substr(0, 256),
  };
  const std::vector<std::string> values = {
      all_bytes, std::string("\0", 1), "\r\n", "", std::string("\xff", 1), "$-1\r\n", random_bytes(5000, 7),
  };

  for (size_t i = 0; i < keys.size(); ++i) {
    INFO("key ", escape_bytes(keys[i]), " value ", escape_bytes(values[i]));
    CHECK(c.call(Argv{"SET", keys[i], values[i]}) == status("OK"));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    INFO("key ", escape_bytes(keys[i]));
    CHECK(c.call(Argv{"GET", keys[i]}) == bulk(values[i]));
    CHECK(c.call(Argv{"STRLEN", keys[i]}) == integer(static_cast<long long>(values[i].size())));
    CHECK(c.call(Argv{"EXISTS", keys[i]}) == integer(1));
  }
  // The same bytes on the wire, as RawClient sees them.
  RawClient raw(server.port());
  CHECK(raw.call(std::vector<std::string>{"GET", keys[1]}) ==
        "$" + std::to_string(values[1].size()) + "\r\n" + values[1] + "\r\n");
  CHECK(raw.call(std::vector<std::string>{"GET", keys[0]}) == "$1024\r\n" + all_bytes + "\r\n");

  // Binary keys survive the keyspace commands that move and list them.
  CHECK(c.call(Argv{"RENAME", keys[0], keys[2]}) == status("OK"));
  CHECK(c.call(Argv{"GET", keys[2]}) == bulk(values[0]));
  CHECK(c.call(Argv{"EXISTS", keys[0]}) == integer(0));
  Reply all = c.call({"KEYS", "*"});
  REQUIRE(all.type == '*');
  CHECK(all.elements.size() == keys.size() - 1);
  bool listed = false;
  for (const Reply& k : all.elements) listed = listed || k.text == keys[2];
  CHECK(listed);
  CHECK(c.call(Argv{"MGET", keys[1], keys[3], keys[4], "missing"}).elements ==
        std::vector<Reply>{bulk(values[1]), bulk(values[3]), bulk(values[4]), nil()});
}

TEST_CASE("10 MB values round trip byte-exact") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port(), 30s);
  const size_t kSize = 10 * 1024 * 1024;
  const std::string big1 = random_bytes(kSize, 1);
  const std::string big2 = random_bytes(kSize, 2);

  CHECK(c.call(Argv{"SET", "big1", big1}) == status("OK"));
  Reply got = c.call({"GET", "big1"});
  CHECK(got.type == '$');
  CHECK(got.text.size() == kSize);
  CHECK(same_bytes(got.text, big1));
  CHECK(c.integer({"STRLEN", "big1"}) == static_cast<long long>(kSize));
  CHECK(c.call({"GETRANGE", "big1", "5000000", "5000009"}) == bulk(big1.substr(5000000, 10)));

  // Two 10 MB requests in one write, then both replies, byte-exact on the wire.
  RawClient raw(server.port(), 30s);
  raw.send(encode_command({"SET", "big2", big2}) + encode_command({"GET", "big2"}) +
           encode_command({"GET", "big1"}));
  CHECK(raw.read_reply() == "+OK\r\n");
  const std::string header = "$" + std::to_string(kSize) + "\r\n";
  std::string r2 = raw.read_reply();
  CHECK(r2.size() == header.size() + kSize + 2);
  CHECK(same_bytes(r2, header + big2 + "\r\n"));
  std::string r1 = raw.read_reply();
  CHECK(same_bytes(r1, header + big1 + "\r\n"));

  // APPEND grows a big value in place.
  CHECK(c.integer({"APPEND", "big1", "tail"}) == static_cast<long long>(kSize + 4));
  got = c.call({"GET", "big1"});
  CHECK(same_bytes(got.text, big1 + "tail"));
  CHECK(serves(server.port()));
}

// Requests of every kind, one byte per read, on lawnkv and (to check the
// expectations) on redis-server: the replies must be exact.
TEST_CASE("requests split across reads at every byte") {
  const std::string value("v\0\r\n\xff", 5);
  const std::string stream =
      encode_command({"SET", std::string("k\r\n", 3), value}) +  // multibulk, binary
      encode_command({"GET", std::string("k\r\n", 3)}) +
      "SET inline  word\r\n" +                                   // inline, CRLF, double blank
      "GET inline\n" +                                           // inline, LF only
      "ECHO \"a\\x00b\\r\\n\" 'c'\r\n" +                         // quotes and escapes: arity error
      "ECHO \"q\\x41\\n\"\r\n" +                                 // quotes and escapes
      "\r\n" +                                                   // an empty inline request: no reply
      "*0\r\n" + "*-1\r\n" +                                     // empty multibulks: no reply
      encode_command({"MGET", std::string("k\r\n", 3), "inline", "nokey"}) +
      encode_command({"PING"});
  const std::string expected = std::string("+OK\r\n") + "$5\r\n" + value + "\r\n" + "+OK\r\n" +
                               "$4\r\nword\r\n" +
                               "-ERR wrong number of arguments for 'echo' command\r\n" +
                               "$3\r\nqA\n\r\n" + "*3\r\n$5\r\n" + value + "\r\n$4\r\nword\r\n$-1\r\n" +
                               "+PONG\r\n";
  const size_t replies = 8;

  SUBCASE("lawnkv") {
    auto server = ServerProcess::lawnkv();
    CHECK(escape_bytes(send_byte_by_byte(server.port(), stream, replies)) == escape_bytes(expected));
    CHECK(serves(server.port()));
  }
  SUBCASE("redis-server, the reference") {
    auto server = ServerProcess::redis();
    CHECK(escape_bytes(send_byte_by_byte(server.port(), stream, replies)) == escape_bytes(expected));
  }
}

// A request cut in two at every position, each cut on a fresh connection.
// Both halves are sent with the server reading in between (see
// send_byte_by_byte), the second completing the request.
TEST_CASE("a request cut in two at every position") {
  auto server = ServerProcess::lawnkv();
  Client observer(server.port());
  const std::string request = encode_command({"SET", "cut", std::string("a\r\nb\0c", 6), "PX", "100000"});
  long long observer_bytes = 0;
  for (size_t cut = 1; cut < request.size(); ++cut) {
    INFO("cut after byte ", cut, " of ", escape_bytes(request));
    RawClient client(server.port());
    long long base = net_input_bytes(observer);
    client.send(std::string_view(request).substr(0, cut));
    bool read = test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
      observer_bytes += static_cast<long long>(kInfoStatsRequestBytes);
      return net_input_bytes(observer) - observer_bytes >= base + static_cast<long long>(cut);
    });
    observer_bytes = 0;
    REQUIRE(read);
    client.send(std::string_view(request).substr(cut));
    CHECK(client.read_reply() == "+OK\r\n");
    CHECK(client.call({"GET", "cut"}) == std::string("$6\r\na\r\nb\0c\r\n", 12));
  }
}

TEST_CASE("HELLO 3 switches to RESP3 and HELLO 2 back") {
  auto server = ServerProcess::lawnkv();
  RawClient c(server.port());

  std::string hello = c.call({"HELLO", "3"});
  Reply map = test::parse_reply(hello);
  REQUIRE_MESSAGE(map.type == '%', "HELLO 3 replied ", escape_bytes(hello));
  bool proto3 = false;
  for (size_t i = 0; i + 1 < map.elements.size(); i += 2)
    proto3 = proto3 || (map.elements[i].text == "proto" && map.elements[i + 1] == integer(3));
  CHECK_MESSAGE(proto3, escape_bytes(hello));

  CHECK(c.call({"GET", "missing"}) == "_\r\n");
  CHECK(c.call({"SET", "k", "v"}) == "+OK\r\n");
  CHECK(c.call({"GET", "k"}) == "$1\r\nv\r\n");
  CHECK(c.call({"MGET", "k", "missing"}) == "*2\r\n$1\r\nv\r\n_\r\n");
  CHECK(c.call({"EXISTS", "k"}) == ":1\r\n");
  // An aborted EXEC is RESP3's null, too.
  REQUIRE(c.call({"WATCH", "k"}) == "+OK\r\n");
  REQUIRE(Client(server.port()).call({"SET", "k", "v"}) == status("OK"));
  REQUIRE(c.call({"MULTI"}) == "+OK\r\n");
  REQUIRE(c.call({"GET", "k"}) == "+QUEUED\r\n");
  CHECK(c.call({"EXEC"}) == "_\r\n");

  std::string hello2 = c.call({"HELLO", "2"});
  CHECK_MESSAGE(hello2.substr(0, 1) == "*", escape_bytes(hello2));
  CHECK(c.call({"GET", "missing"}) == "$-1\r\n");
  CHECK(c.call({"MGET", "k", "missing"}) == "*2\r\n$1\r\nv\r\n$-1\r\n");

  CHECK(c.call({"HELLO", "4"}) == "-NOPROTO unsupported protocol version\r\n");
  CHECK(c.call({"GET", "missing"}) == "$-1\r\n");
}

}  // namespace
}  // namespace lawnkv::itest
