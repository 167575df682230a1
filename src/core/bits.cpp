#include "core/bits.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/ascii.hpp"
#include "core/numbers.hpp"

namespace lawnkv::bits {

namespace {

const unsigned char* bytes_of(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

uint64_t load_word(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Bits set in w, without the popcnt instruction (the build targets plain
// x86-64): the usual SWAR sum, pairs, nibbles, then bytes by multiplication.
uint64_t swar_count(uint64_t w) {
  w = w - ((w >> 1) & 0x5555555555555555ULL);
  w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
  w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return (w * 0x0101010101010101ULL) >> 56;
}

// The edges of a BIT range converted to bytes: the masks of the first and
// last byte's bits outside the range (Redis's first_byte_neg_mask and
// last_byte_neg_mask), 0 when the edge is whole.
struct ByteRange {
  long long start, end;  // bytes, inclusive; start > end: empty
  unsigned char first_outside = 0, last_outside = 0;
};

// Redis's range rules, shared by BITCOUNT and BITPOS: negative indexes from
// the end, clamped into [0, length - 1] (of bytes or bits).
ByteRange clamp_range(size_t size, long long start, long long end, Unit unit) {
  long long total = static_cast<long long>(size);
  if (unit == Unit::kBit) total <<= 3;
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  ByteRange r{start, end};
  if (unit == Unit::kBit && start <= end) {
    r.first_outside = static_cast<unsigned char>(~((1u << (8 - (start & 7))) - 1) & 0xff);
    r.last_outside = static_cast<unsigned char>((1u << (7 - (end & 7))) - 1);
    r.start >>= 3;
    r.end >>= 3;
  }
  return r;
}

}  // namespace

uint64_t popcount(std::string_view s) {
  const unsigned char* p = bytes_of(s);
  size_t n = s.size();
  uint64_t count = 0;
  // Four words per step: independent sums the CPU can overlap.
  while (n >= 32) {
    count += swar_count(load_word(p)) + swar_count(load_word(p + 8)) + swar_count(load_word(p + 16)) +
             swar_count(load_word(p + 24));
    p += 32;
    n -= 32;
  }
  while (n >= 8) {
    count += swar_count(load_word(p));
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  if (n > 0) std::memcpy(&tail, p, n);
  return count + swar_count(tail);
}

int64_t count_range(std::string_view s, long long start, long long end, Unit unit) {
  if (start < 0 && end < 0 && start > end) return 0;
  const ByteRange r = clamp_range(s.size(), start, end, unit);
  if (r.start > r.end) return 0;
  const unsigned char* p = bytes_of(s);
  int64_t count = static_cast<int64_t>(popcount(s.substr(r.start, r.end - r.start + 1)));
  // The edge bytes were counted whole: take back their bits outside.
  count -= swar_count(p[r.start] & r.first_outside);
  count -= swar_count(p[r.end] & r.last_outside);
  return count;
}

int64_t find_bit(std::string_view s, int bit) {
  const unsigned char* p = bytes_of(s);
  const size_t n = s.size();
  const uint64_t skip_word = bit ? 0 : ~0ULL;
  const unsigned char skip_byte = bit ? 0 : 0xff;
  size_t i = 0;
  while (i + 8 <= n && load_word(p + i) == skip_word) i += 8;
  while (i < n && p[i] == skip_byte) ++i;
  if (i == n) return bit ? -1 : static_cast<int64_t>(n) * 8;
  const unsigned byte = bit ? p[i] : static_cast<unsigned char>(~p[i]);
  // byte != 0: the offset of its most significant set bit.
  return static_cast<int64_t>(i) * 8 + (__builtin_clz(byte) - 24);
}

int64_t position(std::string_view s, int bit, long long start, std::optional<long long> end_arg, Unit unit) {
  const long long size = static_cast<long long>(s.size());
  // Without end, the range runs to the string's last byte (or bit).
  const long long end = end_arg ? *end_arg : (unit == Unit::kBit ? (size << 3) + 7 : size - 1);
  const ByteRange r = clamp_range(s.size(), start, end, unit);
  if (r.start > r.end) return -1;  // an empty range has neither 0 nor 1

  const unsigned char* p = bytes_of(s);
  long long first = r.start;
  long long bytes = r.end - r.start + 1;
  // An edge byte with bits outside the range: those bits are forced to the
  // value not sought, so they cannot match.
  auto edge = [&](unsigned char byte, unsigned char outside) {
    return static_cast<unsigned char>(bit ? (byte & ~outside) : (byte | outside));
  };
  int64_t pos;
  // Redis searches the first edge byte, the middle, then the last edge byte,
  // stopping at a match; pos is relative to `first`, and a search that ran
  // off its part's end (pos == its bits, for 0) goes on to the next.
  auto search = [&]() -> int64_t {
    if (r.first_outside) {
      unsigned char c = edge(p[first], r.first_outside);
      if (bytes == 1 && r.last_outside) c = edge(c, r.last_outside);
      const int64_t at = find_bit(std::string_view(reinterpret_cast<const char*>(&c), 1), bit);
      if (bytes == 1 || (at != -1 && at != 8)) return at;
      ++first;
      --bytes;
    }
    const long long middle = bytes - (r.last_outside ? 1 : 0);
    if (middle > 0) {
      const int64_t at = find_bit(s.substr(first, middle), bit);
      if (bytes == middle || (at != -1 && at != middle << 3)) return at;
      first += middle;
      bytes -= middle;
    }
    const unsigned char c = edge(p[r.end], r.last_outside);
    return find_bit(std::string_view(reinterpret_cast<const char*>(&c), 1), bit);
  };
  pos = search();
  // A search for 0 that ran past an explicit end found nothing in range.
  if (end_arg && bit == 0 && pos == bytes << 3) return -1;
  if (pos != -1) pos += first << 3;
  return pos;
}

std::string bitop(Op op, std::span<const std::string_view> sources) {
  size_t longest = 0;
  for (std::string_view src : sources) longest = std::max(longest, src.size());
  if (longest == 0) return {};
  std::string out(longest, '\0');
  if (!sources[0].empty()) std::memcpy(out.data(), sources[0].data(), sources[0].size());
  unsigned char* o = reinterpret_cast<unsigned char*>(out.data());
  if (op == Op::kNot) {
    for (size_t i = 0; i < longest; ++i) o[i] = static_cast<unsigned char>(~o[i]);
    return out;
  }
  for (std::string_view src : sources.subspan(1)) {
    const unsigned char* p = bytes_of(src);
    const size_t n = src.size();
    switch (op) {
      case Op::kAnd:
        for (size_t i = 0; i < n; ++i) o[i] &= p[i];
        std::memset(o + n, 0, longest - n);  // past its end a source is zeros
        break;
      case Op::kOr:
        for (size_t i = 0; i < n; ++i) o[i] |= p[i];
        break;
      case Op::kXor:
        for (size_t i = 0; i < n; ++i) o[i] ^= p[i];
        break;
      case Op::kNot: break;
    }
  }
  return out;
}

// --- BITFIELD --------------------------------------------------------------

std::optional<FieldType> parse_field_type(std::string_view arg) {
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u')) return std::nullopt;
  const bool is_signed = arg[0] == 'i';
  long long bits;
  // Redis reads the digits with strlen: a NUL byte ends them.
  if (!string_to_ll(c_string(arg.substr(1)), &bits) || bits < 1 || bits > (is_signed ? 64 : 63))
    return std::nullopt;
  return FieldType{is_signed, static_cast<unsigned>(bits)};
}

std::optional<uint64_t> parse_bit_offset(std::string_view arg, bool hash, unsigned field_bits,
                                         int64_t max_bytes) {
  const bool use_hash = hash && field_bits > 0 && !arg.empty() && arg[0] == '#';
  long long offset;
  if (!string_to_ll(arg.substr(use_hash ? 1 : 0), &offset)) return std::nullopt;
  if (use_hash) offset = static_cast<long long>(static_cast<uint64_t>(offset) * field_bits);
  if (offset < 0 || (offset >> 3) >= max_bytes) return std::nullopt;
  return static_cast<uint64_t>(offset);
}

namespace {

uint64_t get_unsigned(const unsigned char* p, uint64_t offset, unsigned bits) {
  uint64_t value = 0;
  for (unsigned j = 0; j < bits; ++j, ++offset)
    value = (value << 1) | ((p[offset >> 3] >> (7 - (offset & 7))) & 1);
  return value;
}

void set_unsigned(unsigned char* p, uint64_t offset, unsigned bits, uint64_t value) {
  for (unsigned j = 0; j < bits; ++j, ++offset) {
    const unsigned bit = (value >> (bits - 1 - j)) & 1;
    const unsigned shift = 7 - (offset & 7);
    unsigned char& byte = p[offset >> 3];
    byte = static_cast<unsigned char>((byte & ~(1u << shift)) | (bit << shift));
  }
}

// The low `bits` of raw as a two's complement number of that width.
int64_t sign_extend(uint64_t raw, unsigned bits) {
  if (bits < 64 && (raw & (1ULL << (bits - 1)))) raw |= ~0ULL << bits;
  return static_cast<int64_t>(raw);
}

}  // namespace

int64_t get_field(std::string_view s, uint64_t offset, FieldType type) {
  // The field spans at most 9 bytes from its first: copy them zero padded.
  unsigned char buf[9] = {};
  const uint64_t byte = offset >> 3;
  for (uint64_t i = 0; i < 9 && byte + i < s.size(); ++i) buf[i] = static_cast<unsigned char>(s[byte + i]);
  const uint64_t raw = get_unsigned(buf, offset & 7, type.bits);
  return type.is_signed ? sign_extend(raw, type.bits) : static_cast<int64_t>(raw);
}

int check_unsigned_overflow(uint64_t value, int64_t incr, unsigned bits, Overflow mode, uint64_t* limit) {
  const uint64_t max = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
  const int64_t max_incr = static_cast<int64_t>(max - value);
  const int64_t min_incr = static_cast<int64_t>(-value);
  int result;
  if (value > max || (incr > 0 && incr > max_incr)) {
    result = 1;
    if (mode == Overflow::kSat) *limit = max;
  } else if (incr < 0 && incr < min_incr) {
    result = -1;
    if (mode == Overflow::kSat) *limit = 0;
  } else {
    return 0;
  }
  if (mode == Overflow::kWrap) {
    const uint64_t sum = value + static_cast<uint64_t>(incr);
    *limit = bits == 64 ? sum : sum & ~(~0ULL << bits);
    // Redis's wrap path returns 1 even for an underflow.
    result = 1;
  }
  return result;
}

int check_signed_overflow(int64_t value, int64_t incr, unsigned bits, Overflow mode, int64_t* limit) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  // Computed modulo 2^64, as Redis does (their overflow is harmless: each
  // is used only once value is known to be in range).
  const int64_t max_incr = static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const int64_t min_incr = static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  int result;
  if (value > max || (bits != 64 && incr > max_incr) || (value >= 0 && incr > 0 && incr > max_incr)) {
    result = 1;
    if (mode == Overflow::kSat) *limit = max;
  } else if (value < min || (bits != 64 && incr < min_incr) || (value < 0 && incr < 0 && incr < min_incr)) {
    result = -1;
    if (mode == Overflow::kSat) *limit = min;
  } else {
    return 0;
  }
  if (mode == Overflow::kWrap) {
    const uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    *limit = sign_extend(bits == 64 ? sum : sum & ~(~0ULL << bits), bits);
    result = 1;
  }
  return result;
}

FieldResult apply_field_op(std::span<char> bytes, const FieldOp& op) {
  if (op.kind == FieldOpKind::kGet)
    return {false, get_field(std::string_view(bytes.data(), bytes.size()), op.offset, op.type), false};
  unsigned char* p = reinterpret_cast<unsigned char*>(bytes.data());
  const unsigned bits = op.type.bits;
  const bool incr = op.kind == FieldOpKind::kIncrBy;
  FieldResult r;
  if (op.type.is_signed) {
    const int64_t old = sign_extend(get_unsigned(p, op.offset, bits), bits);
    int64_t wrapped = 0, value;
    int overflow;
    if (incr) {
      overflow = check_signed_overflow(old, op.arg, bits, op.overflow, &wrapped);
      value = overflow ? wrapped : old + op.arg;
      r.reply = value;
    } else {
      overflow = check_signed_overflow(op.arg, 0, bits, op.overflow, &wrapped);
      value = overflow ? wrapped : op.arg;
      r.reply = old;
    }
    if (overflow && op.overflow == Overflow::kFail) return {true, 0, false};
    set_unsigned(p, op.offset, bits, static_cast<uint64_t>(value));
    r.changed = old != value;
  } else {
    const uint64_t old = get_unsigned(p, op.offset, bits);
    uint64_t wrapped = 0, value;
    int overflow;
    if (incr) {
      overflow = check_unsigned_overflow(old, op.arg, bits, op.overflow, &wrapped);
      value = overflow ? wrapped : old + static_cast<uint64_t>(op.arg);
      r.reply = static_cast<int64_t>(value);
    } else {
      const uint64_t arg = static_cast<uint64_t>(op.arg);
      overflow = check_unsigned_overflow(arg, 0, bits, op.overflow, &wrapped);
      value = overflow ? wrapped : arg;
      r.reply = static_cast<int64_t>(old);
    }
    if (overflow && op.overflow == Overflow::kFail) return {true, 0, false};
    set_unsigned(p, op.offset, bits, value);
    r.changed = old != value;
  }
  return r;
}

}  // namespace lawnkv::bits
