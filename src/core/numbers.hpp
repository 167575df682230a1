#pragma once
// Redis's exact number parsing and printing (util.c string2ll, string2ld,
// string2d, ll2string, ld2string). Command replies and errors depend on which
// strings are numbers, so these follow Redis 7.0 byte for byte rather than
// std::from_chars. Verified against redis-server 7.0.15 with INCRBY,
// INCRBYFLOAT and SET + INCR (see tests/unit/core_numbers_test.cpp).

#include <cstddef>
#include <string>
#include <string_view>

namespace lawnkv {

// Longest decimal form of a long long, "-9223372036854775808", plus one.
inline constexpr size_t kLongStrSize = 21;
// Longest text string_to_ld accepts is one less (MAX_LONG_DOUBLE_CHARS).
inline constexpr size_t kMaxLongDoubleChars = 5 * 1024;

// string2ll: s is exactly an optional '-' and decimal digits with no leading
// zero ("0" alone is fine), in range, shorter than 21 bytes. Rejects "",
// "-", "-0", "01", "+1", " 1", "1 " and overflow. *out is set only on success.
bool string_to_ll(std::string_view s, long long* out);

// string2ld, as INCRBYFLOAT and the long-double getters use it: strtold must
// consume all of s; rejects "", a leading isspace byte, anything of
// kMaxLongDoubleChars bytes or more, NaN, and overflow/underflow to
// +-HUGE_VAL or zero (denormals pass). Accepts what strtold accepts: "inf",
// "-Infinity", hex floats "0x10", ".5", "5.", "+5". *out set only on success.
bool string_to_ld(std::string_view s, long double* out);

// string2d, as ZADD scores and the double getters use it: the same rules as
// string_to_ld with strtod and no length limit.
bool string_to_double(std::string_view s, double* out);

// A sorted-set range bound as Redis's zslParseRange reads it: strtod over s
// as a C string (up to its first NUL byte), which must consume all of it;
// only NaN is refused. So " 1", "1e999" (inf), "0x10" pass, and so does ""
// (0), as in Redis.
bool c_string_to_double(std::string_view s, double* out);

// d2string, the text of a score a listpack stores (ZSCAN replies it):
// "nan", "inf", "-inf", "0" / "-0", an integer's digits when the value is
// one within +-2^62, else "%.17g". E.g. 3.0 -> "3", 1e17 -> "100000000000000000",
// 0.1 -> "0.10000000000000001", 1e20 -> "1e+20".
std::string d_to_string(double v);

// ld2string in LD_STR_HUMAN mode, the text INCRBYFLOAT replies and stores:
// "%.17Lf", then trailing zeros and a trailing '.' removed, "-0" becomes "0";
// "inf", "-inf", "nan" spelled explicitly. E.g. 3.0e3 -> "3000",
// 0.1+0.1+0.1 -> "0.3", 1.5e-17 -> "0.00000000000000002", -1e-19 -> "0".
std::string ld_to_string(long double v);

// Writes v in decimal to buf (at least kLongStrSize - 1 bytes, no terminator
// written) and returns the number of bytes. The hot path of the reply writer.
size_t ll_to_chars(char* buf, long long v);

// ll2string as a std::string.
std::string ll_to_string(long long v);

}  // namespace lawnkv
