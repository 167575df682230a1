#pragma once
// HyperLogLog in Redis 7.0's own bytes: a HyperLogLog is a string value, so
// GET, SET, DUMP and RESTORE carry it between lawnkv and redis-server, and
// both count it the same. These are pure functions on those bytes; the
// commands (PFADD, PFCOUNT, PFMERGE, PFDEBUG) are commands/hyperloglog_family.cpp.
//
// The value, as Redis lays it out:
//
//   "HYLL"  4 B   magic
//   E       1 B   encoding: 0 dense, 1 sparse (anything else is not a HLL)
//   -       3 B   unused (copied along, never read)
//   card    8 B   cached cardinality, little endian; the top bit of the last
//                 byte set means "stale, recount"
//   registers     16384 registers of 6 bits each (dense: 12288 bytes) or
//                 the sparse opcodes below
//
// An element hashes (MurmurHash64A, seed 0xadc83b19) to 64 bits: the low 14
// pick the register, the rest give the register's candidate value, 1 + the
// number of trailing zero bits (at most 51). A register keeps the largest.
//
// Dense: register i occupies bits 6i .. 6i+5 of the byte array counted from
// the least significant bit of byte 0, so 4 registers share 3 bytes:
//
//   byte 0   byte 1   byte 2
//   11000000 22221111 33333322      (digit: the register's bits, MSB left)
//
// Sparse: run-length opcodes covering the 16384 registers in order,
//   ZERO  00xxxxxx           1..64 registers at 0 (xxxxxx + 1)
//   XZERO 01xxxxxx yyyyyyyy  1..16384 registers at 0 (14 bits + 1)
//   VAL   1vvvvvxx           1..4 registers (xx + 1) at 1..32 (vvvvv + 1)
// A new HLL is XZERO:16384 (2 bytes). Setting a register splits the opcode
// that covers it (at most XZERO -> XZERO VAL XZERO, 3 bytes more) and then
// merges equal neighbouring VALs in a window of 5 opcodes after the
// previous one, exactly as Redis does, so both servers produce the same
// bytes. A register above 32, or a split that would take the value past
// hll-sparse-max-bytes, turns it dense for good.
//
// The count is Ertl's improved estimator ("New cardinality estimation
// algorithms for HyperLogLog sketches", arXiv:1702.01284) over the
// histogram of register values, as Redis 7.0 computes it, to the same
// double; the standard error is 1.04 / sqrt(16384) = 0.81%.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lawnkv::hll {

inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kRegisters = 16384;
inline constexpr int kBits = 6;
inline constexpr int kQ = 64 - 14;  // hash bits after the register index
inline constexpr size_t kDenseBytes = kRegisters * kBits / 8;  // 12288
inline constexpr size_t kDenseSize = kHeaderSize + kDenseBytes;
inline constexpr uint8_t kDense = 0;
inline constexpr uint8_t kSparse = 1;
inline constexpr uint8_t kSparseValMax = 32;
inline constexpr uint64_t kSeed = 0xadc83b19ULL;

// Redis's MurmurHash64A, endian neutral (bytes read little endian).
uint64_t murmur64a(std::string_view data, uint64_t seed);

// The register an element goes to and the value it offers there (1..51).
struct Pattern {
  uint32_t index;
  uint8_t count;
};
Pattern pattern_of(std::string_view element);

// Redis's isHLLObjectOrReply checks on a string value: at least a header,
// the magic, a known encoding, and a dense one exactly kDenseSize long.
// (Sparse opcodes are checked only as they are read.)
bool is_hll(std::string_view value);
inline uint8_t encoding_of(std::string_view value) { return static_cast<uint8_t>(value[4]); }

// A new, empty HLL: sparse, XZERO:16384, cached cardinality 0 (valid).
std::string make_empty();

// The cached cardinality, or nullopt when marked stale.
std::optional<uint64_t> cached_cardinality(std::string_view value);
void store_cardinality(char* value, uint64_t card);
inline void invalidate_cache(char* value) { value[15] = static_cast<char>(value[15] | 0x80); }

// One dense register (regs: the bytes after the header).
uint8_t dense_get(const uint8_t* regs, size_t i);
void dense_set(uint8_t* regs, size_t i, uint8_t v);

// Raises register `index` of value (a valid HLL: is_hll) to count if it is
// lower. 1: raised (the cached cardinality is then stale), 0: it already
// held as much, -1: a corrupt sparse value (its opcodes do not cover index,
// or do not add up when turned dense). May turn value dense (above).
int set_register(std::string& value, uint32_t index, uint8_t count, size_t sparse_max_bytes);
// PFADD's step for one element: set_register at its pattern.
inline int add(std::string& value, std::string_view element, size_t sparse_max_bytes) {
  const Pattern p = pattern_of(element);
  return set_register(value, p.index, p.count, sparse_max_bytes);
}
// Rewrites a sparse value dense (the header copied but the encoding byte);
// a dense one is left alone. False, value untouched: corrupt opcodes.
bool to_dense(std::string& value);

// Register value -> how many registers hold it.
using Histogram = std::array<int, 64>;
// The histogram of a valid HLL. *invalid set when sparse opcodes do not
// cover exactly 16384 registers (left alone otherwise).
Histogram histogram(std::string_view value, bool* invalid);
// Of 16384 registers one byte each (PFCOUNT of several keys, PFMERGE).
Histogram histogram_raw(const uint8_t* registers);
// Ertl's estimator over a histogram, as Redis 7.0's hllCount.
uint64_t estimate(const Histogram& h);
// The cardinality of a valid HLL, ignoring its cache.
inline uint64_t count(std::string_view value, bool* invalid) { return estimate(histogram(value, invalid)); }

// max[i] = max(max[i], register i of value) for a valid HLL; false when
// sparse opcodes do not cover exactly 16384 registers.
bool merge_into(uint8_t* max, std::string_view value);

// PFDEBUG DECODE: a sparse value's opcodes as "Z:16384", "z:12", "v:3,2",
// space separated.
std::string decode_sparse(std::string_view value);

// PFSELFTEST: dense registers read back what was written; sparse and dense
// agree and stay within 6 standard errors up to 10^7 elements. nullopt when
// all pass, else Redis's TESTFAILED text.
std::optional<std::string> self_test(size_t sparse_max_bytes, uint64_t seed);

}  // namespace lawnkv::hll
