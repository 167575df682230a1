#pragma once
// The edge values every time, TTL or timeout argument is fed in the tests
// (tests/compat/time_edges_test.cpp for the Redis commands,
// tests/integration/dehydrator_test.cpp for REDE.*): where 32-bit, 53-bit and
// 64-bit arithmetic breaks, numbers that are not integers, and values built
// from the server's "now" in ms and in s, on each side of where now + value
// crosses INT64_MAX. No value leaves a deadline within a second of now (a
// TTL of 1 ms would race the read-back), so every outcome is deterministic.

#include <string>
#include <vector>

namespace lawnkv::test {

// The server's clock runs on while a test sends: a value computed from a
// "now" read once stays at least this far (1000 s) from the boundary it
// tests, so that which side it falls on does not depend on timing.
inline constexpr long long kTimeEdgeMargin = 1'000'000;

// The values, as argument strings, for a server whose clock reads about
// now_ms (and not earlier).
std::vector<std::string> time_edge_values(long long now_ms);

}  // namespace lawnkv::test
