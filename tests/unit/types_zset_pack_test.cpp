// The listpack encoding of a sorted set (src/types/zset_pack.hpp): its
// score codec, bit for bit on the doubles that break codecs (signed zeros,
// infinities, integers around 2^53, denormals, decimals that need all their
// digits), the byte sizes of the header's worked example, and a set holding
// those scores in both encodings against a model of its order, ranks,
// ranges and scores.

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "types/zset.hpp"
#include "types/zset_pack.hpp"

namespace lawnkv::types {
namespace {

uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

const double kInf = std::numeric_limits<double>::infinity();
const double k2p53 = 9007199254740992.0;

// Scores at the edges of the codec: both forms, both signs, the limits of
// m (2^53) and e (14 digits after the point), and doubles with no short
// decimal.
std::vector<double> edge_scores() {
  return {0.0,
          -0.0,
          1.0,
          -1.0,
          0.5,
          1.5,
          -1.5,
          0.1,
          -0.1,
          0.3,
          0.1 + 0.2,  // 0.30000000000000004: 17 digits, raw
          19.99,
          123.456,
          1e-14,
          -1e-14,
          1e-15,
          0.123456789012345,  // 15 digits after the point: raw
          255,
          256,
          65535,
          65536,
          1700000000123.0,  // a time in ms
          -1700000000123.0,
          1e14,
          1e15,
          4503599627370495.5,  // 2^52 - 0.5: m would pass 2^53
          900719925474099.1,   // m = 2^53 - 1, e = 1
          k2p53 - 1,
          -(k2p53 - 1),
          k2p53,
          -k2p53,
          k2p53 + 2,
          9223372036854775808.0,  // 2^63
          -9223372036854775808.0,
          1e22,
          1e300,
          -1e300,
          1e-300,
          DBL_MAX,
          -DBL_MAX,
          DBL_MIN,
          -DBL_MIN,
          DBL_MIN / 3,  // denormal
          std::numeric_limits<double>::denorm_min(),
          -std::numeric_limits<double>::denorm_min(),
          kInf,
          -kInf};
}

// Encodes d followed by garbage, checks the size and that decoding gives d
// back bit for bit.
void check_round_trip(double d) {
  unsigned char buf[kMaxScoreBytes + 4];
  std::memset(buf, 0xA5, sizeof buf);
  const size_t n = encode_score(d, buf);
  INFO("score ", d, " bits ", bits(d), " encoded in ", n);
  REQUIRE(n >= 1);
  REQUIRE(n <= kMaxScoreBytes);
  CHECK(buf[n] == 0xA5);  // nothing written past what was returned
  CHECK(bits(decode_score(buf)) == bits(d));
}

TEST_CASE("zset_pack: every score, edge or random, decodes to the bits it was encoded from") {
  for (double d : edge_scores()) check_round_trip(d);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    // Any bit pattern but NaN's.
    double d;
    const uint64_t u = rng();
    std::memcpy(&d, &u, 8);
    if (!std::isnan(d)) check_round_trip(d);
    // A short decimal: m / 10^e with m < 2^53, e <= 16, either sign.
    const uint64_t m = rng() >> (11 + rng() % 50);
    const double dec = static_cast<double>(m) / std::pow(10.0, static_cast<double>(rng() % 17));
    check_round_trip(rng() % 2 ? dec : -dec);
    // Integers of every size up to 2^64, either sign.
    const double whole = static_cast<double>(rng() >> (rng() % 64));
    check_round_trip(rng() % 2 ? whole : -whole);
  }
}

TEST_CASE("zset_pack: score sizes of the worked example") {
  const std::pair<double, size_t> table[] = {
      {0.0, 1},  {-0.0, 1},          {3.0, 2},          {255.0, 2},       {256.0, 3},
      {1.5, 2},  {-1.5, 2},          {0.1, 2},          {19.99, 3},       {1700000000123.0, 7},
      {k2p53 - 1, 8}, {k2p53, 9},    {0.1 + 0.2, 9},    {kInf, 9},        {-kInf, 9},
      {std::numeric_limits<double>::denorm_min(), 9},   {1e300, 9},
  };
  for (const auto& row : table) {
    // (Not structured bindings: clang 14 cannot capture them in INFO's lambda.)
    const double d = row.first;
    unsigned char buf[kMaxScoreBytes];
    INFO("score ", d);
    CHECK(encode_score(d, buf) == row.second);
  }
  // The member "member:000000001" with 1.5: length, 16 bytes, tag, m = 15.
  ZSetOptions opts;
  ZSet z;
  z.add("member:000000001", 1.5, kZAddNone, opts);
  CHECK(z.memory_bytes() == sizeof(ZSet) + 19);
  z.add("member:000000002", 0.1 + 0.2, kZAddNone, opts);
  CHECK(z.memory_bytes() == sizeof(ZSet) + 19 + 26);
  // The value object: vtable, the pack's pointer and two lengths, the
  // skiplist's pointer, one 32-byte allocation.
  CHECK(sizeof(ZSet) <= 32);
}

// A set of the edge scores (two members on each, one more on each of a few),
// in both encodings, moved around by updates and removals, checked against a
// sorted model: every score bit for bit, the order both ways, every rank,
// and count_below at every edge score as an inclusive and exclusive bound.
TEST_CASE("zset_pack: edge scores keep their order, ranks, ranges and bits, both encodings") {
  const std::vector<double> edges = edge_scores();
  for (bool skiplist : {false, true}) {
    INFO("encoding ", (skiplist ? "skiplist" : "listpack"));
    std::mt19937_64 rng(skiplist ? 5 : 6);
    ZSetOptions opts{.max_listpack_entries = skiplist ? 0u : 100000u, .max_listpack_value = 64, .seeds = &rng};
    ZSet z(skiplist);
    // member -> score as the set should hold it: a listpack keeps -0 as 0,
    // as Redis's listpack does (the score is an integer there).
    std::vector<std::pair<std::string, double>> want;
    auto held = [&](double s) { return !skiplist && s == 0 ? 0.0 : s; };
    auto put = [&](const std::string& m, double s) {
      for (auto& [wm, ws] : want)
        if (wm == m) {
          z.add(m, s, kZAddNone, opts);
          ws = held(s);
          return;
        }
      CHECK(z.add(m, s, kZAddNone, opts) == ZAddResult::kAdded);
      want.emplace_back(m, held(s));
    };
    auto check = [&] {
      REQUIRE(z.size() == want.size());
      auto sorted = want;
      std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return zset_before(a.second, a.first, b.second, b.first);
      });
      std::vector<std::pair<std::string, uint64_t>> walked, expect;
      z.walk(0, z.size(), false, [&](std::string_view m, double s) { walked.emplace_back(m, bits(s)); });
      for (const auto& [m, s] : sorted) expect.emplace_back(m, bits(s));
      CHECK(walked == expect);
      walked.clear();
      z.walk(0, z.size(), true, [&](std::string_view m, double s) { walked.emplace_back(m, bits(s)); });
      CHECK(walked == std::vector(expect.rbegin(), expect.rend()));
      for (size_t r = 0; r < sorted.size(); ++r) {
        const std::string& m = sorted[r].first;
        const double s = sorted[r].second;
        INFO("member ", m, " score ", s);
        REQUIRE(z.score(m).has_value());
        CHECK(bits(*z.score(m)) == bits(s));
        CHECK(z.rank(m) == r);
      }
      for (double bound : edges) {
        size_t below = 0, at_most = 0;
        for (const auto& [m, s] : sorted) {
          below += s < bound;
          at_most += s <= bound;
        }
        INFO("bound ", bound);
        CHECK(z.count_below([&](double s, std::string_view) { return s < bound; }) == below);
        CHECK(z.count_below([&](double s, std::string_view) { return s <= bound; }) == at_most);
      }
    };
    for (size_t i = 0; i < edges.size(); ++i) {
      put("a" + std::to_string(i), edges[i]);
      put("b" + std::to_string(i), edges[edges.size() - 1 - i]);
      if (i % 7 == 0) put(std::string(40, 'c') + std::to_string(i), edges[i]);
    }
    CHECK(z.is_listpack() == !skiplist);
    check();
    // Updates to other edge scores, and removals, checked as they go.
    for (int step = 0; step < 400; ++step) {
      const size_t i = rng() % want.size();
      if (rng() % 4 == 0) {
        CHECK(z.remove(want[i].first));
        want.erase(want.begin() + static_cast<long>(i));
        if (want.empty()) break;
      } else {
        put(want[i].first, edges[rng() % edges.size()]);
      }
      if (step % 20 == 0) check();
    }
    check();
    // The listpack converted to a skiplist and back keeps every score.
    if (!skiplist) {
      z.to_skiplist(1);
      check();
      z.compact_if_fits(opts, 64);
      CHECK(z.is_listpack());
      check();
      const ZSet copy(z);
      z.erase_ranks(0, z.size() / 2);
      want.clear();
      copy.walk(copy.size() / 2, copy.size(), false, [&](std::string_view m, double s) { want.emplace_back(m, s); });
      check();
    }
  }
}

}  // namespace
}  // namespace lawnkv::types
