// The seeded randomized differential test: thousands of random commands
// (random_commands.hpp) sent to lawnkv and to redis-server; every reply must
// be the same. The seed is printed with any failure; COMPAT_SEED=<n> replays
// it, COMPAT_RANDOM_OPS=<n> sets the number of operations (default 5000),
// COMPAT_TRACE=1 prints every command with redis-server's reply.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <random>
#include <sstream>

#include "../support/escape.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "random_commands.hpp"
#include "reply_forms.hpp"
#include "side_session.hpp"

namespace lawnkv::test {

namespace {

constexpr int kDefaultOps = 5000;
constexpr size_t kHistory = 30;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

bool parse_integer(const std::string& reply, long long& out) {
  if (reply.size() < 4 || reply[0] != ':') return false;
  out = std::strtoll(reply.c_str() + 1, nullptr, 10);
  return true;
}

// TTL-like replies may differ by the time between the two servers' clocks
// reading: 1 s for seconds, 1000 ms for milliseconds. -1 and -2 are exact.
bool near_time(const RandomStep& step, const std::string& got, const std::string& want) {
  long long a = 0, b = 0;
  if (!parse_integer(got, a) || !parse_integer(want, b) || a < 0 || b < 0) return false;
  const std::string& name = step.step.argv[0];
  long long tolerance = (name == "PTTL" || name == "PEXPIRETIME") ? 1000 : 1;
  return a - b <= tolerance && b - a <= tolerance;
}

bool same_reply(const RandomStep& step, const std::string& got, const std::string& want) {
  return got == want || (step.time_near && near_time(step, got, want));
}

// EXEC replies are compared element by element, each with the rule of the
// command that produced it.
bool same_exec_reply(const std::vector<RandomStep>& queued, const std::string& got,
                     const std::string& want) {
  if (got == want) return true;
  try {
    Reply a = parse_reply(got), b = parse_reply(want);
    if (a.type != '*' || b.type != '*' || a.null || b.null ||
        a.elements.size() != queued.size() || b.elements.size() != queued.size()) {
      return false;
    }
    for (size_t i = 0; i < queued.size(); ++i) {
      std::string x = write_reply(a.elements[i]), y = write_reply(b.elements[i]);
      switch (queued[i].step.compare) {
        case Compare::kSorted: x = sorted_form(x), y = sorted_form(y); break;
        case Compare::kType: x = type_form(x), y = type_form(y); break;
        default: break;
      }
      if (!same_reply(queued[i], x, y)) return false;
    }
    return true;
  } catch (const RespError&) {
    return false;
  }
}

}  // namespace

TEST_CASE("compat: randomized differential run, lawnkv against redis-server") {
  uint64_t seed = env_number("COMPAT_SEED", std::random_device{}() * 1000003ULL + std::random_device{}());
  uint64_t ops = env_number("COMPAT_RANDOM_OPS", kDefaultOps);
  auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch()).count();
  RandomCommands generator(seed, now_s);

  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  SideSession ours(lawnkv.port(), false);
  SideSession theirs(redis.port(), false);

  const bool trace = std::getenv("COMPAT_TRACE") != nullptr;
  std::deque<std::string> history;
  uint64_t commands = 0;
  std::string failure;
  auto run = [&](const RandomStep& step, const std::vector<RandomStep>* queued) {
    ours.use_client(step.client);
    theirs.use_client(step.client);
    std::string got = ours.execute(step.step);
    std::string want = theirs.execute(step.step);
    ++commands;
    if (trace) std::cout << "[client " << step.client << "] " << step.step.source << "\n    " << escape_bytes(want, 200) << "\n";
    bool same = queued ? same_exec_reply(*queued, got, want) : same_reply(step, got, want);
    if (same) {
      history.push_back("[client " + std::to_string(step.client) + "] " + step.step.source +
                        "  -> " + escape_bytes(want, 120));
      if (history.size() > kHistory) history.pop_front();
      return true;
    }
    std::ostringstream out;
    out << "[client " << step.client << "] " << step.step.source
        << "\n  lawnkv: " << escape_bytes(got, 600) << "\n  redis:  " << escape_bytes(want, 600);
    failure = out.str();
    return false;
  };

  bool ok = true;
  uint64_t op = 0;
  for (; ok && op < ops; ++op) {
    std::vector<RandomStep> block = generator.next_op();
    std::vector<RandomStep> queued;
    for (const auto& step : block) {
      const std::string& name = step.step.argv[0];
      bool exec = name == "EXEC" && block.front().step.argv[0] == "MULTI";
      if (!(ok = run(step, exec ? &queued : nullptr))) break;
      if (name != "MULTI" && !exec && block.front().step.argv[0] == "MULTI") queued.push_back(step);
    }
  }
  for (const auto& step : generator.final_state_checks()) {
    if (!ok) break;
    ok = run(step, nullptr);
  }

  if (!ok) {
    std::ostringstream context;
    for (const auto& line : history) context << "\n    " << line;
    Step keys;
    keys.argv = {"KEYS", "*"};
    keys.compare = Compare::kSorted;
    ours.use_client(1);
    theirs.use_client(1);
    context << "\n  KEYS * on client 1 now:\n  lawnkv: " << escape_bytes(ours.execute(keys), 2000)
            << "\n  redis:  " << escape_bytes(theirs.execute(keys), 2000);
    FAIL_CHECK("randomized run diverged at operation " << op << " (command " << commands
               << ") with COMPAT_SEED=" << seed << "\n" << failure
               << "\n  the commands before it, with redis-server's replies:" << context.str());
  }
  MESSAGE("randomized differential run: COMPAT_SEED=" << seed << ", " << op << " operations, "
          << commands << " commands" << std::string(ok ? ", all replies equal" : ""));
}

}  // namespace lawnkv::test
