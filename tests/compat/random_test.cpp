// The seeded randomized differential test: thousands of random commands
// (random_commands.hpp) sent to lawnkv and to redis-server; every reply must
// be the same. The seed is printed with any failure; COMPAT_SEED=<n> replays
// it, COMPAT_RANDOM_OPS=<n> sets the number of operations (default 5000),
// COMPAT_TRACE=1 prints every command with redis-server's reply.
//
// A divergence is shrunk before it is reported: the operations before it are
// dropped chunk by chunk while some reply still differs (for up to
// COMPAT_SHRINK_SECONDS, default 120), and the report ends with the few
// commands that reproduce it. A long run (`make differential`) is the same
// test with more operations.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <optional>
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

// A run of operations against both servers, from a clean state: FLUSHALL,
// then fresh connections (database 0, RESP2, nothing watched).
struct Run {
  uint64_t commands = 0;
  size_t failed_op = 0;  // the operation that diverged (ops.size() + i: final check i)
  std::string failure;   // empty: every reply equal
  std::deque<std::string> history;
};

class Differential {
 public:
  Differential(uint16_t our_port, uint16_t their_port, bool trace)
      : our_port_(our_port), their_port_(their_port), trace_(trace) {}

  Run run(const std::vector<std::vector<RandomStep>>& ops, const std::vector<RandomStep>& checks) {
    SideSession ours(our_port_, false), theirs(their_port_, false);
    Step flush;
    flush.argv = {"FLUSHALL"};
    ours.execute(flush);
    theirs.execute(flush);
    Run r;
    auto one = [&](const RandomStep& step, const std::vector<RandomStep>* queued) {
      ours.use_client(step.client);
      theirs.use_client(step.client);
      const std::string got = ours.execute(step.step);
      const std::string want = theirs.execute(step.step);
      ++r.commands;
      if (trace_) std::cout << "[client " << step.client << "] " << step.step.source << "\n    " << escape_bytes(want, 200) << "\n";
      if (queued ? same_exec_reply(*queued, got, want) : same_reply(step, got, want)) {
        r.history.push_back("[client " + std::to_string(step.client) + "] " + step.step.source + "  -> " +
                            escape_bytes(want, 120));
        if (r.history.size() > kHistory) r.history.pop_front();
        return true;
      }
      r.failure = "[client " + std::to_string(step.client) + "] " + step.step.source +
                  "\n  lawnkv: " + escape_bytes(got, 600) + "\n  redis:  " + escape_bytes(want, 600);
      return false;
    };
    for (size_t op = 0; op < ops.size(); ++op) {
      std::vector<RandomStep> queued;
      const bool in_multi = ops[op].front().step.argv[0] == "MULTI";
      for (const auto& step : ops[op]) {
        const std::string& name = step.step.argv[0];
        const bool exec = in_multi && name == "EXEC";
        if (!one(step, exec ? &queued : nullptr)) {
          r.failed_op = op;
          return finish(r, ours, theirs);
        }
        if (in_multi && name != "MULTI" && !exec) queued.push_back(step);
      }
    }
    for (size_t i = 0; i < checks.size(); ++i) {
      if (!one(checks[i], nullptr)) {
        r.failed_op = ops.size() + i;
        return finish(r, ours, theirs);
      }
    }
    return r;
  }

 private:
  // Adds both servers' keys to a failure's report.
  static Run finish(Run& r, SideSession& ours, SideSession& theirs) {
    Step keys;
    keys.argv = {"KEYS", "*"};
    keys.compare = Compare::kSorted;
    ours.use_client(1);
    theirs.use_client(1);
    r.failure += "\n  KEYS * on client 1 now:\n  lawnkv: " + escape_bytes(ours.execute(keys), 2000) +
                 "\n  redis:  " + escape_bytes(theirs.execute(keys), 2000);
    return r;
  }

  uint16_t our_port_, their_port_;
  bool trace_;
};

// Shrinks a diverging run (ddmin over whole operations: a MULTI block stays
// whole): drops chunks of the operations before the failing one, halving the
// chunk size, keeping each removal after which some reply still differs.
// Stops after `seconds`; returns the operations kept, the failing one last.
std::vector<std::vector<RandomStep>> shrink(Differential& d, std::vector<std::vector<RandomStep>> ops,
                                            double seconds, size_t* replays) {
  const auto start = std::chrono::steady_clock::now();
  auto out_of_time = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds;
  };
  auto diverges = [&](const std::vector<std::vector<RandomStep>>& candidate) {
    ++*replays;
    Run r = d.run(candidate, {});
    return r.failure.empty() ? std::optional<size_t>() : std::optional<size_t>(r.failed_op);
  };
  for (size_t chunk = ops.size() / 2; chunk >= 1 && !out_of_time(); chunk = chunk == 1 ? 0 : chunk / 2) {
    for (size_t at = 0; at + 1 < ops.size() && !out_of_time();) {
      // Never drop the last operation (the one that diverges).
      const size_t n = std::min(chunk, ops.size() - 1 - at);
      std::vector<std::vector<RandomStep>> candidate(ops.begin(), ops.begin() + static_cast<long>(at));
      candidate.insert(candidate.end(), ops.begin() + static_cast<long>(at + n), ops.end());
      if (auto failed = diverges(candidate)) {
        candidate.resize(*failed + 1);  // what follows the divergence is not needed
        ops = std::move(candidate);
      } else {
        at += n;
      }
    }
  }
  return ops;
}

}  // namespace

TEST_CASE("compat: randomized differential run, lawnkv against redis-server") {
  uint64_t seed = env_number("COMPAT_SEED", std::random_device{}() * 1000003ULL + std::random_device{}());
  uint64_t op_count = env_number("COMPAT_RANDOM_OPS", kDefaultOps);
  const double shrink_seconds = static_cast<double>(env_number("COMPAT_SHRINK_SECONDS", 120));
  auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch()).count();
  RandomCommands generator(seed, now_s);
  std::vector<std::vector<RandomStep>> ops;
  ops.reserve(op_count);
  for (uint64_t i = 0; i < op_count; ++i) ops.push_back(generator.next_op());

  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  Differential differential(lawnkv.port(), redis.port(), std::getenv("COMPAT_TRACE") != nullptr);
  const Run run = differential.run(ops, generator.final_state_checks());
  if (!run.failure.empty()) {
    std::ostringstream context;
    for (const auto& line : run.history) context << "\n    " << line;
    std::ostringstream shrunk;
    if (run.failed_op < ops.size() && shrink_seconds > 0) {
      ops.resize(run.failed_op + 1);
      size_t replays = 0;
      const auto kept = shrink(differential, ops, shrink_seconds, &replays);
      shrunk << "\n  shrunk to " << kept.size() << " of " << ops.size() << " operations (" << replays
             << " replays; COMPAT_SHRINK_SECONDS=0 skips this), each from a FLUSHALL and fresh connections:";
      for (const auto& op : kept)
        for (const auto& step : op) shrunk << "\n    [client " << step.client << "] " << step.step.source;
      const Run again = differential.run(kept, {});
      shrunk << "\n  whose last reply differs:\n  " << (again.failure.empty() ? "(no longer: a flaky divergence)" : again.failure);
    }
    FAIL_CHECK("randomized run diverged at operation " << run.failed_op << " (command " << run.commands
               << ") with COMPAT_SEED=" << seed << "\n" << run.failure
               << "\n  the commands before it, with redis-server's replies:" << context.str() << shrunk.str());
  }
  MESSAGE("randomized differential run: COMPAT_SEED=" << seed << ", " << op_count << " operations, "
          << run.commands << " commands" << std::string(run.failure.empty() ? ", all replies equal" : ""));
}

}  // namespace lawnkv::test
