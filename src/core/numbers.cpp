#include "core/numbers.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>

namespace lawnkv {

bool string_to_ll(std::string_view s, long long* out) {
  size_t n = s.size();
  if (n == 0 || n >= kLongStrSize) return false;
  if (n == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    if (++i == n) return false;
  }
  // The first digit is 1-9: "0" alone was handled above, so "01" and "-0" fail.
  if (s[i] < '1' || s[i] > '9') return false;
  unsigned long long v = static_cast<unsigned long long>(s[i++] - '0');
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = static_cast<unsigned>(s[i] - '0');
    if (v > (~0ULL - d) / 10) return false;  // v * 10 + d would wrap
    v = v * 10 + d;
  }
  if (negative) {
    // -LLONG_MIN is LLONG_MAX + 1.
    if (v > static_cast<unsigned long long>(LLONG_MAX) + 1) return false;
    *out = static_cast<long long>(0ULL - v);
  } else {
    if (v > static_cast<unsigned long long>(LLONG_MAX)) return false;
    *out = static_cast<long long>(v);
  }
  return true;
}

namespace {

// The strtold/strtod verdict shared by string2ld and string2d, given the
// NUL-terminated copy buf of s: everything consumed, no leading space, no
// NaN, no overflow to infinity or underflow to zero.
template <typename F>
bool float_parse_ok(const char* buf, size_t n, const char* end, F value, int err) {
  if (std::isspace(static_cast<unsigned char>(buf[0]))) return false;
  if (static_cast<size_t>(end - buf) != n) return false;
  if (err == ERANGE &&
      (value == HUGE_VALL || value == -HUGE_VALL || std::fpclassify(value) == FP_ZERO)) {
    return false;
  }
  if (err == EINVAL) return false;
  return !std::isnan(value);
}

}  // namespace

bool string_to_ld(std::string_view s, long double* out) {
  char buf[kMaxLongDoubleChars];
  if (s.empty() || s.size() >= sizeof(buf)) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  long double v = std::strtold(buf, &end);
  if (!float_parse_ok(buf, s.size(), end, v, errno)) return false;
  *out = v;
  return true;
}

namespace {

// 10^k for k = 0..22, each exact in a double.
constexpr double kExactPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr uint64_t kExactInt = uint64_t{1} << 53;  // every integer up to it is a double

// What strtod gives for the texts scores and range bounds are nearly always
// written as, without its copy, locale and big-number machinery: an optional
// sign, then "inf" in any case, or decimal digits with at most one '.'
// (at least one digit, at most 19). Such a text is m / 10^k with m < 10^19:
// when m <= 2^53 and k <= 22 both are exact doubles, and the one division
// rounds to the nearest double, as strtod does (Clinger's fast path); the
// sign is applied after, as rounding is symmetric ("-0" is -0.0). False for
// anything else, which the caller hands to strtod.
bool exact_decimal(std::string_view s, double* out) {
  const char* p = s.data();
  const char* const end = p + s.size();
  if (s.size() > 21) return false;  // more than sign, 19 digits and '.'
  const bool neg = p < end && *p == '-';
  if (p < end && (*p == '-' || *p == '+')) ++p;
  if (end - p == 3 && (p[0] | 0x20) == 'i' && (p[1] | 0x20) == 'n' && (p[2] | 0x20) == 'f') {
    *out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  uint64_t m = 0;
  size_t digits = 0, frac = 0;
  bool point = false;
  for (; p < end; ++p) {
    const unsigned d = static_cast<unsigned char>(*p - '0');
    if (d <= 9) {
      m = m * 10 + d;  // wraps past 19 digits, refused below
      ++digits;
      frac += point;
    } else if (*p == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > 19 || m > kExactInt) return false;
  const double v = static_cast<double>(m) / kExactPow10[frac];
  *out = neg ? -v : v;
  return true;
}

}  // namespace

bool string_to_double(std::string_view s, double* out) {
  if (exact_decimal(s, out)) return true;
  if (s.empty()) return false;
  // Short inputs (every realistic one) stay on the stack.
  char small[128];
  std::string big;
  char* buf = small;
  if (s.size() >= sizeof(small)) {
    big.assign(s);
    buf = big.data();
  } else {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
  }
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(buf, &end);
  // HUGE_VAL compares equal to HUGE_VALL once widened, so one check serves.
  if (!float_parse_ok(buf, s.size(), end, static_cast<long double>(v), errno)) {
    return false;
  }
  *out = v;
  return true;
}

bool c_string_to_double(std::string_view s, double* out) {
  // A text the fast path takes has no NUL: it is its own C string.
  if (exact_decimal(s, out)) return true;
  const std::string text(s.substr(0, s.find('\0')));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || std::isnan(v)) return false;
  *out = v;
  return true;
}

std::string d_to_string(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  constexpr double kHalf = static_cast<double>(LLONG_MAX / 2);
  if (v >= -kHalf && v <= kHalf) {
    const long long ll = static_cast<long long>(v);
    if (static_cast<double>(ll) == v) return ll_to_string(ll);
  }
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%.17g", v);
  return std::string(buf, static_cast<size_t>(n));
}

std::string ld_to_string(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  // The largest finite long double has 4933 integer digits; with the sign,
  // the point and 17 decimals the text fits kMaxLongDoubleChars.
  char buf[kMaxLongDoubleChars];
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", v);
  if (len <= 0 || static_cast<size_t>(len) >= sizeof(buf)) return std::string();
  size_t n = static_cast<size_t>(len);
  if (std::memchr(buf, '.', n) != nullptr) {
    while (buf[n - 1] == '0') n--;
    if (buf[n - 1] == '.') n--;
  }
  if (n == 2 && buf[0] == '-' && buf[1] == '0') return "0";
  return std::string(buf, n);
}

size_t ll_to_chars(char* buf, long long v) {
  static constexpr char kDigits[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  unsigned long long u = v < 0 ? 0ULL - static_cast<unsigned long long>(v)
                               : static_cast<unsigned long long>(v);
  // The length first, so the digits go straight to their place in buf,
  // two at a time from the last. A number of b bits has b * log10(2)
  // digits, rounded down, or one more (1233 / 4096 is log10(2) to within
  // what 64 bits need): the estimate, plus one if u reaches the next power
  // of ten.
  static constexpr unsigned long long kPow10[20] = {
      1ULL,           10ULL,           100ULL,           1000ULL,           10000ULL,
      100000ULL,      1000000ULL,      10000000ULL,      100000000ULL,      1000000000ULL,
      10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
      1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
      10000000000000000000ULL};
  // (u | 1 has u's digits, as every power of ten past 1 is even, and is
  // not 0, which has no bits.)
  const unsigned long long odd = u | 1;
  const unsigned estimate = (64 - static_cast<unsigned>(__builtin_clzll(odd))) * 1233 >> 12;
  const size_t n = estimate + (odd >= kPow10[estimate]);
  if (v < 0) *buf++ = '-';
  char* p = buf + n;
  while (u >= 100) {
    const unsigned i = static_cast<unsigned>(u % 100) * 2;
    u /= 100;
    *--p = kDigits[i + 1];
    *--p = kDigits[i];
  }
  if (u >= 10) {
    const unsigned i = static_cast<unsigned>(u) * 2;
    *--p = kDigits[i + 1];
    *--p = kDigits[i];
  } else {
    *--p = static_cast<char>('0' + u);
  }
  return n + (v < 0);
}

std::string ll_to_string(long long v) {
  char buf[kLongStrSize];
  return std::string(buf, ll_to_chars(buf, v));
}

}  // namespace lawnkv
