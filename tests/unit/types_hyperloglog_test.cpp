// hll:: (src/types/hyperloglog.hpp): the hash and the register an element
// goes to, the dense packing, the sparse opcodes and their promotion, the
// estimator; figures from redis-server 7.0.15 (PFDEBUG DECODE, PFCOUNT,
// STRLEN of the same elements).

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "types/hyperloglog.hpp"

namespace lawnkv::hll {
namespace {

std::string add_all(std::string v, int n, size_t sparse_max = 3000) {
  for (int i = 0; i < n; ++i) add(v, "e:" + std::to_string(i), sparse_max);
  return v;
}

std::vector<uint8_t> registers_of(std::string v) {
  REQUIRE(to_dense(v));
  std::vector<uint8_t> out(kRegisters);
  const auto* regs = reinterpret_cast<const uint8_t*>(v.data()) + kHeaderSize;
  for (size_t i = 0; i < kRegisters; ++i) out[i] = dense_get(regs, i);
  return out;
}

}  // namespace

TEST_CASE("hll: an element's register and value are Redis's (PFDEBUG DECODE after one PFADD)") {
  // Lengths 0, 1, 5, 8, 9 and 17 cover the 8-byte blocks and every tail.
  struct Row {
    std::string element;
    uint32_t index;
    uint8_t count;
  };
  for (const Row& r : {Row{"", 5938, 2}, Row{"a", 12711, 2}, Row{"hello", 9216, 1},
                       Row{"abcdefgh", 1383, 1}, Row{"abcdefghi", 6903, 1}, Row{"0123456789abcdef!", 13940, 1},
                       // Made by inverting the hash: the largest values, the last register.
                       Row{std::string("\xcd\x0b\xb4\x47\x58\xd7\xf0\xff", 8), 5, 33},
                       Row{std::string("\x22\x95\xe7\x76\xdc\x15\xca\x3f", 8), 16383, 51}}) {
    CAPTURE(r.element);
    const Pattern p = pattern_of(r.element);
    CHECK(p.index == r.index);
    CHECK(p.count == r.count);
  }
}

TEST_CASE("hll: a new value is a sparse XZERO:16384 with a valid cached 0") {
  const std::string v = make_empty();
  CHECK(v == std::string("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18));
  CHECK(is_hll(v));
  CHECK(cached_cardinality(v) == 0);
  CHECK(decode_sparse(v) == "Z:16384");
  CHECK(count(v, nullptr) == 0);
}

TEST_CASE("hll: is_hll checks length, magic, encoding and the dense size") {
  std::string v = make_empty();
  CHECK_FALSE(is_hll(v.substr(0, 15)));
  CHECK(is_hll(v.substr(0, 16)));  // no opcodes: still a HLL until read
  std::string bad = v;
  bad[0] = 'h';
  CHECK_FALSE(is_hll(bad));
  bad = v;
  bad[4] = 2;
  CHECK_FALSE(is_hll(bad));
  bad = v;
  bad[4] = 0;  // dense but 18 bytes
  CHECK_FALSE(is_hll(bad));
  REQUIRE(to_dense(v));
  CHECK(v.size() == kDenseSize);
  CHECK(is_hll(v));
  CHECK_FALSE(is_hll(v + "x"));
}

TEST_CASE("hll: dense registers pack 6 bits from the low bit of byte 0 on") {
  std::vector<uint8_t> regs(kDenseBytes, 0);
  dense_set(regs.data(), 1, 63);
  CHECK(regs[0] == 0xc0);
  CHECK(regs[1] == 0x0f);
  CHECK(dense_get(regs.data(), 0) == 0);
  CHECK(dense_get(regs.data(), 1) == 63);
  CHECK(dense_get(regs.data(), 2) == 0);
  dense_set(regs.data(), 3, 5);
  CHECK(regs[2] == (5 << 2));
  dense_set(regs.data(), kRegisters - 1, 63);  // the last byte's top 6 bits
  CHECK(regs[kDenseBytes - 1] == 0xfc);
  CHECK(dense_get(regs.data(), kRegisters - 1) == 63);
  CHECK(dense_get(regs.data(), kRegisters - 2) == 0);

  // Random values read back, neighbours untouched.
  std::mt19937 rng(3);
  std::vector<uint8_t> expect(kRegisters);
  for (size_t i = 0; i < kRegisters; ++i) {
    expect[i] = rng() & 63;
    dense_set(regs.data(), i, expect[i]);
  }
  for (size_t i = 0; i < kRegisters; ++i) REQUIRE(dense_get(regs.data(), i) == expect[i]);
}

TEST_CASE("hll: sparse opcodes split and merge as Redis's (its worked example)") {
  std::string v = make_empty();
  CHECK(set_register(v, 1000, 2, 3000) == 1);
  CHECK_FALSE(cached_cardinality(v).has_value());
  CHECK(decode_sparse(v) == "Z:1000 v:2,1 Z:15383");
  CHECK(set_register(v, 1020, 3, 3000) == 1);
  CHECK(set_register(v, 1021, 3, 3000) == 1);  // merges into v:3,2
  CHECK(decode_sparse(v) == "Z:1000 v:2,1 z:19 v:3,2 Z:15362");
  CHECK(set_register(v, 1021, 2, 3000) == 0);  // lower: nothing changes
  CHECK(set_register(v, 1021, 3, 3000) == 0);
  CHECK(set_register(v, 1021, 4, 3000) == 1);  // splits the VAL run
  CHECK(decode_sparse(v) == "Z:1000 v:2,1 z:19 v:3,1 v:4,1 Z:15362");
  CHECK(set_register(v, 1001, 2, 3000) == 1);  // a ZERO split at its start
  CHECK(decode_sparse(v) == "Z:1000 v:2,2 z:18 v:3,1 v:4,1 Z:15362");
  CHECK(encoding_of(v) == kSparse);
  CHECK(registers_of(v)[1021] == 4);
}

TEST_CASE("hll: a register above 32 or a value past sparse-max-bytes turns dense") {
  std::string v = make_empty();
  CHECK(set_register(v, 7, 32, 3000) == 1);
  CHECK(encoding_of(v) == kSparse);
  CHECK(set_register(v, 8, 33, 3000) == 1);
  CHECK(encoding_of(v) == kDense);
  CHECK(v.size() == kDenseSize);
  CHECK(registers_of(v)[7] == 32);
  CHECK(registers_of(v)[8] == 33);

  // 100 elements take 279 bytes in Redis: a limit of 200 promotes midway.
  CHECK(add_all(make_empty(), 100).size() == 279);
  const std::string small = add_all(make_empty(), 100, 200);
  CHECK(encoding_of(small) == kDense);
  CHECK(registers_of(small) == registers_of(add_all(make_empty(), 100)));
}

TEST_CASE("hll: sparse and dense agree register by register and in their count") {
  std::string sparse = make_empty();
  std::string dense = make_empty();
  REQUIRE(to_dense(dense));
  for (int i = 0; i < 3000; ++i) {
    const std::string e = "x" + std::to_string(i * 7919);
    const int a = add(sparse, e, 1 << 20);
    const int b = add(dense, e, 1 << 20);
    REQUIRE(a == b);
  }
  REQUIRE(encoding_of(sparse) == kSparse);
  CHECK(registers_of(sparse) == registers_of(dense));
  bool invalid = false;
  CHECK(count(sparse, &invalid) == count(dense, &invalid));
  CHECK_FALSE(invalid);
  std::vector<uint8_t> max(kRegisters, 0);
  CHECK(merge_into(max.data(), sparse));
  CHECK(max == registers_of(dense));
  CHECK(estimate(histogram_raw(max.data())) == count(dense, nullptr));
}

TEST_CASE("hll: counts equal redis-server 7.0.15's PFCOUNT and STRLEN") {
  struct Row {
    int n;
    uint64_t card;
    size_t size;
  };
  std::string v = make_empty();
  int added = 0;
  for (const Row& r : {Row{10, 10, 48}, Row{100, 100, 279}, Row{1000, 995, 1880}, Row{5000, 5027, kDenseSize},
                       Row{20000, 20096, kDenseSize}, Row{100000, 100342, kDenseSize}}) {
    for (; added < r.n; ++added) add(v, "e:" + std::to_string(added), 3000);
    CAPTURE(r.n);
    CHECK(count(v, nullptr) == r.card);
    CHECK(v.size() == r.size);
  }
}

TEST_CASE("hll: corrupt sparse opcodes are reported, never read past") {
  std::string v = make_empty();
  v.resize(kHeaderSize);
  v.push_back(static_cast<char>(0x40 | 0x1f));  // XZERO:8192, its second byte cut off
  bool invalid = false;
  (void)count(v, &invalid);
  CHECK(invalid);
  std::string copy = v;
  CHECK_FALSE(to_dense(copy));
  CHECK(copy == v);
  std::vector<uint8_t> max(kRegisters, 0);
  CHECK_FALSE(merge_into(max.data(), v));
  CHECK(decode_sparse(v) == "Z:7937");
  // A register the opcodes do not reach cannot be set.
  std::string short_one = make_empty();
  short_one.resize(kHeaderSize);
  short_one.push_back(10);  // z:11
  CHECK(set_register(short_one, 100, 1, 3000) == -1);
  CHECK(set_register(short_one, 5, 1, 3000) == 1);
  CHECK(decode_sparse(short_one) == "z:5 v:1,1 z:5");
  // VALs running past register 16383.
  std::string over = make_empty();
  over[kHeaderSize] = 0x40 | 0x3f;
  over[kHeaderSize + 1] = static_cast<char>(0xfe);  // XZERO:16383
  over.push_back(static_cast<char>(0x83));         // v:1,4
  invalid = false;
  (void)count(over, &invalid);
  CHECK(invalid);
  CHECK_FALSE(to_dense(over));
}

TEST_CASE("hll: the cached cardinality is 8 bytes little endian, top bit stale") {
  std::string v = make_empty();
  store_cardinality(v.data(), 0x0102030405060708ULL);
  CHECK(v.substr(8, 8) == std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  CHECK(cached_cardinality(v) == 0x0102030405060708ULL);
  invalidate_cache(v.data());
  CHECK_FALSE(cached_cardinality(v).has_value());
}

TEST_CASE("hll: the estimator's edges") {
  Histogram h{};
  h[0] = static_cast<int>(kRegisters);
  CHECK(estimate(h) == 0);
  h[0] = static_cast<int>(kRegisters) - 1;
  h[1] = 1;
  CHECK(estimate(h) == 1);
  Histogram full{};
  full[kQ + 1] = static_cast<int>(kRegisters);  // every register at its maximum
  CHECK(estimate(full) == uint64_t{1} << 63);   // Redis's PFCOUNT: -9223372036854775808
}

}  // namespace lawnkv::hll

namespace lawnkv::hll {

TEST_CASE("hll: merging a dense value keeps the larger register, 0 to 63, everywhere") {
  std::mt19937 rng(11);
  std::string v = make_empty();
  REQUIRE(to_dense(v));
  auto* regs = reinterpret_cast<uint8_t*>(v.data()) + kHeaderSize;
  std::vector<uint8_t> max(kRegisters), want(kRegisters);
  for (size_t i = 0; i < kRegisters; ++i) {
    const auto a = static_cast<uint8_t>(rng() & 63);
    dense_set(regs, i, a);
    // Equal, lower and higher values, and the extremes, in every lane.
    max[i] = static_cast<uint8_t>(i % 7 == 0 ? a : (i % 11 == 0 ? 63 : rng() & 63));
    want[i] = std::max(max[i], a);
  }
  CHECK(merge_into(max.data(), v));
  CHECK(max == want);
  CHECK(estimate(histogram_raw(want.data())) > 0);
}

}  // namespace lawnkv::hll
