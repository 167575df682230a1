// resp::peek_request: the look ahead that finds a pipelined request's end and
// key without parsing it for real. It must never claim more than a complete
// request, and must give up (0) on anything else.

#include <doctest/doctest.h>

#include <string>

#include "resp/peek.hpp"

namespace lawnkv::resp {

TEST_CASE("peek_request: a complete request's length and its second argument") {
  const std::string get = "*2\r\n$3\r\nGET\r\n$5\r\nkey:1\r\n";
  const std::string set = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n";
  std::string_view key;
  CHECK(peek_request(get, &key) == get.size());
  CHECK(key == "key:1");
  CHECK(peek_request(get + set, &key) == get.size());
  CHECK(peek_request(set, &key) == set.size());
  CHECK(key == "k");

  const std::string ping = "*1\r\n$4\r\nPING\r\n";
  CHECK(peek_request(ping, &key) == ping.size());
  CHECK(key.empty());
  const char raw[] = "*2\r\n$3\r\nGET\r\n$3\r\n\r\n\0\r\n";
  const std::string binary(raw, sizeof(raw) - 1);
  CHECK(peek_request(binary, &key) == binary.size());
  CHECK(key == std::string_view("\r\n\0", 3));
}

TEST_CASE("peek_request: 0 for every prefix of a request, inline commands and bad headers") {
  const std::string set = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n";
  std::string_view key;
  for (size_t n = 0; n < set.size(); ++n) {
    CAPTURE(n);
    CHECK(peek_request(std::string_view(set).substr(0, n), &key) == 0);
  }
  for (const char* bad : {"PING\r\n", "*x\r\n", "*2\r\n$3\r\nGET\r\n+5\r\nkey:1\r\n", "*1\r\n$-1\r\n",
                          "*1\r\n$4\nPING\r\n", "*1\r\n$99999999999999999999\r\n"}) {
    CAPTURE(bad);
    CHECK(peek_request(bad, &key) == 0);
  }
}

}  // namespace lawnkv::resp
