#include "side_by_side.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <string>

#include "../support/escape.hpp"
#include "../support/server_process.hpp"
#include "side_session.hpp"

namespace lawnkv::test {

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

}  // namespace

uint64_t random_run_seed() {
  return env_number("COMPAT_SEED", std::random_device{}() * 1000003ULL + std::random_device{}());
}

uint64_t random_run_ops(uint64_t fallback) { return env_number("COMPAT_RANDOM_OPS", fallback); }

void run_side_by_side(uint64_t seed, const std::vector<Step>& steps, std::string_view what) {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  SideSession ours(lawnkv.port(), seed % 2 == 1);
  SideSession theirs(redis.port(), seed % 2 == 1);
  std::vector<std::string> history;
  for (const Step& step : steps) {
    const std::string got = ours.execute(step);
    const std::string want = theirs.execute(step);
    if (got != want) {
      std::ostringstream context;
      const size_t from = history.size() > 20 ? history.size() - 20 : 0;
      for (size_t i = from; i < history.size(); ++i) context << "\n    " << history[i];
      FAIL("diverged with COMPAT_SEED=" << seed << " (RESP" << (seed % 2 == 1 ? 3 : 2) << ") at " << step.source
                                        << "\n  lawnkv: " << escape_bytes(got, 600)
                                        << "\n  redis:  " << escape_bytes(want, 600) << "\n  before:" << context.str());
    }
    history.push_back(step.source + "  -> " + escape_bytes(want, 120));
  }
  MESSAGE("randomized " << what << " run: COMPAT_SEED=" << seed << ", " << steps.size()
                        << " commands, all replies equal");
}

}  // namespace lawnkv::test
