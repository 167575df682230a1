#pragma once
// The "listpack" encoding of a sorted set (types/zset.hpp): its members in
// order, (score, member bytes) ascending, packed in one byte buffer.
//
//   tag     1 B: how the score is written (below)
//   len     1 B, or 0xFF and 4 B for a member of 255 bytes or more
//   bytes   len bytes
//   score   0 to 8 B
//
// The tag comes first: an entry's length is known from its first two bytes,
// read together, so a walk over the entries waits on one load per entry.
//
// A score that is a short decimal, sign * m / 10^e with m < 2^53 and
// e <= 14, is written as m in n = 0..7 bytes, little-endian, with
// tag = e << 4 | sign << 3 | n; reading it back is one division of two
// exact doubles, which IEEE 754 rounds to the nearest double, and the
// encoder keeps this form only when that division gives back the very
// bits it was given (so -0.0 is tag 0x08 and no byte). Every other double
// (inf, -inf, integers past 2^53, denormals, most random doubles) is tag
// kRawTag and its 8 bytes as they are in memory. Worked example, member
// "member:000000001": 1.5 is m = 15, e = 1: 17 + 2 = 19 bytes in all;
// 1700000000123 (a time in ms) is e = 0, m in 6 bytes: 24; 0.1 is m = 1,
// e = 1: 19; 0.1 + 0.2 (0.30000000000000004, 17 digits) is raw: 26.
// Redis's listpack writes a score as the text of "%.17g" ("1.5", 5 bytes
// with its header; 0.1 as "0.10000000000000001", 21) or as an integer of
// 1 to 9 bytes, and adds 2 bytes of header and back length to each member.
//
// Every operation walks the buffer, as Redis's listpack does: the encoding
// holds at most zset-max-listpack-entries members (128 by default), a few
// cache lines. Offsets into the buffer name entries; they stay valid until
// it changes. The buffer is reallocated to its exact size on each insert
// and erase, as a listpack is (jemalloc resizes in place within a size
// class), and is never more than kMaxBytes (ZSet converts to a skiplist
// before, as Redis does past 1 GB), so 32 bits hold its length.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace lawnkv::types {

// The score codec of ZPack, exposed for tests. encode_score writes the tag
// then the score's bytes to out (room for kMaxScoreBytes) and returns how
// many in all; decode_score reads them back from the same layout, bit for
// bit the double encoded.
constexpr size_t kMaxScoreBytes = 9;
size_t encode_score(double score, unsigned char* out);
double decode_score(const unsigned char* p);

class ZPack {
 public:
  struct Item {
    std::string_view member;
    double score;
    size_t next;  // offset of the entry after this one
  };
  // The longest buffer: an insert that would pass it must convert first.
  static constexpr size_t kMaxBytes = size_t{1} << 30;
  // Bytes an entry takes beyond its member's: tag, length and score.
  static constexpr size_t kMaxEntryOverhead = 5 + kMaxScoreBytes;

  ZPack() = default;
  ZPack(const ZPack& other);
  ZPack(ZPack&& other) noexcept : buf_(other.buf_), bytes_(other.bytes_), count_(other.count_) {
    other.buf_ = nullptr;
    other.bytes_ = other.count_ = 0;
  }
  ZPack& operator=(ZPack other) noexcept;
  ~ZPack();

  size_t size() const { return count_; }
  // Offsets of the first entry and one past the last.
  size_t begin() const { return 0; }
  size_t end() const { return bytes_; }
  Item at(size_t off) const;
  // The offset of the entry after the one at off (at(off).next without
  // decoding the score).
  size_t next(size_t off) const;

  // Offset of member's entry (its score in *score, its rank in *rank when
  // not null), or end().
  size_t find(std::string_view member, double* score, size_t* rank = nullptr) const;
  // Adds a member that is not present, at its place in the order. (Here
  // and in push_back and rescore, member must not view this buffer.)
  void insert(std::string_view member, double score) { insert_at(place_of(member, score), member, score, 0); }
  // Adds a member that sorts after every present one.
  void push_back(std::string_view member, double score) { insert_at(bytes_, member, score, 0); }
  // Removes the entries in [from, to), which hold n entries.
  void erase(size_t from, size_t to, size_t n) {
    erase_keep(from, to, n);
    resize(bytes_);
  }
  // Gives the member of the entry at off another score: the entry moves to
  // its new place, reallocating only when its size changes.
  void rescore(size_t off, std::string_view member, double score);

  size_t memory_bytes() const { return sizeof(*this) + bytes_; }

 private:
  static constexpr uint8_t kLongLen = 0xFF;
  // The offset of the member's bytes in the entry at off, and their length.
  size_t member_at(size_t off, size_t* len) const;
  // Bytes of the score after the member, from the tag.
  static size_t score_bytes(uint8_t tag);
  size_t place_of(std::string_view member, double score) const;
  // Writes the entry at off. room: bytes the allocation holds past bytes_
  // (left by erase_keep), used before reallocating; the buffer is left at
  // its exact size.
  void insert_at(size_t off, std::string_view member, double score, size_t room);
  // Removes the entries in [from, to) and leaves the allocation as it is
  // (bytes_ then lags behind it until resize).
  void erase_keep(size_t from, size_t to, size_t n);
  // Reallocates the buffer to exactly bytes (freed when 0).
  void resize(size_t bytes);

  char* buf_ = nullptr;  // malloc'd, exactly bytes_ long: no slack, as a listpack
  uint32_t bytes_ = 0;
  uint32_t count_ = 0;
};

namespace zpack_detail {
constexpr uint8_t kRawTag = 0xF0;  // tags below are decimals
constexpr size_t kMaxExp = 14;     // the largest e (tags of e = 15 are raw)
// 10^e for e = 0..kMaxExp, each exact in a double.
constexpr double kPow10[kMaxExp + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6, 1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14};
// The divisors by tag >> 3 (e << 1 | sign): +10^e and -10^e. IEEE 754
// division is symmetric in sign, so m / -10^e is -(m / 10^e), and 0 / -1
// is -0.0. The last two, for e = 15 (raw tags), are never used.
constexpr auto kDivisors = [] {
  std::array<double, 32> d{};
  for (size_t i = 0; i < 32; ++i) d[i] = (i & 1 ? -1 : 1) * (i / 2 <= kMaxExp ? kPow10[i / 2] : 1);
  return d;
}();

// The score written under tag at p. wide: 8 bytes from p may be read, so m
// comes from one load instead of a loop over its bytes.
inline double decode(uint8_t tag, const unsigned char* p, bool wide) {
  uint64_t u;
  if (tag >= kRawTag) {
    std::memcpy(&u, p, 8);
    return std::bit_cast<double>(u);
  }
  const size_t n = tag & 7;
  if (wide && std::endian::native == std::endian::little) {
    std::memcpy(&u, p, 8);
    u &= (uint64_t{1} << (8 * n)) - 1;  // n <= 7: the shift is at most 56
  } else {
    u = 0;
    for (size_t i = n; i-- > 0;) u = u << 8 | p[i];
  }
  // Exact (m < 2^53), then rounded once by the division, which also sets
  // the sign.
  return static_cast<double>(static_cast<int64_t>(u)) / kDivisors[tag >> 3];
}
}  // namespace zpack_detail

inline double decode_score(const unsigned char* p) { return zpack_detail::decode(p[0], p + 1, false); }

inline size_t ZPack::score_bytes(uint8_t tag) { return tag >= zpack_detail::kRawTag ? 8 : tag & 7; }

inline size_t ZPack::member_at(size_t off, size_t* len) const {
  const auto* p = reinterpret_cast<const unsigned char*>(buf_ + off + 1);
  if (*p != kLongLen) {
    *len = *p;
    return off + 2;
  }
  uint32_t l;
  std::memcpy(&l, p + 1, 4);
  *len = l;
  return off + 6;
}

inline size_t ZPack::next(size_t off) const {
  size_t len;
  const size_t m = member_at(off, &len);
  return m + len + score_bytes(static_cast<uint8_t>(buf_[off]));
}

inline ZPack::Item ZPack::at(size_t off) const {
  size_t len;
  const size_t m = member_at(off, &len);
  const auto tag = static_cast<uint8_t>(buf_[off]);
  const size_t s = m + len;
  return {{buf_ + m, len},
          zpack_detail::decode(tag, reinterpret_cast<const unsigned char*>(buf_ + s), s + 8 <= bytes_),
          s + score_bytes(tag)};
}

}  // namespace lawnkv::types
