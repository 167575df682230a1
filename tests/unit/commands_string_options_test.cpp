// The option words of SET and GETEX (src/commands/strings_family.cpp,
// find_option): each row is picked by its word's length and first letter, so
// these check every word in any case, and words that share a length and a
// first letter (or its low five bits) with one but are not it. Expected
// replies are redis-server 7.0.15's.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

using Server = test::CommandServer;

constexpr std::string_view kOk = "+OK\r\n";
constexpr std::string_view kSyntax = "-ERR syntax error\r\n";

}  // namespace

TEST_CASE_FIXTURE(Server, "SET options are found in any letter case") {
  for (const char* ex : {"EX", "ex", "Ex", "eX"}) CHECK(run({"SET", "k", "v", ex, "100"}) == kOk);
  CHECK(run({"ttl", "k"}) == ":100\r\n");
  for (const char* px : {"PX", "px", "pX"}) CHECK(run({"SET", "k", "v", px, "5000"}) == kOk);
  CHECK(run({"ttl", "k"}) == ":5\r\n");
  CHECK(run({"SET", "k", "v", "exAT", std::to_string(test::kT0 / 1000 + 7)}) == kOk);
  CHECK(run({"ttl", "k"}) == ":7\r\n");
  CHECK(run({"SET", "k", "v", "PxAt", std::to_string(test::kT0 + 9000)}) == kOk);
  CHECK(run({"ttl", "k"}) == ":9\r\n");
  CHECK(run({"SET", "k", "v2", "KeepTTL"}) == kOk);
  CHECK(run({"ttl", "k"}) == ":9\r\n");
  CHECK(run({"SET", "k", "v3", "gEt"}) == "$2\r\nv2\r\n");
  CHECK(run({"SET", "k", "v4", "xX"}) == kOk);
  CHECK(run({"SET", "k", "v5", "Nx"}) == "$-1\r\n");
  CHECK(run({"SET", "k2", "v", "nX"}) == kOk);
  CHECK(run({"GETEX", "k", "Persist"}) == "$2\r\nv4\r\n");
  CHECK(run({"ttl", "k"}) == ":-1\r\n");
  CHECK(run({"GETEX", "k", "eX", "10"}) == "$2\r\nv4\r\n");
  CHECK(run({"ttl", "k"}) == ":10\r\n");
}

// Redis compares option words as C strings: a NUL byte ends the word.
TEST_CASE_FIXTURE(Server, "an option word ends at a NUL byte") {
  CHECK(run({"SET", "k", "v", std::string("ex\0", 3), "100"}) == kOk);
  CHECK(run({"ttl", "k"}) == ":100\r\n");
  CHECK(run({"SET", "k", "v", std::string("KEEPTTL\0", 8)}) == kOk);
  CHECK(run({"ttl", "k"}) == ":100\r\n");
  CHECK(run({"SET", "k", "v2", std::string("GET\0x", 5)}) == "$1\r\nv\r\n");
  CHECK(run({"GETEX", "k", std::string("PERSIST\0y", 9)}) == "$2\r\nv2\r\n");
  CHECK(run({"ttl", "k"}) == ":-1\r\n");
  CHECK(run({"SET", "k", "v", std::string("nx\0", 3)}) == "$-1\r\n");
  CHECK(run({"SET", "k", "v", std::string("\0ex", 3), "100"}) == kSyntax);
  CHECK(run({"SET", "k", "v", std::string("e\0x", 3), "100"}) == kSyntax);
}

TEST_CASE_FIXTURE(Server, "SET and GETEX refuse words that only look like options") {
  const std::vector<std::string> near_misses = {
      "", "e", "E", "x", "ey", "ez", "nn", "xn", "pp", "ge", "gett", "GEX", "exa", "exaT1",
      "pxa", "pxad", "exit", "keepttx", "KEEPTT", "persisT1", "pepsist", "kersist",
      // Same length, first byte equal to an option's in its low five bits.
      "\x0e" "x", "\x05x", "Ex\x01", std::string("e\0", 2),
      "\xc5x", "\xe5X", "%x", "0x", "PERSIST\xff",
  };
  for (const std::string& word : near_misses) {
    CAPTURE(word);
    CHECK(run({"SET", "k", "v", word}) == kSyntax);
    CHECK(run({"SET", "k", "v", word, "100"}) == kSyntax);
    CHECK(run({"GETEX", "k", word}) == kSyntax);
  }
  // Each grammar's own words only.
  CHECK(run({"SET", "k", "v", "PERSIST"}) == kSyntax);
  CHECK(run({"GETEX", "k", "KEEPTTL"}) == kSyntax);
  CHECK(run({"GETEX", "k", "NX"}) == kSyntax);
  CHECK(run({"GETEX", "k", "GET"}) == kSyntax);
}

}  // namespace lawnkv
