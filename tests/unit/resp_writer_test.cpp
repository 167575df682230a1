// The reply writer (src/resp/writer.hpp): exact bytes of every method in
// RESP2 and RESP3. Double and null forms were checked against
// redis-server 7.0.15 (ZSCORE after HELLO 2 / HELLO 3).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "resp/writer.hpp"

using lawnkv::resp::Writer;

namespace {

// The bytes one writer call produces in the given protocol.
template <typename F>
std::string write(int protocol, F f) {
  std::string out;
  Writer w(out, protocol);
  f(w);
  return out;
}

}  // namespace

TEST_CASE("writer: types that RESP2 and RESP3 share") {
  for (int proto : {2, 3}) {
    CAPTURE(proto);
    CHECK(write(proto, [](Writer& w) { w.simple("OK"); }) == "+OK\r\n");
    CHECK(write(proto, [](Writer& w) { w.simple(""); }) == "+\r\n");
    CHECK(write(proto, [](Writer& w) { w.error("ERR syntax error"); }) == "-ERR syntax error\r\n");
    CHECK(write(proto, [](Writer& w) { w.integer(0); }) == ":0\r\n");
    CHECK(write(proto, [](Writer& w) { w.integer(-1); }) == ":-1\r\n");
    CHECK(write(proto, [](Writer& w) { w.integer(INT64_MAX); }) == ":9223372036854775807\r\n");
    CHECK(write(proto, [](Writer& w) { w.integer(INT64_MIN); }) == ":-9223372036854775808\r\n");
    CHECK(write(proto, [](Writer& w) { w.bulk("foo"); }) == "$3\r\nfoo\r\n");
    CHECK(write(proto, [](Writer& w) { w.bulk(""); }) == "$0\r\n\r\n");
    CHECK(write(proto, [](Writer& w) { w.bulk(std::string_view("a\r\n\0b", 5)); }) ==
          std::string("$5\r\na\r\n\0b\r\n", 11));
    CHECK(write(proto, [](Writer& w) { w.array(0); }) == "*0\r\n");
    CHECK(write(proto, [](Writer& w) { w.array(12345); }) == "*12345\r\n");
  }
}

TEST_CASE("writer: simple strings and errors cannot break the stream") {
  CHECK(write(2, [](Writer& w) { w.error("ERR bad\r\nthing\n"); }) == "-ERR bad  thing \r\n");
  CHECK(write(3, [](Writer& w) { w.simple("a\rb"); }) == "+a b\r\n");
  // Lines are composed in 128-byte chunks: every length around the chunk
  // edges, with CR and LF on either side of them, and after other output.
  for (size_t len = 120; len <= 400; len++) {
    CAPTURE(len);
    std::string text, expect;
    for (size_t i = 0; i < len; i++) {
      const char c = i % 61 == 0 ? '\r' : i % 127 == 0 ? '\n' : static_cast<char>('a' + i % 26);
      text += c;
      expect += c == '\r' || c == '\n' ? ' ' : c;
    }
    std::string out = "before";
    Writer w(out, 2);
    w.error(text);
    w.simple(text);
    CHECK(out == "before-" + expect + "\r\n+" + expect + "\r\n");
  }
}

TEST_CASE("writer: RESP2 forms of RESP3 types") {
  auto w2 = [](auto f) { return write(2, f); };
  CHECK(w2([](Writer& w) { w.null(); }) == "$-1\r\n");
  CHECK(w2([](Writer& w) { w.null_array(); }) == "*-1\r\n");
  CHECK(w2([](Writer& w) { w.map(2); }) == "*4\r\n");
  CHECK(w2([](Writer& w) { w.map(0); }) == "*0\r\n");
  CHECK(w2([](Writer& w) { w.set(3); }) == "*3\r\n");
  CHECK(w2([](Writer& w) { w.push(3); }) == "*3\r\n");
  CHECK(w2([](Writer& w) { w.boolean(true); }) == ":1\r\n");
  CHECK(w2([](Writer& w) { w.boolean(false); }) == ":0\r\n");
  CHECK(w2([](Writer& w) { w.verbatim("hello"); }) == "$5\r\nhello\r\n");
  CHECK(w2([](Writer& w) { w.big_number("1234567890123456789012"); }) ==
        "$22\r\n1234567890123456789012\r\n");
  CHECK(w2([](Writer& w) { w.dbl(0.1); }) == "$19\r\n0.10000000000000001\r\n");
  CHECK(w2([](Writer& w) { w.dbl(1e300); }) == "$23\r\n1.0000000000000001e+300\r\n");
  CHECK(w2([](Writer& w) { w.dbl(5e-324); }) == "$23\r\n4.9406564584124654e-324\r\n");
  CHECK(w2([](Writer& w) { w.dbl(3); }) == "$1\r\n3\r\n");
  CHECK(w2([](Writer& w) { w.dbl(-0.0); }) == "$2\r\n-0\r\n");
  CHECK(w2([](Writer& w) { w.dbl(HUGE_VAL); }) == "$3\r\ninf\r\n");
  CHECK(w2([](Writer& w) { w.dbl(-HUGE_VAL); }) == "$4\r\n-inf\r\n");
  CHECK(w2([](Writer& w) { w.dbl(std::numeric_limits<double>::quiet_NaN()); }) ==
        "$3\r\nnan\r\n");
}

TEST_CASE("writer: RESP3 types") {
  auto w3 = [](auto f) { return write(3, f); };
  CHECK(w3([](Writer& w) { w.null(); }) == "_\r\n");
  CHECK(w3([](Writer& w) { w.null_array(); }) == "_\r\n");
  CHECK(w3([](Writer& w) { w.map(2); }) == "%2\r\n");
  CHECK(w3([](Writer& w) { w.set(3); }) == "~3\r\n");
  CHECK(w3([](Writer& w) { w.push(3); }) == ">3\r\n");
  CHECK(w3([](Writer& w) { w.boolean(true); }) == "#t\r\n");
  CHECK(w3([](Writer& w) { w.boolean(false); }) == "#f\r\n");
  CHECK(w3([](Writer& w) { w.verbatim("hello"); }) == "=9\r\ntxt:hello\r\n");
  CHECK(w3([](Writer& w) { w.verbatim("# x", "mkd"); }) == "=7\r\nmkd:# x\r\n");
  CHECK(w3([](Writer& w) { w.big_number("-12345678901234567890"); }) ==
        "(-12345678901234567890\r\n");
  CHECK(w3([](Writer& w) { w.dbl(0.1); }) == ",0.10000000000000001\r\n");
  CHECK(w3([](Writer& w) { w.dbl(1e300); }) == ",1.0000000000000001e+300\r\n");
  CHECK(w3([](Writer& w) { w.dbl(-0.0); }) == ",-0\r\n");
  CHECK(w3([](Writer& w) { w.dbl(HUGE_VAL); }) == ",inf\r\n");
  CHECK(w3([](Writer& w) { w.dbl(-HUGE_VAL); }) == ",-inf\r\n");
  CHECK(w3([](Writer& w) { w.dbl(std::numeric_limits<double>::quiet_NaN()); }) == ",nan\r\n");
}

TEST_CASE("writer: dbl formats exactly like %.17g") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<double> values = {0.0, 1.0, -1.0, 0.5, 1e16, 1e17, 123456789.125, 1e-5, 1e-4,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min()};
  // Integers, which take a path of their own, on both sides of its limit 2^53.
  for (double base : {0.0, 0x1p53, -0x1p53, 1e15, 1e17}) {
    for (int k = -3; k <= 3; ++k) values.push_back(base + k);
  }
  for (int i = 0; i < 20000; i++) {
    values.push_back(static_cast<double>(static_cast<int64_t>(rng() >> (rng() % 64))) * (i % 2 ? 1 : -1));
    values.push_back(unit(rng) * std::pow(10.0, static_cast<int>(rng() % 600) - 300));
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (std::isfinite(d)) values.push_back(d);
  }
  for (double d : values) {
    char expect[64];
    std::snprintf(expect, sizeof(expect), ",%.17g\r\n", d);
    REQUIRE(write(3, [d](Writer& w) { w.dbl(d); }) == expect);
  }
}

// Bulks up to a length are composed whole before one append, longer ones
// in pieces: both forms, on both sides of the limit, after other output.
TEST_CASE("writer: bulk strings of every length up to 300") {
  for (size_t n = 0; n <= 300; ++n) {
    std::string s(n, 'x');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    std::string out = "+OK\r\n";
    Writer(out, 2).bulk(s);
    REQUIRE(out == "+OK\r\n$" + std::to_string(n) + "\r\n" + s + "\r\n");
  }
}

TEST_CASE("writer: appends, and nests") {
  std::string out = "+PONG\r\n";
  Writer w(out, 2);
  CHECK(w.protocol() == 2);
  w.array(2);
  w.bulk("a");
  w.array_of_bulks(std::vector<std::string>{"x", "yz"});
  CHECK(out == "+PONG\r\n*2\r\n$1\r\na\r\n*2\r\n$1\r\nx\r\n$2\r\nyz\r\n");
}
