#include "types/hyperloglog.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace lawnkv::hll {

namespace {

// Sparse opcodes (hyperloglog.hpp).
bool op_is_zero(uint8_t b) { return (b & 0xc0) == 0; }
bool op_is_xzero(uint8_t b) { return (b & 0xc0) == 0x40; }
bool op_is_val(uint8_t b) { return (b & 0x80) != 0; }
int zero_len(uint8_t b) { return (b & 0x3f) + 1; }
int xzero_len(uint8_t b0, uint8_t b1) { return (((b0 & 0x3f) << 8) | b1) + 1; }
int val_value(uint8_t b) { return ((b >> 2) & 0x1f) + 1; }
int val_len(uint8_t b) { return (b & 0x3) + 1; }
uint8_t val_op(int value, int len) { return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (len - 1)); }
constexpr int kZeroMaxLen = 64;
constexpr int kValMaxLen = 4;
constexpr size_t kXZeroMaxLen = 16384;

// Appends a run of len zero registers: ZERO up to 64, XZERO above.
void put_zeros(uint8_t* seq, int* n, long len) {
  if (len > kZeroMaxLen) {
    seq[(*n)++] = static_cast<uint8_t>(0x40 | ((len - 1) >> 8));
    seq[(*n)++] = static_cast<uint8_t>((len - 1) & 0xff);
  } else {
    seq[(*n)++] = static_cast<uint8_t>(len - 1);
  }
}

// Walks sparse opcodes in [p, end), calling zeros(run) and vals(value, run);
// vals returns false to stop. An XZERO cut by the end reads its missing byte
// as 0, as Redis reads the string's terminating NUL.
template <class Zeros, class Vals>
void walk_sparse(const uint8_t* p, const uint8_t* end, Zeros&& zeros, Vals&& vals) {
  while (p < end) {
    const uint8_t b = *p;
    if (op_is_zero(b)) {
      zeros(zero_len(b));
      ++p;
    } else if (op_is_xzero(b)) {
      zeros(xzero_len(b, p + 1 < end ? p[1] : 0));
      p += 2;
    } else {
      if (!vals(val_value(b), val_len(b))) return;
      ++p;
    }
  }
}

const uint8_t* body(std::string_view value) { return reinterpret_cast<const uint8_t*>(value.data()) + kHeaderSize; }
const uint8_t* body_end(std::string_view value) { return reinterpret_cast<const uint8_t*>(value.data()) + value.size(); }
uint8_t* body(std::string& value) { return reinterpret_cast<uint8_t*>(value.data()) + kHeaderSize; }

int set_dense(uint8_t* regs, uint32_t index, uint8_t count) {
  if (count <= dense_get(regs, index)) return 0;
  dense_set(regs, index, count);
  return 1;
}

// Redis's promotion inside a sparse set: dense, then the register set there.
int promote_and_set(std::string& value, uint32_t index, uint8_t count) {
  if (!to_dense(value)) return -1;
  set_dense(body(value), index, count);
  return 1;
}

// After a sparse register changed: merges neighbouring VALs of one value
// while their run fits one opcode, scanning at most 5 opcodes from `from`
// (the opcode before the one that changed), as Redis's hllSparseSet does.
void merge_vals(std::string& value, size_t from) {
  size_t p = from;
  int scan = 5;
  while (p < value.size() && scan--) {
    const uint8_t b = static_cast<uint8_t>(value[p]);
    if (op_is_xzero(b)) {
      p += 2;
      continue;
    }
    if (op_is_zero(b)) {
      ++p;
      continue;
    }
    if (p + 1 < value.size()) {
      const uint8_t b2 = static_cast<uint8_t>(value[p + 1]);
      if (op_is_val(b2) && val_value(b) == val_value(b2) && val_len(b) + val_len(b2) <= kValMaxLen) {
        value[p + 1] = static_cast<char>(val_op(val_value(b), val_len(b) + val_len(b2)));
        value.erase(p, 1);
        continue;  // the merged opcode may merge with the next one too
      }
    }
    ++p;
  }
}

int set_sparse(std::string& value, uint32_t index, uint8_t count, size_t sparse_max_bytes) {
  if (count > kSparseValMax) return promote_and_set(value, index, count);

  // The opcode covering index: at pos, covering registers first..first+span-1.
  // value.data()[size] is a NUL, so an XZERO cut by the end reads 0 there.
  const uint8_t* b = reinterpret_cast<const uint8_t*>(value.data());
  const size_t end = value.size();
  size_t pos = kHeaderSize, prev = 0;
  bool has_prev = false;
  long first = 0, span = 0;
  while (pos < end) {
    size_t oplen = 1;
    if (op_is_zero(b[pos])) {
      span = zero_len(b[pos]);
    } else if (op_is_val(b[pos])) {
      span = val_len(b[pos]);
    } else {
      span = xzero_len(b[pos], b[pos + 1]);
      oplen = 2;
    }
    if (static_cast<long>(index) <= first + span - 1) break;
    prev = pos;
    has_prev = true;
    pos += oplen;
    first += span;
  }
  if (span == 0 || pos >= end) return -1;  // opcodes end before index

  const uint8_t op = b[pos];
  const bool xzero = op_is_xzero(op);
  const bool zero = op_is_zero(op);
  const size_t next = pos + (xzero ? 2 : 1);
  const bool has_next = next < end;

  if (!zero && !xzero) {
    if (val_value(op) >= count) return 0;
    if (val_len(op) == 1) {
      value[pos] = static_cast<char>(val_op(count, 1));
      merge_vals(value, has_prev ? prev : kHeaderSize);
      invalidate_cache(value.data());
      return 1;
    }
  }
  if (zero && zero_len(op) == 1) {
    value[pos] = static_cast<char>(val_op(count, 1));
    merge_vals(value, has_prev ? prev : kHeaderSize);
    invalidate_cache(value.data());
    return 1;
  }

  // Split the opcode: the run before index, index itself, the run after.
  uint8_t seq[5];
  int n = 0;
  const long last = first + span - 1;
  const long idx = index;
  if (zero || xzero) {
    if (idx != first) put_zeros(seq, &n, idx - first);
    seq[n++] = val_op(count, 1);
    if (idx != last) put_zeros(seq, &n, last - idx);
  } else {
    const int cur = val_value(op);
    if (idx != first) seq[n++] = val_op(cur, static_cast<int>(idx - first));
    seq[n++] = val_op(count, 1);
    if (idx != last) seq[n++] = val_op(cur, static_cast<int>(last - idx));
  }
  const long delta = n - (xzero ? 2 : 1);
  if (delta > 0 && end + delta > sparse_max_bytes) return promote_and_set(value, index, count);

  const size_t new_size = end + delta;
  if (delta > 0) value.resize(new_size);
  char* d = value.data();
  if (delta != 0 && has_next) std::memmove(d + next + delta, d + next, end - next);
  // Redis copies the whole sequence; bytes past the new length (only with
  // a cut XZERO at the end) are not part of the value.
  std::memcpy(d + pos, seq, std::min<size_t>(n, new_size - pos));
  if (delta < 0) value.resize(new_size);

  merge_vals(value, has_prev ? prev : kHeaderSize);
  invalidate_cache(value.data());
  return 1;
}

// Ertl's sigma and tau (arXiv:1702.01284), in the operations Redis uses,
// so the doubles come out the same.
double sigma(double x) {
  if (x == 1.) return INFINITY;
  double y = 1;
  double z = x;
  double before;
  do {
    x *= x;
    before = z;
    z += x * y;
    y += y;
  } while (before != z);
  return z;
}

double tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double y = 1.0;
  double z = 1 - x;
  double before;
  do {
    x = std::sqrt(x);
    before = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (before != z);
  return z / 3;
}

constexpr double kAlphaInf = 0.721347520444481703680;  // 0.5 / ln(2)

}  // namespace

uint64_t murmur64a(std::string_view data, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const size_t len = data.size();
  // Redis takes the length as an int and the seed as an unsigned int.
  uint64_t h = static_cast<uint32_t>(seed) ^ (static_cast<uint64_t>(static_cast<int>(len)) * m);
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const uint8_t* blocks_end = p + (len - (len & 7));
  for (; p != blocks_end; p += 8) {
    uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = (k << 8) | p[i];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const size_t tail = len & 7;
  if (tail) {
    for (size_t i = tail; i-- > 0;) h ^= static_cast<uint64_t>(p[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

Pattern pattern_of(std::string_view element) {
  const uint64_t hash = murmur64a(element, kSeed);
  const auto index = static_cast<uint32_t>(hash & (kRegisters - 1));
  // The bit above the kQ used ones stops the count at kQ + 1.
  const uint64_t rest = (hash >> 14) | (uint64_t{1} << kQ);
  return {index, static_cast<uint8_t>(std::countr_zero(rest) + 1)};
}

bool is_hll(std::string_view value) {
  if (value.size() < kHeaderSize) return false;
  if (value.substr(0, 4) != "HYLL") return false;
  const uint8_t enc = encoding_of(value);
  if (enc > kSparse) return false;
  return enc != kDense || value.size() == kDenseSize;
}

std::string make_empty() {
  std::string v(kHeaderSize + 2, '\0');
  std::memcpy(v.data(), "HYLL", 4);
  v[4] = static_cast<char>(kSparse);
  // One XZERO covers all 16384 registers.
  v[kHeaderSize] = static_cast<char>(0x40 | ((kXZeroMaxLen - 1) >> 8));
  v[kHeaderSize + 1] = static_cast<char>((kXZeroMaxLen - 1) & 0xff);
  return v;
}

std::optional<uint64_t> cached_cardinality(std::string_view value) {
  if (static_cast<uint8_t>(value[15]) & 0x80) return std::nullopt;
  uint64_t card = 0;
  for (int i = 7; i >= 0; --i) card = (card << 8) | static_cast<uint8_t>(value[8 + i]);
  return card;
}

void store_cardinality(char* value, uint64_t card) {
  for (int i = 0; i < 8; ++i) value[8 + i] = static_cast<char>((card >> (8 * i)) & 0xff);
}

uint8_t dense_get(const uint8_t* regs, size_t i) {
  const size_t byte = i * kBits / 8;
  const unsigned fb = (i * kBits) & 7;
  const unsigned b0 = regs[byte];
  // The last register lies in its byte's top 6 bits: nothing follows.
  const unsigned b1 = byte + 1 < kDenseBytes ? regs[byte + 1] : 0;
  return static_cast<uint8_t>(((b0 >> fb) | (b1 << (8 - fb))) & 63);
}

void dense_set(uint8_t* regs, size_t i, uint8_t v) {
  const size_t byte = i * kBits / 8;
  const unsigned fb = (i * kBits) & 7;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(63u << fb)) | (unsigned{v} << fb));
  if (byte + 1 < kDenseBytes) {
    const unsigned fb8 = 8 - fb;
    regs[byte + 1] = static_cast<uint8_t>((regs[byte + 1] & ~(63u >> fb8)) | (unsigned{v} >> fb8));
  }
}

int set_register(std::string& value, uint32_t index, uint8_t count, size_t sparse_max_bytes) {
  switch (encoding_of(value)) {
    case kDense:
      return set_dense(body(value), index, count);
    case kSparse:
      return set_sparse(value, index, count, sparse_max_bytes);
    default:
      return -1;
  }
}

bool to_dense(std::string& value) {
  if (encoding_of(value) == kDense) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), value.data(), kHeaderSize);
  dense[4] = static_cast<char>(kDense);
  uint8_t* regs = body(dense);
  size_t idx = 0;
  walk_sparse(
      body(std::string_view(value)), body_end(value), [&](int run) { idx += run; },
      [&](int v, int run) {
        if (idx + run > kRegisters) return false;
        for (int k = 0; k < run; ++k) dense_set(regs, idx++, static_cast<uint8_t>(v));
        return true;
      });
  if (idx != kRegisters) return false;
  value.swap(dense);
  return true;
}

Histogram histogram_raw(const uint8_t* registers) {
  // Four partial histograms, as for dense values below.
  int part[4][64] = {};
  for (size_t i = 0; i < kRegisters; i += 4) {
    ++part[0][registers[i] & 63];
    ++part[1][registers[i + 1] & 63];
    ++part[2][registers[i + 2] & 63];
    ++part[3][registers[i + 3] & 63];
  }
  Histogram h{};
  for (int v = 0; v < 64; ++v) h[v] = part[0][v] + part[1][v] + part[2][v] + part[3][v];
  return h;
}

Histogram histogram(std::string_view value, bool* invalid) {
  Histogram h{};
  if (encoding_of(value) == kDense) {
    // 3 bytes hold 4 registers. Four partial histograms, so that runs of
    // equal registers do not wait on one counter's last increment.
    int part[4][64] = {};
    const uint8_t* r = body(value);
    for (size_t i = 0; i < kDenseBytes; i += 3) {
      const uint32_t w = r[i] | (uint32_t{r[i + 1]} << 8) | (uint32_t{r[i + 2]} << 16);
      ++part[0][w & 63];
      ++part[1][(w >> 6) & 63];
      ++part[2][(w >> 12) & 63];
      ++part[3][(w >> 18) & 63];
    }
    for (int v = 0; v < 64; ++v) h[v] = part[0][v] + part[1][v] + part[2][v] + part[3][v];
    return h;
  }
  size_t idx = 0;
  walk_sparse(
      body(value), body_end(value),
      [&](int run) {
        idx += run;
        h[0] += run;
      },
      [&](int v, int run) {
        idx += run;
        h[v] += run;
        return true;
      });
  if (idx != kRegisters && invalid) *invalid = true;
  return h;
}

uint64_t estimate(const Histogram& h) {
  const double m = kRegisters;
  double z = m * tau((m - h[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += h[j];
    z *= 0.5;
  }
  z += m * sigma(h[0] / m);
  // Redis rounds to a long long, keeps it in a double, returns it unsigned.
  // An infinite estimate (every register at 51, z 0) rounds to LLONG_MIN,
  // which x86 turns into 2^63 there: the same bits, without the undefined
  // conversion of a negative double.
  const long long rounded = llroundl(kAlphaInf * m * m / z);
  if (rounded < 0) return static_cast<uint64_t>(rounded);
  return static_cast<uint64_t>(static_cast<double>(rounded));
}

bool merge_into(uint8_t* max, std::string_view value) {
  if (encoding_of(value) == kDense) {
    const uint8_t* r = body(value);
    if constexpr (std::endian::native == std::endian::little) {
      // 8 registers at a time: 6 packed bytes spread to one byte each, and a
      // bytewise max without branches (every byte is below 0x80, so
      // (a | 0x80) - b never borrows from its neighbour, and its top bit
      // says a >= b).
      constexpr uint64_t kTop = 0x8080808080808080ULL;
      const auto merge8 = [max](size_t g, uint64_t x) {
        // 12-bit pairs to 16-bit lanes, then each register to its byte.
        x = (x & 0xfff) | ((x << 4) & 0xfff0000ULL) | ((x << 8) & 0xfff00000000ULL) | ((x << 12) & 0xfff000000000000ULL);
        const uint64_t a = (x & 0x003f003f003f003fULL) | ((x << 2) & 0x3f003f003f003f00ULL);
        uint64_t b;
        std::memcpy(&b, max + 8 * g, 8);
        const uint64_t a_ge_b = (((a | kTop) - b) & kTop) >> 7;
        b ^= (a ^ b) & (a_ge_b * 0xff);
        std::memcpy(max + 8 * g, &b, 8);
      };
      constexpr size_t kGroups = kRegisters / 8;
      for (size_t g = 0; g + 1 < kGroups; ++g) {
        uint64_t x;
        std::memcpy(&x, r + 6 * g, 8);  // 2 bytes of the next group, masked off
        merge8(g, x & 0xffffffffffffULL);
      }
      uint64_t last = 0;
      std::memcpy(&last, r + 6 * (kGroups - 1), 6);  // the value ends there
      merge8(kGroups - 1, last);
    } else {
      for (size_t i = 0; i < kRegisters; ++i) max[i] = std::max(max[i], dense_get(r, i));
    }
    return true;
  }
  size_t idx = 0;
  walk_sparse(
      body(value), body_end(value), [&](int run) { idx += run; },
      [&](int v, int run) {
        if (idx + run > kRegisters) return false;
        for (int k = 0; k < run; ++k, ++idx)
          if (v > max[idx]) max[idx] = static_cast<uint8_t>(v);
        return true;
      });
  return idx == kRegisters;
}

std::string decode_sparse(std::string_view value) {
  std::string out;
  const uint8_t* p = body(value);
  const uint8_t* end = body_end(value);
  while (p < end) {
    const uint8_t b = *p;
    if (op_is_zero(b)) {
      out += "z:" + std::to_string(zero_len(b)) + " ";
      ++p;
    } else if (op_is_xzero(b)) {
      out += "Z:" + std::to_string(xzero_len(b, p + 1 < end ? p[1] : 0)) + " ";
      p += 2;
    } else {
      out += "v:" + std::to_string(val_value(b)) + "," + std::to_string(val_len(b)) + " ";
      ++p;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::optional<std::string> self_test(size_t sparse_max_bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  // 1: every dense register reads back what was written, neighbours intact.
  std::string dense = make_empty();
  to_dense(dense);
  uint8_t* regs = body(dense);
  std::vector<uint8_t> expect(kRegisters);
  for (int cycle = 0; cycle < 1000; ++cycle) {
    for (size_t i = 0; i < kRegisters; ++i) {
      expect[i] = static_cast<uint8_t>(rng() & 63);
      dense_set(regs, i, expect[i]);
    }
    for (size_t i = 0; i < kRegisters; ++i) {
      const uint8_t got = dense_get(regs, i);
      if (got != expect[i]) {
        return "TESTFAILED Register " + std::to_string(i) + " should be " + std::to_string(expect[i]) +
               " but is " + std::to_string(got);
      }
    }
  }

  // 2: a dense and a sparse HLL fed the same elements agree, and stay
  // within 6 standard errors (1 at 10 elements) at each power of ten.
  std::memset(regs, 0, kDenseBytes);
  std::string sparse = make_empty();
  const double relerr = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const uint64_t salt = rng();
  uint64_t checkpoint = 1;
  for (uint64_t j = 1; j <= 10000000; ++j) {
    const uint64_t ele = j ^ salt;
    const std::string_view bytes(reinterpret_cast<const char*>(&ele), sizeof ele);
    add(dense, bytes, sparse_max_bytes);
    add(sparse, bytes, sparse_max_bytes);
    if (j != checkpoint) continue;
    if (j < sparse_max_bytes / 2 && encoding_of(sparse) != kSparse) return "TESTFAILED sparse encoding not used";
    const uint64_t card = count(dense, nullptr);
    if (card != count(sparse, nullptr)) return "TESTFAILED dense/sparse disagree";
    const uint64_t err = card > checkpoint ? card - checkpoint : checkpoint - card;
    const uint64_t maxerr = j == 10 ? 1 : static_cast<uint64_t>(std::ceil(relerr * 6 * static_cast<double>(checkpoint)));
    if (err > maxerr) {
      return "TESTFAILED Too big error. card:" + std::to_string(checkpoint) + " abserr:" + std::to_string(err);
    }
    checkpoint *= 10;
  }
  return std::nullopt;
}

}  // namespace lawnkv::hll
