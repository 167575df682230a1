#include "time_edges.hpp"

#include <climits>

namespace lawnkv::test {

std::vector<std::string> time_edge_values(long long now_ms) {
  constexpr long long kMax = LLONG_MAX;
  constexpr long long kM = kTimeEdgeMargin;
  std::vector<std::string> v = {
      "0", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296",
      "9007199254740992", "9007199254740993", "-9007199254740992",
      "9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807",
      "4611686018427387904",                                   // 2^62
      "9223372036854775", "9223372036854776",                  // LLONG_MAX / 1000 and one more
      "-9223372036854775", "-9223372036854776",                // LLONG_MIN / 1000 and one less
      "9223372036854775808", "-9223372036854775809",           // past int64
      "1e3", "0.5", "-0.0001", "-0.001", "1e-300", "1e16", "1e300", "inf", "-inf", "nan", "abc", "", "+1", "01"};
  for (long long x : {
           now_ms, now_ms - 1, now_ms + 100'000,                   // about now, in ms
           now_ms / 1000, now_ms / 1000 - 1, now_ms / 1000 + 100,  // about now, in s
           kMax - now_ms, kMax - now_ms - kM,                      // now + ms at INT64_MAX
           (kMax - now_ms) / 1000 + 1, (kMax - now_ms) / 1000 - kM,  // now + s * 1000 at INT64_MAX
           -now_ms, -(now_ms / 1000)})
    v.push_back(std::to_string(x));
  return v;
}

}  // namespace lawnkv::test
