// The bit algorithms (src/core/bits.hpp): the header's worked examples,
// tables of edge cases whose expected values are redis-server 7.0.15's
// replies, and seeded random comparisons with plain bit-by-bit models
// (ranges, searches, BITOP, and BITFIELD's overflow rules in 128-bit
// arithmetic).

#include <doctest/doctest.h>

#include <climits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/bits.hpp"

namespace lawnkv::bits {

namespace {

using namespace std::string_literals;

int bit_at(const std::string& s, long long i) { return (static_cast<unsigned char>(s[i >> 3]) >> (7 - (i & 7))) & 1; }

// Redis's range rules on bit indexes [first, last] (inclusive; first > last:
// empty). A BYTE range covers whole bytes.
struct BitRange {
  long long first, last;
};
BitRange model_range(size_t size, long long start, long long end, Unit unit) {
  long long total = static_cast<long long>(size) * (unit == Unit::kBit ? 8 : 1);
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max(start, 0LL);
  end = std::max(end, 0LL);
  end = std::min(end, total - 1);
  if (unit == Unit::kByte) return {start * 8, end * 8 + 7};
  return {start, end};
}

int64_t model_count(const std::string& s, long long start, long long end, Unit unit) {
  if (start < 0 && end < 0 && start > end) return 0;
  const BitRange r = model_range(s.size(), start, end, unit);
  int64_t n = 0;
  for (long long i = r.first; i <= r.last; ++i) n += bit_at(s, i);
  return n;
}

// BITPOS as its documentation states it.
int64_t model_position(const std::string& s, int bit, long long start, std::optional<long long> end, Unit unit) {
  const long long size = static_cast<long long>(s.size());
  const long long e = end ? *end : (unit == Unit::kBit ? size * 8 + 7 : size - 1);
  const BitRange r = model_range(s.size(), start, e, unit);
  if (r.first > r.last) return -1;
  for (long long i = r.first; i <= r.last; ++i)
    if (bit_at(s, i) == bit) return i;
  // Past the range the string is zero padded, unless the range has an end.
  return bit == 0 && !end ? r.last + 1 : -1;
}

std::string random_bytes(std::mt19937_64& rng, size_t max_len) {
  std::string s(rng() % (max_len + 1), '\0');
  const int style = static_cast<int>(rng() % 4);  // runs of 0x00 and 0xff make searches skip words
  for (char& c : s) {
    const uint64_t r = rng();
    c = static_cast<char>(style == 0 ? r : style == 1 ? (r % 16 == 0 ? r : 0) : style == 2 ? (r % 16 == 0 ? r : 0xff) : (r & 1 ? 0xff : 0));
  }
  return s;
}

}  // namespace

TEST_CASE("bits: the header's worked examples") {
  CHECK(count_range("\xff\xf0", 0, -1, Unit::kByte) == 12);
  CHECK(count_range("\xff\xf0", 1, -1, Unit::kByte) == 4);
  CHECK(count_range("\xff\xf0", 5, 9, Unit::kBit) == 5);
  CHECK(position("\xff\xf0", 0, 0, std::nullopt, Unit::kByte) == 12);
  CHECK(position("\xff\xff", 0, 0, std::nullopt, Unit::kByte) == 16);
  CHECK(position("\xff\xff", 0, 0, 1, Unit::kByte) == -1);
  std::string s(2, '\0');
  apply_field_op(s, {FieldOpKind::kSet, {false, 5}, Overflow::kWrap, 7, 23});
  CHECK(s == "\x01\x70"s);
}

TEST_CASE("bits: get_bit and set_bit number bits from the top of byte 0") {
  std::string s = "\x80\x01"s;
  CHECK(get_bit(s, 0) == 1);
  CHECK(get_bit(s, 1) == 0);
  CHECK(get_bit(s, 15) == 1);
  CHECK(get_bit(s, 16) == 0);
  CHECK(get_bit(s, UINT64_MAX) == 0);
  CHECK(set_bit(s.data(), 0, 0) == 1);
  CHECK(set_bit(s.data(), 9, 1) == 0);
  CHECK(set_bit(s.data(), 9, 1) == 1);
  CHECK(s == "\x00\x41"s);
}

TEST_CASE("bits: popcount at every length and alignment") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const std::string buf = random_bytes(rng, 100);
    for (size_t skip = 0; skip < 9 && skip <= buf.size(); ++skip) {
      const std::string_view s = std::string_view(buf).substr(skip);
      uint64_t want = 0;
      for (unsigned char c : s) want += static_cast<uint64_t>(__builtin_popcount(c));
      REQUIRE(popcount(s) == want);
    }
  }
  CHECK(popcount("") == 0);
  CHECK(popcount(std::string(1000, '\xff')) == 8000);
}

TEST_CASE("bits: BITCOUNT ranges, as redis-server answers them") {
  struct Case {
    long long start, end;
    Unit unit;
    int64_t want;
  };
  // SET f foobar; BITCOUNT f <start> <end> [BIT]
  const Case cases[] = {
      {0, 0, Unit::kByte, 4},   {1, 1, Unit::kByte, 6},     {0, -1, Unit::kByte, 26},
      {-2, -1, Unit::kByte, 7}, {-1, -2, Unit::kByte, 0},   {2, 1, Unit::kByte, 0},
      {0, 100, Unit::kByte, 26}, {-100, -1, Unit::kByte, 26}, {-100, -200, Unit::kByte, 0},
      {100, 200, Unit::kByte, 0}, {5, 30, Unit::kBit, 17},  {1, 1, Unit::kBit, 1},
      {-1, -1, Unit::kBit, 0},  {47, 47, Unit::kBit, 0},    {48, 100, Unit::kBit, 0},
      {9, 14, Unit::kBit, 5},   {LLONG_MIN, LLONG_MAX, Unit::kByte, 26},
      {0, LLONG_MAX, Unit::kBit, 26},
  };
  for (const Case& c : cases) {
    CAPTURE(c.start);
    CAPTURE(c.end);
    CHECK(count_range("foobar", c.start, c.end, c.unit) == c.want);
  }
  CHECK(count_range("", 0, -1, Unit::kByte) == 0);
  CHECK(count_range("", 0, -1, Unit::kBit) == 0);
}

TEST_CASE("bits: BITCOUNT ranges against a bit-by-bit count") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20000; ++round) {
    const std::string s = random_bytes(rng, 40);
    const long long span = static_cast<long long>(s.size()) * 8 + 20;
    const long long start = static_cast<long long>(rng() % (2 * span)) - span;
    const long long end = static_cast<long long>(rng() % (2 * span)) - span;
    const Unit unit = rng() & 1 ? Unit::kBit : Unit::kByte;
    CAPTURE(s.size());
    CAPTURE(start);
    CAPTURE(end);
    REQUIRE(count_range(s, start, end, unit) == model_count(s, start, end, unit));
  }
}

TEST_CASE("bits: find_bit, the plain search") {
  CHECK(find_bit("", 1) == -1);
  CHECK(find_bit("", 0) == 0);
  CHECK(find_bit("\x00\x00"s, 1) == -1);
  CHECK(find_bit("\xff\xff", 0) == 16);  // the zero padding's first bit
  CHECK(find_bit("\x00\x10"s, 1) == 11);
  CHECK(find_bit("\xff\xef", 0) == 11);
  CHECK(find_bit(std::string(20, '\0') + "\x01", 1) == 167);
  CHECK(find_bit(std::string(20, '\xff') + "\xfe", 0) == 167);
}

TEST_CASE("bits: BITPOS, as redis-server answers it") {
  struct Case {
    int bit;
    long long start;
    std::optional<long long> end;
    Unit unit;
    int64_t want;
  };
  // SET p "\xff\xf0\x00"; BITPOS p <bit> [start [end [BIT]]]
  const Case cases[] = {
      {0, 0, std::nullopt, Unit::kByte, 12}, {1, 0, std::nullopt, Unit::kByte, 0},
      {1, 2, std::nullopt, Unit::kByte, -1}, {0, 2, std::nullopt, Unit::kByte, 16},
      {0, 0, 0, Unit::kByte, -1},            {0, 0, -1, Unit::kByte, 12},
      {1, 5, -1, Unit::kBit, 5},             {0, 3, 5, Unit::kBit, -1},
      {0, 8, 11, Unit::kBit, -1},            {0, 8, 12, Unit::kBit, 12},
      {1, 12, 23, Unit::kBit, -1},           {0, 100, std::nullopt, Unit::kByte, -1},
      {0, 100, 200, Unit::kBit, -1},         {1, 20, 10, Unit::kBit, -1},
      {0, -4, -1, Unit::kBit, 20},           {1, 9, 9, Unit::kBit, 9},
  };
  for (const Case& c : cases) {
    CAPTURE(c.bit);
    CAPTURE(c.start);
    CHECK(position("\xff\xf0\x00"s, c.bit, c.start, c.end, c.unit) == c.want);
  }
  // Without end a search for 0 runs into the padding; with end it stops.
  CHECK(position("\xff\xff", 0, 0, std::nullopt, Unit::kBit) == 16);
  CHECK(position("\xff\xff", 0, 3, std::nullopt, Unit::kBit) == 16);
  CHECK(position("\xff\xff", 0, 0, -1, Unit::kBit) == -1);
  CHECK(position("", 0, 0, std::nullopt, Unit::kByte) == -1);  // an empty range: neither 0 nor 1
}

TEST_CASE("bits: BITPOS against a bit-by-bit search") {
  std::mt19937_64 rng(13);
  for (int round = 0; round < 40000; ++round) {
    const std::string s = random_bytes(rng, 40);
    const long long span = static_cast<long long>(s.size()) * 8 + 20;
    const int bit = static_cast<int>(rng() & 1);
    const long long start = static_cast<long long>(rng() % (2 * span)) - span;
    std::optional<long long> end;
    if (rng() % 3) end = static_cast<long long>(rng() % (2 * span)) - span;
    const Unit unit = rng() & 1 ? Unit::kBit : Unit::kByte;
    CAPTURE(s.size());
    CAPTURE(bit);
    CAPTURE(start);
    CAPTURE(end.value_or(-999999));
    CAPTURE(unit == Unit::kBit);
    REQUIRE(position(s, bit, start, end, unit) == model_position(s, bit, start, end, unit));
  }
}

TEST_CASE("bits: BITOP pads shorter sources with zeros") {
  const std::string a = "\x0f\xf0\xaa"s, c = "\xff\x0f"s;
  const std::vector<std::string_view> ac{a, c};
  CHECK(bitop(Op::kAnd, ac) == "\x0f\x00\x00"s);
  CHECK(bitop(Op::kOr, ac) == "\xff\xff\xaa"s);
  CHECK(bitop(Op::kXor, ac) == "\xf0\xff\xaa"s);
  const std::vector<std::string_view> just_a{a};
  CHECK(bitop(Op::kNot, just_a) == "\xf0\x0f\x55"s);
  const std::vector<std::string_view> empties{"", ""};
  CHECK(bitop(Op::kOr, empties).empty());
  const std::vector<std::string_view> empty_first{"", a};
  CHECK(bitop(Op::kAnd, empty_first) == "\x00\x00\x00"s);
  CHECK(bitop(Op::kOr, empty_first) == a);

  std::mt19937_64 rng(17);
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::string> owned(1 + rng() % 4);
    for (auto& s : owned) s = random_bytes(rng, 80);
    const std::vector<std::string_view> srcs(owned.begin(), owned.end());
    const Op op = static_cast<Op>(rng() % 3);
    size_t longest = 0;
    for (const auto& s : owned) longest = std::max(longest, s.size());
    std::string want(longest, '\0');
    for (size_t i = 0; i < longest; ++i) {
      auto at = [&](size_t k) { return i < owned[k].size() ? static_cast<unsigned char>(owned[k][i]) : 0u; };
      unsigned v = at(0);
      for (size_t k = 1; k < owned.size(); ++k) v = op == Op::kAnd ? v & at(k) : op == Op::kOr ? v | at(k) : v ^ at(k);
      want[i] = static_cast<char>(v);
    }
    REQUIRE(bitop(op, srcs) == want);
  }
}

TEST_CASE("bits: bitfield types and offsets, as Redis parses them") {
  CHECK(parse_field_type("u8")->bits == 8);
  CHECK_FALSE(parse_field_type("u8")->is_signed);
  CHECK(parse_field_type("i64")->is_signed);
  CHECK(parse_field_type("u63")->bits == 63);
  CHECK(parse_field_type("i1")->bits == 1);
  CHECK(parse_field_type("i8\0junk"s)->bits == 8);  // the digits end at a NUL
  for (const std::string& bad : {"u64"s, "i65"s, "u0"s, "i0"s, "U8"s, "I8"s, "x8"s, ""s, "u"s, "u08"s, "u+8"s,
                                "u 8"s, "u-1"s, "\0u8"s, "u8 "s})
    CHECK_FALSE(parse_field_type(bad).has_value());

  constexpr int64_t kMax = 512LL * 1024 * 1024;
  CHECK(parse_bit_offset("0", false, 0, kMax) == 0u);
  CHECK(parse_bit_offset("4294967295", false, 0, kMax) == 4294967295u);
  CHECK_FALSE(parse_bit_offset("4294967296", false, 0, kMax));
  CHECK_FALSE(parse_bit_offset("-1", false, 0, kMax));
  CHECK_FALSE(parse_bit_offset("#1", false, 8, kMax));  // # is BITFIELD's only
  CHECK_FALSE(parse_bit_offset("1\0"s, false, 0, kMax));
  CHECK_FALSE(parse_bit_offset("", true, 8, kMax));
  CHECK(parse_bit_offset("#3", true, 8, kMax) == 24u);
  CHECK(parse_bit_offset("#0", true, 64, kMax) == 0u);
  CHECK_FALSE(parse_bit_offset("#", true, 8, kMax));
  CHECK_FALSE(parse_bit_offset("##1", true, 8, kMax));
  CHECK_FALSE(parse_bit_offset("#-1", true, 8, kMax));
  CHECK_FALSE(parse_bit_offset("#536870912", true, 8, kMax));
  CHECK(parse_bit_offset("#536870911", true, 8, kMax) == 4294967288u);
  // Redis's product wraps modulo 2^64: 8 * (2^62 + 1) is 8.
  CHECK(parse_bit_offset("#4611686018427387905", true, 8, kMax) == 8u);
  CHECK_FALSE(parse_bit_offset("#9223372036854775807", true, 8, kMax));
  CHECK_FALSE(parse_bit_offset("8388608", false, 0, 1 << 20));
  CHECK(parse_bit_offset("8388607", false, 0, 1 << 20) == 8388607u);
}

TEST_CASE("bits: bitfield reads, zero padded, signed and unsigned") {
  const std::string s = "\xff\x00\x80"s;
  CHECK(get_field(s, 0, {false, 8}) == 255);
  CHECK(get_field(s, 0, {true, 8}) == -1);
  CHECK(get_field(s, 4, {false, 8}) == 0xf0);
  CHECK(get_field(s, 16, {true, 1}) == -1);
  CHECK(get_field(s, 16, {true, 2}) == -2);
  CHECK(get_field(s, 16, {false, 63}) == 0x4000000000000000LL);
  CHECK(get_field(s, 0, {true, 64}) == static_cast<int64_t>(0xff00800000000000ULL));
  CHECK(get_field(s, 7, {false, 63}) == static_cast<int64_t>(0x8040000000000000ULL >> 1));
  CHECK(get_field(s, 1000, {true, 64}) == 0);
  CHECK(get_field("", 0, {false, 63}) == 0);
}

TEST_CASE("bits: bitfield SET and INCRBY, as redis-server answers them") {
  struct Case {
    FieldOpKind kind;
    bool is_signed;
    unsigned bits;
    Overflow overflow;
    int64_t start;  // the field's value before
    int64_t arg;
    bool failed;
    int64_t reply;
    int64_t after;
  };
  const auto kSet = FieldOpKind::kSet, kIncr = FieldOpKind::kIncrBy;
  const Case cases[] = {
      {kSet, false, 2, Overflow::kWrap, 0, 5, false, 0, 1},
      {kIncr, false, 2, Overflow::kWrap, 1, 3, false, 0, 0},
      {kIncr, false, 2, Overflow::kWrap, 0, -5, false, 3, 3},
      {kIncr, false, 2, Overflow::kSat, 3, 10, false, 3, 3},
      {kIncr, false, 2, Overflow::kSat, 3, -10, false, 0, 0},
      {kSet, false, 2, Overflow::kSat, 0, -1, false, 0, 3},  // -1 reads as 2^64 - 1
      {kIncr, false, 2, Overflow::kFail, 3, 1, true, 0, 3},
      {kIncr, false, 2, Overflow::kFail, 0, -1, true, 0, 0},
      {kSet, true, 4, Overflow::kWrap, 0, 8, false, 0, -8},
      {kSet, true, 4, Overflow::kWrap, 0, -9, false, 0, 7},
      {kSet, true, 4, Overflow::kWrap, 0, 100, false, 0, 4},
      {kIncr, true, 4, Overflow::kWrap, 7, 1, false, -8, -8},
      {kIncr, true, 4, Overflow::kSat, 7, 100, false, 7, 7},
      {kIncr, true, 4, Overflow::kSat, 7, -100, false, -8, -8},
      {kSet, true, 4, Overflow::kSat, 0, -9, false, 0, -8},
      // Redis's quirk (model_write): below -2^63 + 2^(bits-1) SAT stores max.
      {kSet, true, 8, Overflow::kSat, 0, INT64_MIN, false, 0, 127},
      {kSet, true, 8, Overflow::kSat, 0, INT64_MIN + 127, false, 0, 127},
      {kSet, true, 8, Overflow::kSat, 0, INT64_MIN + 128, false, 0, -128},
      {kSet, true, 35, Overflow::kSat, 0, INT64_MIN, false, 0, (1LL << 34) - 1},
      {kSet, true, 8, Overflow::kFail, 5, INT64_MIN, true, 0, 5},
      {kSet, true, 8, Overflow::kWrap, 0, INT64_MIN, false, 0, 0},
      {kSet, true, 4, Overflow::kFail, 3, 8, true, 0, 3},
      {kIncr, true, 64, Overflow::kWrap, INT64_MAX, 1, false, INT64_MIN, INT64_MIN},
      {kIncr, true, 64, Overflow::kSat, INT64_MIN, INT64_MIN, false, INT64_MIN, INT64_MIN},
      {kIncr, true, 64, Overflow::kSat, 5, INT64_MAX, false, INT64_MAX, INT64_MAX},
      {kIncr, true, 64, Overflow::kFail, INT64_MIN, -1, true, 0, INT64_MIN},
      {kIncr, false, 63, Overflow::kWrap, INT64_MAX, 1, false, 0, 0},
      {kIncr, false, 63, Overflow::kSat, 0, INT64_MIN, false, 0, 0},
      {kIncr, false, 63, Overflow::kFail, 0, -1, true, 0, 0},
      {kIncr, false, 8, Overflow::kWrap, 0, INT64_MAX, false, 255, 255},
      {kIncr, true, 8, Overflow::kWrap, 0, INT64_MAX, false, -1, -1},
      {kIncr, true, 8, Overflow::kWrap, -1, INT64_MIN, false, -1, -1},
      {kSet, true, 1, Overflow::kWrap, 0, 1, false, 0, -1},
      {kIncr, true, 1, Overflow::kSat, -1, 5, false, 0, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.bits);
    CAPTURE(c.start);
    CAPTURE(c.arg);
    std::string s(10, '\0');
    const FieldType type{c.is_signed, c.bits};
    apply_field_op(s, {FieldOpKind::kSet, type, Overflow::kWrap, 3, c.start});
    const FieldResult r = apply_field_op(s, {c.kind, type, c.overflow, 3, c.arg});
    CHECK(r.failed == c.failed);
    if (!c.failed) CHECK(r.reply == c.reply);
    CHECK(get_field(s, 3, type) == c.after);
    CHECK(r.changed == (!c.failed && c.after != c.start));
  }
}

namespace {

// BITFIELD's rules in 128-bit arithmetic: the exact result, then the mode.
// With one quirk of Redis's: a signed SET below max - INT64_MAX (i8: below
// -2^63 + 128) wraps its max - value test, so SAT stores max.
struct ModelResult {
  bool failed;
  int64_t reply, after;
};
ModelResult model_write(FieldOpKind kind, FieldType t, Overflow mode, int64_t old, int64_t arg) {
  const __int128 min = t.is_signed ? -(__int128{1} << (t.bits - 1)) : 0;
  const __int128 max = t.is_signed ? (__int128{1} << (t.bits - 1)) - 1 : (__int128{1} << t.bits) - 1;
  // An unsigned SET reads its value as unsigned 64-bit.
  const __int128 exact = kind == FieldOpKind::kIncrBy ? __int128{old} + arg
                         : t.is_signed               ? __int128{arg}
                                                     : __int128{static_cast<uint64_t>(arg)};
  const bool quirk = kind == FieldOpKind::kSet && t.is_signed && max - exact > INT64_MAX;
  __int128 stored = exact;
  if (exact < min || exact > max) {
    if (mode == Overflow::kFail) return {true, 0, old};
    if (mode == Overflow::kSat) {
      stored = exact > max || quirk ? max : min;
    } else {
      const __int128 span = __int128{1} << t.bits;
      stored = ((exact - min) % span + span) % span + min;
    }
  }
  return {false, kind == FieldOpKind::kIncrBy ? static_cast<int64_t>(stored) : old, static_cast<int64_t>(stored)};
}

}  // namespace

TEST_CASE("bits: bitfield writes against 128-bit arithmetic") {
  std::mt19937_64 rng(19);
  const int64_t interesting[] = {0, 1, -1, 2, -2, 7, -8, 127, -128, 255, INT64_MAX, INT64_MIN, INT64_MAX - 1,
                                 INT64_MIN + 1, 1LL << 62, -(1LL << 62)};
  auto value = [&]() -> int64_t {
    if (rng() % 2) return interesting[rng() % std::size(interesting)];
    return static_cast<int64_t>(rng()) >> (rng() % 64);
  };
  for (int round = 0; round < 200000; ++round) {
    const bool is_signed = rng() & 1;
    const FieldType t{is_signed, static_cast<unsigned>(1 + rng() % (is_signed ? 64 : 63))};
    const Overflow mode = static_cast<Overflow>(rng() % 3);
    const FieldOpKind kind = rng() & 1 ? FieldOpKind::kSet : FieldOpKind::kIncrBy;
    const uint64_t offset = rng() % 20;
    std::string s(12, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    const int64_t old = get_field(s, offset, t);
    const int64_t arg = value();
    CAPTURE(is_signed);
    CAPTURE(t.bits);
    CAPTURE(static_cast<int>(mode));
    CAPTURE(kind == FieldOpKind::kSet);
    CAPTURE(old);
    CAPTURE(arg);
    const std::string before = s;
    const FieldResult r = apply_field_op(s, {kind, t, mode, offset, arg});
    const ModelResult m = model_write(kind, t, mode, old, arg);
    REQUIRE(r.failed == m.failed);
    if (!m.failed) REQUIRE(r.reply == m.reply);
    REQUIRE(get_field(s, offset, t) == m.after);
    REQUIRE(r.changed == (m.after != old));
    // Bits outside the field are left alone.
    bool others_kept = true;
    for (uint64_t i = 0; i < s.size() * 8; ++i)
      if ((i < offset || i >= offset + t.bits) && bit_at(s, i) != bit_at(before, i)) others_kept = false;
    REQUIRE(others_kept);
  }
}

}  // namespace lawnkv::bits
