#include "case_runner.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>

#include "../support/escape.hpp"
#include "../support/raw_client.hpp"
#include "side_session.hpp"

namespace lawnkv::test {

namespace {

constexpr int kMaxReportedPerFile = 25;
// A server that stops answering would cost a reply timeout per line: after
// this many timeouts the rest of the file is skipped.
constexpr int kMaxTimeoutsPerFile = 3;

// FLUSHALL on a connection of its own; the reply, "+OK\r\n" when all is well.
std::string flush_all(uint16_t port) {
  try {
    RawClient admin(port, SideSession::kReplyTimeout);
    return admin.call({"FLUSHALL"});
  } catch (const std::exception& e) {
    return std::string("<") + e.what() + ">";
  }
}

}  // namespace

RunCounts run_case_script(ServerProcess& lawnkv, ServerProcess& redis, const CaseScript& script,
                          bool resp3) {
  RunCounts counts;
  const std::string file = script.path.string();
  const std::string mode = resp3 ? "RESP3" : "RESP2";
  for (auto* server : {&lawnkv, &redis}) {
    std::string reply = flush_all(server->port());
    if (reply != "+OK\r\n") {
      ADD_FAIL_CHECK_AT(file.c_str(), 1, "FLUSHALL before " << file << " on " << server->label()
                                                            << " replied " << escape_bytes(reply));
      ++counts.mismatches;
      counts.unresponsive = reply.find("no complete reply") != std::string::npos;
      return counts;
    }
  }

  SideSession ours(lawnkv.port(), resp3);
  SideSession theirs(redis.port(), resp3);
  int client = 1;
  int timeouts = 0;
  const bool trace = std::getenv("COMPAT_TRACE") != nullptr;
  for (const Step& step : script.steps) {
    if (step.switch_to_client != 0) {
      client = step.switch_to_client;
      ours.use_client(client);
      theirs.use_client(client);
      continue;
    }
    ++counts.commands;
    std::string got = ours.execute(step);
    std::string want = theirs.execute(step);
    if (trace) {
      std::cout << script.path.filename().string() << ":" << step.line << " [" << mode << "] "
                << step.source << "\n    " << escape_bytes(want, 600) << "\n";
    }
    // Both servers silent is no agreement: the step proved nothing.
    if (got == want && !got.starts_with("<no reply within")) continue;
    if (got.starts_with("<no reply within") && ++timeouts >= kMaxTimeoutsPerFile) {
      ADD_FAIL_CHECK_AT(file.c_str(), step.line,
                        "lawnkv did not reply " << timeouts << " times; skipping the rest of "
                                                << file << " (" << mode << ")");
      ++counts.mismatches;
      counts.unresponsive = true;
      break;
    }
    if (++counts.mismatches <= kMaxReportedPerFile) {
      ADD_FAIL_CHECK_AT(file.c_str(), step.line,
                        "[" << mode << ", client " << client << "] " << step.source
                            << "\n  lawnkv: " << escape_bytes(got, 600)
                            << "\n  redis:  " << escape_bytes(want, 600));
    }
    if (!lawnkv.running() || !redis.running()) {
      ADD_FAIL_CHECK_AT(file.c_str(), step.line,
                        (lawnkv.running() ? "redis-server" : "lawnkv") << " exited; stopping here");
      break;
    }
  }
  if (counts.mismatches > kMaxReportedPerFile) {
    ADD_FAIL_CHECK_AT(file.c_str(), 1,
                      (counts.mismatches - kMaxReportedPerFile)
                          << " more mismatches in " << file << " (" << mode << ") not shown");
  }
  return counts;
}

}  // namespace lawnkv::test
