// types/zset_algebra.hpp: ZUNION, ZINTER, ZDIFF and ZINTERCARD over sorted
// sets, plain sets (scores 1) and missing keys, with weights and the three
// aggregates, and Redis's rules for NaN (a NaN sum or weighted score is 0).

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "types/zset_algebra.hpp"

namespace lawnkv::types {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

ZSet zset(std::initializer_list<std::pair<const char*, double>> members) {
  ZSet z;
  for (const auto& [m, s] : members) z.add(m, s, kZAddNone, ZSetOptions());
  return z;
}

std::map<std::string, double> members(const ZSet& z) {
  std::map<std::string, double> out;
  z.walk(0, z.size(), false, [&](std::string_view m, double s) { out.emplace(std::string(m), s); });
  return out;
}

std::map<std::string, double> run(std::vector<ZSource> inputs, ZSetOp op, Aggregate how = Aggregate::kSum) {
  size_t max_len = 0;
  const auto result = combine(inputs, op, how, ZSetOptions(), &max_len);
  return members(*result);
}

}  // namespace

TEST_CASE("zset algebra: union and intersection with weights and aggregates") {
  const ZSet a = zset({{"x", 1}, {"y", 2}, {"z", 3}});
  const ZSet b = zset({{"y", 10}, {"z", 20}});
  CHECK(run({{&a}, {&b}}, ZSetOp::kUnion) == std::map<std::string, double>{{"x", 1}, {"y", 12}, {"z", 23}});
  CHECK(run({{&a}, {&b}}, ZSetOp::kInter) == std::map<std::string, double>{{"y", 12}, {"z", 23}});
  CHECK(run({{&a, nullptr, 2}, {&b, nullptr, 0.5}}, ZSetOp::kInter) ==
        std::map<std::string, double>{{"y", 9}, {"z", 16}});
  CHECK(run({{&a}, {&b}}, ZSetOp::kUnion, Aggregate::kMin) ==
        std::map<std::string, double>{{"x", 1}, {"y", 2}, {"z", 3}});
  CHECK(run({{&a}, {&b}}, ZSetOp::kInter, Aggregate::kMax) == std::map<std::string, double>{{"y", 10}, {"z", 20}});
}

TEST_CASE("zset algebra: a set scores 1, a missing key is empty, ZDIFF keeps the first input's scores") {
  Set s;
  s.add("y", SetOptions());
  s.add("w", SetOptions());
  const ZSet a = zset({{"x", 1}, {"y", 2}});
  CHECK(run({{&a}, {nullptr, &s}}, ZSetOp::kUnion) == std::map<std::string, double>{{"w", 1}, {"x", 1}, {"y", 3}});
  CHECK(run({{&a}, {}}, ZSetOp::kInter).empty());
  CHECK(run({{&a}, {}}, ZSetOp::kUnion) == std::map<std::string, double>{{"x", 1}, {"y", 2}});
  CHECK(run({{&a}, {nullptr, &s}}, ZSetOp::kDiff) == std::map<std::string, double>{{"x", 1}});
  CHECK(run({{}, {&a}}, ZSetOp::kDiff).empty());
}

TEST_CASE("zset algebra: inf + -inf sums to 0, and so does inf weighted by 0") {
  const ZSet a = zset({{"x", kInf}});
  const ZSet b = zset({{"x", -kInf}});
  CHECK(run({{&a}, {&b}}, ZSetOp::kUnion) == std::map<std::string, double>{{"x", 0}});
  CHECK(run({{&a}, {&b}}, ZSetOp::kInter) == std::map<std::string, double>{{"x", 0}});
  CHECK(run({{&a, nullptr, 0}}, ZSetOp::kUnion) == std::map<std::string, double>{{"x", 0}});
}

TEST_CASE("zset algebra: ZINTERCARD counts up to its limit") {
  const ZSet a = zset({{"x", 1}, {"y", 2}, {"z", 3}});
  const ZSet b = zset({{"x", 1}, {"y", 2}, {"z", 3}, {"w", 4}});
  std::vector<ZSource> inputs = {{&b}, {&a}};
  CHECK(intersection_size(inputs, 0) == 3);
  CHECK(intersection_size(inputs, 2) == 2);
  CHECK(intersection_size(inputs, 5) == 3);
  std::vector<ZSource> with_missing = {{&a}, {}};
  CHECK(intersection_size(with_missing, 0) == 0);
}

}  // namespace lawnkv::types
