#include "types/zset_pack.hpp"

#include <cmath>
#include <cstdlib>
#include <iterator>
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
  // back to a exactly. Past 2^53 neither m nor larger e can serve (inf, NaN
  // and huge scores stop at once).
  for (size_t e = 0; e < std::size(kPow10) && a * kPow10[e] < kExact; ++e) {
    const double m = std::nearbyint(a * kPow10[e]);
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

size_t ZPack::find(std::string_view member, double* score) const {
  // Only the entry found has its score decoded; the others are skipped by
  // their tag.
  for (size_t off = 0; off < bytes_;) {
    std::string_view m;
    const size_t s = member_at(off, &m);
    const auto* p = reinterpret_cast<const unsigned char*>(buf_ + s);
    if (m == member) {
      *score = decode_score(p);
      return off;
    }
    off = s + 1 + score_bytes(*p);
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

void ZPack::insert_at(size_t off, std::string_view member, double score) {
  // Redis's listpack keeps an integral score as an integer: -0 becomes 0.
  if (score == 0) score = 0;
  unsigned char head[5];
  size_t head_n = 1;
  if (member.size() < kLongLen) {
    head[0] = static_cast<unsigned char>(member.size());
  } else {
    head[0] = kLongLen;
    const uint32_t l = static_cast<uint32_t>(member.size());
    std::memcpy(head + 1, &l, 4);
    head_n = 5;
  }
  unsigned char sc[kMaxScoreBytes];
  const size_t sc_n = encode_score(score, sc);
  const size_t n = head_n + member.size() + sc_n;
  const size_t old = bytes_;
  resize(old + n);
  char* at = buf_ + off;
  std::memmove(at + n, at, old - off);
  std::memcpy(at, head, head_n);
  if (!member.empty()) std::memcpy(at + head_n, member.data(), member.size());
  std::memcpy(at + head_n + member.size(), sc, sc_n);
  ++count_;
}

void ZPack::erase(size_t from, size_t to, size_t n) {
  if (from == to) return;
  std::memmove(buf_ + from, buf_ + to, bytes_ - to);
  resize(bytes_ - (to - from));
  count_ -= static_cast<uint32_t>(n);
}

}  // namespace lawnkv::types
