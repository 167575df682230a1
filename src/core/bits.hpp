#pragma once
// Bit algorithms over byte strings, as Redis 7.0's bitops.c computes them
// (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD). Pure functions: no
// store, no replies; the commands are src/commands/bits_family.cpp.
//
// Bit numbering: bit 0 is the most significant bit of byte 0, bit 8 the most
// significant of byte 1, and so on; a string reads as if followed by zero
// bytes. A bitfield is big-endian over that numbering: "u5 at 7" set to 23 in
// a zeroed string leaves
//
//   byte 0   byte 1
//   00000001 01110000        (bits 7..11 hold 10111 = 23)
//
// Ranges (BITCOUNT, BITPOS) are inclusive and count negative indexes from the
// end (-1 the last byte, or bit with Unit::kBit), clamped into the string:
//   count_range("\xff\xf0", 0, -1, kByte) = 12   (1, -1, kByte) = 4
//   count_range("\xff\xf0", 5, 9, kBit)   = 5    (bits 5..9: 111 11)
//   position("\xff\xf0", 0, 0, {}, kByte) = 12
//   position("\xff\xff", 0, 0, {}, kByte) = 16   (no end given: the string
//   is zero padded)             ("\xff\xff", 0, 0, 1, kByte) = -1

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace lawnkv::bits {

// The bit at offset (0 beyond the end).
inline int get_bit(std::string_view s, uint64_t offset) {
  const uint64_t byte = offset >> 3;
  if (byte >= s.size()) return 0;
  return (static_cast<unsigned char>(s[byte]) >> (7 - (offset & 7))) & 1;
}

// Sets the bit at offset of p (which holds it) to on (0 or 1); returns the
// bit it held.
inline int set_bit(char* p, uint64_t offset, int on) {
  unsigned char& byte = reinterpret_cast<unsigned char&>(p[offset >> 3]);
  const unsigned shift = 7 - (offset & 7);
  const int old = (byte >> shift) & 1;
  byte = static_cast<unsigned char>((byte & ~(1u << shift)) | (static_cast<unsigned>(on) << shift));
  return old;
}

// Bits set in s.
uint64_t popcount(std::string_view s);

// Whether a range counts bytes (the default) or bits.
enum class Unit { kByte, kBit };

// BITCOUNT key start end [BYTE|BIT]: bits set in the range (0 when empty).
int64_t count_range(std::string_view s, long long start, long long end, Unit unit);

// The first bit equal to `bit` (0 or 1) in s: its offset; for 1 none is -1,
// for 0 none is s.size() * 8 (the zero padding's first bit): Redis's
// redisBitpos.
int64_t find_bit(std::string_view s, int bit);

// BITPOS key bit [start [end [BYTE|BIT]]]: the first bit equal to `bit` in
// the range, -1 if none. Without end, a search for 0 that finds none in the
// string answers the first bit past it; with end, -1. The whole string is
// position(s, bit, 0, std::nullopt, Unit::kByte).
int64_t position(std::string_view s, int bit, long long start, std::optional<long long> end, Unit unit);

// --- BITOP ---------------------------------------------------------------

enum class Op { kAnd, kOr, kXor, kNot };

// op over the sources, each read as zero padded to the longest: a string as
// long as the longest source, empty when all are (NOT takes one source).
std::string bitop(Op op, std::span<const std::string_view> sources);

// --- BITFIELD --------------------------------------------------------------

// A field's type: i1..i64 or u1..u63 (u64 would not fit a RESP integer).
struct FieldType {
  bool is_signed = false;
  unsigned bits = 0;
};

// "i16", "u8"... as Redis reads it (the digits end at a NUL byte); nullopt
// for anything else, u64 included.
std::optional<FieldType> parse_field_type(std::string_view arg);

// A bit offset argument of SETBIT, GETBIT and BITFIELD: a 64-bit integer,
// or with hash (BITFIELD) "#N" for N * field_bits (multiplied modulo 2^64,
// as Redis's long long product wraps); nullopt when not an integer,
// negative, or when offset / 8 >= max_bytes (proto-max-bulk-len).
std::optional<uint64_t> parse_bit_offset(std::string_view arg, bool hash, unsigned field_bits,
                                         int64_t max_bytes);

// What INCRBY and SET do with a result the field cannot hold.
enum class Overflow {
  kWrap,  // keep the low bits (signed: two's complement of the width)
  kSat,   // the nearest bound: max on overflow, min (0 unsigned) on underflow
  kFail,  // leave the field, reply null
};

enum class FieldOpKind { kGet, kSet, kIncrBy };

struct FieldOp {
  FieldOpKind kind = FieldOpKind::kGet;
  FieldType type;
  Overflow overflow = Overflow::kWrap;
  uint64_t offset = 0;
  int64_t arg = 0;  // SET's value or INCRBY's increment
};

struct FieldResult {
  bool failed = false;  // Overflow::kFail refused the write: reply null
  int64_t reply = 0;    // GET: the value; SET: the old value; INCRBY: the new
  bool changed = false;  // the field's value changed
};

// GET: the field at offset of s, zero padded.
int64_t get_field(std::string_view s, uint64_t offset, FieldType type);

// Runs op on bytes: a write (SET, INCRBY) needs bytes to cover its last bit;
// a GET reads zero padding past the end.
FieldResult apply_field_op(std::span<char> bytes, const FieldOp& op);

// The overflow rules alone (Redis's check*BitfieldOverflow): 0 when
// value + incr fits the field, 1 on overflow, -1 on underflow; when it does
// not fit, *limit is what kWrap or kSat stores (untouched for kFail).
int check_unsigned_overflow(uint64_t value, int64_t incr, unsigned bits, Overflow mode, uint64_t* limit);
int check_signed_overflow(int64_t value, int64_t incr, unsigned bits, Overflow mode, int64_t* limit);

}  // namespace lawnkv::bits
