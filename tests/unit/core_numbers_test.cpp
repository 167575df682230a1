// Redis's number parsing and printing (src/core/numbers.hpp). The expected
// values come from redis-server 7.0.15: SET k <a>, INCRBY/INCRBYFLOAT k <b>.

#include <doctest/doctest.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/numbers.hpp"

using namespace lawnkv;

namespace {

// What INCRBYFLOAT replies for SET k a; INCRBYFLOAT k b.
std::string incrbyfloat(std::string_view a, std::string_view b) {
  long double x = 0, y = 0;
  if (!string_to_ld(a, &x) || !string_to_ld(b, &y)) return "ERR:ERR value is not a valid float";
  long double sum = x + y;
  if (std::isnan(sum) || std::isinf(sum)) {
    return "ERR:ERR increment would produce NaN or Infinity";
  }
  return ld_to_string(sum);
}

}  // namespace

TEST_CASE("string_to_ll accepts exactly what INCRBY accepts") {
  struct Case {
    const char* in;
    bool ok;
    long long value;
  };
  const Case cases[] = {
      {"0", true, 0},
      {"1", true, 1},
      {"-1", true, -1},
      {"10", true, 10},
      {"9223372036854775807", true, LLONG_MAX},
      {"-9223372036854775808", true, LLONG_MIN},
      {"9223372036854775808", false, 0},
      {"-9223372036854775809", false, 0},
      {"18446744073709551615", false, 0},
      {"18446744073709551616", false, 0},
      {"99999999999999999999", false, 0},
      {"123456789012345678901", false, 0},  // 21 bytes: too long outright
      {"-0", false, 0},
      {"00", false, 0},
      {"01", false, 0},
      {"-01", false, 0},
      {"+1", false, 0},
      {" 1", false, 0},
      {"1 ", false, 0},
      {"", false, 0},
      {"-", false, 0},
      {"1a", false, 0},
      {"a", false, 0},
      {"1.0", false, 0},
      {"1e3", false, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.in);
    long long v = 12345;
    CHECK(string_to_ll(c.in, &v) == c.ok);
    CHECK(v == (c.ok ? c.value : 12345));
  }
  long long v = 0;
  CHECK_FALSE(string_to_ll(std::string_view("1\0", 2), &v));
  CHECK(string_to_ll(std::string_view("123", 2), &v));
  CHECK(v == 12);
}

TEST_CASE("ll_to_chars and ll_to_string print like %lld") {
  std::mt19937_64 rng(7);
  std::vector<long long> values = {0, 1, -1, 9, 10, 99, 100, -100, 12345, LLONG_MAX, LLONG_MIN,
                                   LLONG_MIN + 1, 1000000000000000000LL};
  // Each side of every change in length.
  for (long long p = 10;; p *= 10) {
    values.insert(values.end(), {p - 1, p, 1 - p, -p});
    if (p == 1000000000000000000LL) break;  // the last power of ten a long long holds
  }
  for (int i = 0; i < 10000; i++) {
    long long v = static_cast<long long>(rng());
    values.push_back(v >> (rng() % 64));
  }
  for (long long v : values) {
    char expect[32];
    std::snprintf(expect, sizeof(expect), "%lld", v);
    REQUIRE(ll_to_string(v) == expect);
    long long back = 0;
    REQUIRE(string_to_ll(ll_to_string(v), &back));
    REQUIRE(back == v);
  }
}

TEST_CASE("INCRBYFLOAT parse and reply text match redis-server") {
  struct Case {
    const char* a;
    const char* b;
    const char* reply;
  };
  const Case cases[] = {
      // Generated from redis-server 7.0.15: {SET value, INCRBYFLOAT increment, reply}.
      {"0", "0.1", "0.1"},
      {"0.1", "0.1", "0.2"},
      {"0.2", "0.1", "0.3"},
      {"1e300", "9e300", "9999999999999999999944756745827058436478866151897956252807282444144356225819644136922169191036684232299483381873627479746750893941710697314672507014822241764846823057482655807766724304938612914582551059613319667147595179746825145408072765311550018815317024577580682864752728831227394652762455205216256"},
      {"3.0e3", "0", "3000"},
      {"0", "-0", "0"},
      {"0", "-0.0000000000000000001", "0"},
      {"0", "1.5e-17", "0.00000000000000002"},
      {"0", "0x10", "16"},
      {"0", ".5", "0.5"},
      {"0", "5.", "5"},
      {"0", "+5", "5"},
      {"10.5", "-0.5", "10"},
      {"5.0e3", "2.0e2", "5200"},
      {"0", "123456789012345678", "123456789012345678"},
      {"0", "0.30000000000000000004", "0.3"},
      {"1", "1e-17", "1.00000000000000001"},
      {"1", "5e-18", "1"},
      {"0", "-1.1e-4940", "0"},
      {"0", "1e-18", "0"},
      {"0", "0.000000000000000015", "0.00000000000000002"},
      {"0", "3.14159265358979323846", "3.14159265358979324"},
      {"-1", "0.5", "-0.5"},
      {"-0.5", "0.25", "-0.25"},
      {"0", "1e20", "100000000000000000000"},
      {"0", "1.7976931348623157e308", "179769313486231569995921046774104434048386446944329178485314420765176628523124396354701868608387085564428793419425520689308708363451136055357897278026477617073498977686288394835618163294045594434929537447290627480669417384648879122776218333598953852832103282504751611691208117720159985926376802466863339536384"},
      {"0", "99999999999999999999.5", "100000000000000000000"},
      {"1.23", "4.56", "5.79"},
      {"0", "-1e-17", "-0.00000000000000001"},
      {"0", "-5e-18", "0"},
      {"0", "-6e-18", "-0.00000000000000001"},
      {"100", "-100", "0"},
      {"0", "0X1p4", "16"},
      {"0", "1E3", "1000"},
      {"0", "Infinity", "ERR:ERR increment would produce NaN or Infinity"},
      {"0", " 1", "ERR:ERR value is not a valid float"},
      {"0", "1 ", "ERR:ERR value is not a valid float"},
      {"0", "nan", "ERR:ERR value is not a valid float"},
      {"0", "1e5000", "ERR:ERR value is not a valid float"},
      {"0", "1e-5000", "ERR:ERR value is not a valid float"},
      {"0", "", "ERR:ERR value is not a valid float"},
      {"0", "1..2", "ERR:ERR value is not a valid float"},
      {"0", "1e", "ERR:ERR value is not a valid float"},
      {"abc", "1", "ERR:ERR value is not a valid float"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.a);
    CAPTURE(c.b);
    CHECK(incrbyfloat(c.a, c.b) == c.reply);
  }
  // A NUL inside the text makes it invalid (strtold would stop there).
  CHECK(incrbyfloat("0", std::string_view("1\0", 2)) == "ERR:ERR value is not a valid float");
}

TEST_CASE("ld_to_string spells the specials and strips zeros") {
  CHECK(ld_to_string(HUGE_VALL) == "inf");
  CHECK(ld_to_string(-HUGE_VALL) == "-inf");
  CHECK(ld_to_string(std::nanl("")) == "nan");
  CHECK(ld_to_string(-0.0L) == "0");
  CHECK(ld_to_string(0.0L) == "0");
  CHECK(ld_to_string(3000.0L) == "3000");
  CHECK(ld_to_string(-2.5L) == "-2.5");
  CHECK(ld_to_string(100.0L) == "100");  // zeros before the point stay
  long double v = 0;
  for (int i = 0; i < 3; i++) v += 0.1L;
  CHECK(ld_to_string(v) == "0.3");
  // The largest long double still fits.
  std::string max = ld_to_string(LDBL_MAX);
  CHECK(max.size() == 4933);
}

TEST_CASE("string_to_ld limits") {
  long double v = 0;
  CHECK(string_to_ld("inf", &v));
  CHECK(std::isinf(v));
  CHECK(string_to_ld("-Infinity", &v));
  CHECK_FALSE(string_to_ld("nan", &v));
  CHECK_FALSE(string_to_ld("-nan", &v));
  CHECK_FALSE(string_to_ld("\t1", &v));
  CHECK_FALSE(string_to_ld("\n1", &v));
  // Just under the length limit is fine, at it not.
  std::string long_ok = "1." + std::string(kMaxLongDoubleChars - 3, '0');
  CHECK(string_to_ld(long_ok, &v));
  CHECK(v == 1.0L);
  CHECK_FALSE(string_to_ld(long_ok + "0", &v));
  // Denormal long doubles pass (ERANGE, but neither zero nor huge).
  CHECK(string_to_ld("3.3e-4940", &v));
  CHECK(v > 0);
}

TEST_CASE("string_to_double is Redis's string2d") {
  double d = 0;
  CHECK(string_to_double("0.5", &d));
  CHECK(d == 0.5);
  CHECK(string_to_double("1e308", &d));
  CHECK_FALSE(string_to_double("1e309", &d));
  CHECK_FALSE(string_to_double("1e-400", &d));
  CHECK(string_to_double("5e-324", &d));  // denormal
  CHECK(string_to_double("inf", &d));
  CHECK(string_to_double("-inf", &d));
  CHECK(std::isinf(d));
  CHECK_FALSE(string_to_double("nan", &d));
  CHECK_FALSE(string_to_double("", &d));
  CHECK_FALSE(string_to_double(" 1", &d));
  CHECK_FALSE(string_to_double("1 ", &d));
  CHECK_FALSE(string_to_double("1x", &d));
  CHECK(string_to_double("-0", &d));
  CHECK(std::signbit(d));
  CHECK(string_to_double("0x1p3", &d));
  CHECK(d == 8);
  // No length limit: a long but valid text still parses.
  std::string long_text = "2." + std::string(1000, '0');
  CHECK(string_to_double(long_text, &d));
  CHECK(d == 2);
}

// Short decimal texts (scores, range bounds) take a path of their own
// (numbers.cpp exact_decimal); its results must be strtod's, bit for bit,
// on both sides of its limits: 19 digits, mantissas around 2^53, up to 22
// decimals, signs, a leading or trailing '.', and "inf" in any case.
TEST_CASE("string_to_double and c_string_to_double give strtod's bits for decimal texts") {
  std::mt19937_64 rng(5);
  std::vector<std::string> texts = {"0",     "-0",    "+0",    "0.0",   "-0.0",  ".5",   "5.",    "+.5",
                                    "-5.",   "inf",   "-inf",  "+inf",  "INF",   "-InF", "9007199254740992",
                                    "9007199254740993", "9007199254740993.5", "-9007199254740995",
                                    "0.1",   "0.30000000000000004", "1234567890123456789",
                                    "12345678901234567890", "0.0000000000000000000001",
                                    "000000087261", "1.7976931348623157", "4.9406564584124654"};
  for (int i = 0; i < 200000; ++i) {
    std::string t;
    const int sign = static_cast<int>(rng() % 4);
    if (sign == 1) t += '-';
    if (sign == 2) t += '+';
    const size_t digits = 1 + rng() % 21;
    // Often a mantissa near 2^53: its digits with a point placed anywhere.
    std::string d = rng() % 3 == 0 ? std::to_string((uint64_t{1} << 53) - 8 + rng() % 16) : "";
    while (d.size() < digits) d += static_cast<char>('0' + rng() % 10);
    if (rng() % 2) d.insert(rng() % (d.size() + 1), 1, '.');
    texts.push_back(t + d);
  }
  for (const std::string& t : texts) {
    CAPTURE(t);
    const double want = std::strtod(t.c_str(), nullptr);
    double got = 0, got_c = 0;
    REQUIRE(string_to_double(t, &got));
    REQUIRE(c_string_to_double(t, &got_c));
    REQUIRE(std::memcmp(&got, &want, sizeof(double)) == 0);
    REQUIRE(std::memcmp(&got_c, &want, sizeof(double)) == 0);
  }
  // What the path refuses still goes to strtod's rules.
  double d = 0;
  CHECK_FALSE(string_to_double(".", &d));
  CHECK_FALSE(string_to_double("-", &d));
  CHECK_FALSE(string_to_double("1.2.3", &d));
  CHECK(c_string_to_double("", &d));
  CHECK(d == 0);
  CHECK(c_string_to_double(std::string_view("12\0x", 4), &d));
  CHECK(d == 12);
}
