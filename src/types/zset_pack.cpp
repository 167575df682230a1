#include "types/zset_pack.hpp"

#include <cmath>
#include <cstdlib>
#include <new>
#include <utility>

#include "types/zset_tree.hpp"

namespace lawnkv::types {

size_t encode_score(double score, unsigned char* out) {
  using zpack_detail::kPow10;
  const bool neg = std::signbit(score);
  const double a = neg ? -score : score;
  constexpr double kExact = 9007199254740992.0;  // 2^53: every integer below is a double
  // The smallest e for which a * 10^e rounds to an integer m that divides
  // back to a exactly (as zpack_detail::decode will). Past 2^53 neither m
  // nor a larger e can serve (inf, NaN and huge scores stop at once). A
  // scaled value further than m * 2^-40 from m is skipped without the
  // division: for a decimal that does divide back the distance is within
  // m * 2^-52 (two roundings of relative 2^-53), so only doubles with no
  // short decimal (most random ones) are turned away early.
  for (size_t e = 0; e <= zpack_detail::kMaxExp; ++e) {
    const double scaled = a * kPow10[e];
    if (!(scaled < kExact)) break;
    // The nearest integer (from 2^52 up every double is one; below, + 0.5
    // is exact enough: a near miss is caught by the division below).
    const double m = scaled >= 0x1p52 ? scaled : static_cast<double>(static_cast<int64_t>(scaled + 0.5));
    if (std::fabs(m - scaled) > m * 0x1p-40) continue;
    if (m / kPow10[e] != a) continue;
    auto u = static_cast<uint64_t>(m);
    size_t n = 0;
    while (u) {
      out[1 + n++] = static_cast<unsigned char>(u);
      u >>= 8;
    }
    out[0] = static_cast<unsigned char>(e << 4 | (neg ? 8 : 0) | n);
    return 1 + n;
  }
  out[0] = zpack_detail::kRawTag;
  std::memcpy(out + 1, &score, 8);
  return 1 + 8;
}

ZPack::ZPack(const ZPack& other) : bytes_(other.bytes_), count_(other.count_) {
  if (!bytes_) return;
  buf_ = static_cast<char*>(std::malloc(bytes_));
  if (!buf_) throw std::bad_alloc();
  std::memcpy(buf_, other.buf_, bytes_);
}

ZPack& ZPack::operator=(ZPack other) noexcept {
  std::swap(buf_, other.buf_);
  std::swap(bytes_, other.bytes_);
  std::swap(count_, other.count_);
  return *this;
}

ZPack::~ZPack() { std::free(buf_); }

void ZPack::resize(size_t bytes) {
  if (bytes == 0) {
    std::free(buf_);
    buf_ = nullptr;
  } else {
    char* p = static_cast<char*>(std::realloc(buf_, bytes));
    if (!p) throw std::bad_alloc();
    buf_ = p;
  }
  bytes_ = static_cast<uint32_t>(bytes);
}


size_t ZPack::find(std::string_view member, double* score, size_t* rank) const {
  // Entries are skipped by their first two bytes; only the one found has
  // its score decoded.
  size_t r = 0;
  for (size_t off = 0; off < bytes_; ++r) {
    size_t len;
    const size_t m = member_at(off, &len);
    if (same_member({buf_ + m, len}, member)) {
      *score = at(off).score;
      if (rank) *rank = r;
      return off;
    }
    off = m + len + score_bytes(static_cast<uint8_t>(buf_[off]));
  }
  return bytes_;
}

size_t ZPack::place_of(std::string_view member, double score) const {
  size_t off = 0;
  while (off < bytes_) {
    const Item it = at(off);
    if (zset_before(score, member, it.score, it.member)) break;
    off = it.next;
  }
  return off;
}

void ZPack::insert_at(size_t off, std::string_view member, double score, size_t room) {
  // Redis's listpack keeps an integral score as an integer: -0 becomes 0.
  if (score == 0) score = 0;
  unsigned char sc[kMaxScoreBytes];
  const size_t sc_n = encode_score(score, sc);
  unsigned char head[6];
  head[0] = sc[0];
  size_t head_n = 2;
  if (member.size() < kLongLen) {
    head[1] = static_cast<unsigned char>(member.size());
  } else {
    head[1] = kLongLen;
    const uint32_t l = static_cast<uint32_t>(member.size());
    std::memcpy(head + 2, &l, 4);
    head_n = 6;
  }
  const size_t n = head_n + member.size() + sc_n - 1;
  const size_t old = bytes_;
  if (n > room) resize(old + n);
  char* at = buf_ + off;
  std::memmove(at + n, at, old - off);
  std::memcpy(at, head, head_n);
  if (!member.empty()) std::memcpy(at + head_n, member.data(), member.size());
  std::memcpy(at + head_n + member.size(), sc + 1, sc_n - 1);
  bytes_ = static_cast<uint32_t>(old + n);
  ++count_;
  if (n < room) resize(bytes_);
}

void ZPack::erase_keep(size_t from, size_t to, size_t n) {
  if (from == to) return;
  std::memmove(buf_ + from, buf_ + to, bytes_ - to);
  bytes_ -= static_cast<uint32_t>(to - from);
  count_ -= static_cast<uint32_t>(n);
}

void ZPack::rescore(size_t off, std::string_view member, double score) {
  // The entry leaves, and comes back at its new place into the room it
  // left: no reallocation when its size stays (one to the exact size when
  // it changes).
  const size_t to = next(off);
  erase_keep(off, to, 1);
  insert_at(place_of(member, score), member, score, to - off);
}

}  // namespace lawnkv::types
