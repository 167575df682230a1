#pragma once
// The driver of the seeded randomized runs (sorted sets, streams): the seed
// and the length from the environment, and the generated steps sent to a
// fresh lawnkv and a fresh redis-server, reply against reply.

#include <cstdint>
#include <string_view>
#include <vector>

#include "case_script.hpp"

namespace lawnkv::test {

// COMPAT_SEED, else a new random seed (a failure prints it, to replay).
uint64_t random_run_seed();
// COMPAT_RANDOM_OPS, else `fallback`.
uint64_t random_run_ops(uint64_t fallback);

// Sends each step to both servers (RESP3 when the seed is odd) and FAILs at
// the first reply that differs, with the 20 steps before it; else reports
// "randomized <what> run" with the seed and the number of commands.
void run_side_by_side(uint64_t seed, const std::vector<Step>& steps, std::string_view what);

}  // namespace lawnkv::test
