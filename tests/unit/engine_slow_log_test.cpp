// The slow log and the latency monitor (engine/slow_log.hpp,
// engine/latency_monitor.hpp) as dispatch feeds them: what an entry holds
// (arguments cut as Redis cuts them, the client's address and name, the
// command's time), the bounds slowlog-max-len and slowlog-log-slower-than
// set, the commands never logged (skip_slowlog: EXEC), and the latency
// monitor's one sample a second. Replies are compared with redis-server in
// tests/compat/cases/slowlog.txt.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv::test {

TEST_CASE("slow log: entries hold Redis's cut arguments, the client and the time") {
  CommandServer s;
  s.run({"config", "set", "slowlog-log-slower-than", "0"});
  s.run({"slowlog", "reset"});
  s.session.name = "worker";
  std::vector<std::string> many{"rpush", "list"};
  for (int i = 0; i < 40; ++i) many.push_back(std::to_string(i));
  s.run(many);
  s.run({"set", "k", std::string(130, 'x')});

  const auto& entries = s.state.slowlog.entries();
  REQUIRE(entries.size() == 3);  // SLOWLOG RESET logs itself after it ran
  const SlowLogEntry& set = entries[0];
  CHECK(set.argv == std::vector<std::string>{"set", "k", std::string(128, 'x') + "... (2 more bytes)"});
  CHECK(set.peer == "127.0.0.1:50000");
  CHECK(set.name == "worker");
  CHECK(set.time_s == kT0 / 1000);
  CHECK(set.duration_us >= 0);
  const SlowLogEntry& push = entries[1];
  REQUIRE(push.argv.size() == 32);
  CHECK(push.argv[30] == "28");
  CHECK(push.argv[31] == "... (11 more arguments)");
  CHECK(push.id + 1 == set.id);
  CHECK(entries[2].argv == std::vector<std::string>{"slowlog", "reset"});

  // The reply: newest first, six fields each.
  const std::string got = s.run({"slowlog", "get", "1"});
  CHECK(got.rfind("*1\r\n*6\r\n:" + std::to_string(set.id) + "\r\n:" + std::to_string(kT0 / 1000) + "\r\n", 0) == 0);
  CHECK(got.find("$6\r\nworker\r\n") != std::string::npos);
}

TEST_CASE("slow log: slowlog-max-len, the threshold, and commands never logged") {
  CommandServer s;
  s.run({"config", "set", "slowlog-log-slower-than", "0"});
  s.run({"config", "set", "slowlog-max-len", "3"});
  for (int i = 0; i < 5; ++i) s.run({"ping", std::to_string(i)});
  CHECK(s.state.slowlog.entries().front().argv[1] == "4");
  CHECK(s.state.slowlog.entries().back().argv[1] == "2");
  CHECK(s.run({"slowlog", "len"}) == ":3\r\n");

  // EXEC is skip_slowlog: the commands it ran are logged, not EXEC.
  s.run({"slowlog", "reset"});
  s.run({"multi"});
  s.run({"set", "a", "1"});
  s.run({"exec"});
  std::vector<std::string> names;
  for (const auto& e : s.state.slowlog.entries()) names.push_back(e.argv[0]);
  CHECK(names == std::vector<std::string>{"set", "multi", "slowlog"});

  // A threshold no command reaches, then none at all.
  s.run({"config", "set", "slowlog-log-slower-than", "100000000"});
  s.run({"slowlog", "reset"});
  s.run({"ping"});
  CHECK(s.run({"slowlog", "len"}) == ":0\r\n");
  s.run({"config", "set", "slowlog-log-slower-than", "-1"});
  s.run({"ping"});
  CHECK(s.state.slowlog.entries().empty());
}

TEST_CASE("latency monitor: one sample a second, the largest; the all-time max; reset by name") {
  LatencyMonitor m;
  m.add_if_needed("command", 5, 0, 100);  // monitor off
  CHECK(m.events().empty());
  m.add_if_needed("command", 5, 10, 100);  // under the threshold
  CHECK(m.events().empty());
  m.add_if_needed("command", 12, 10, 100);
  m.add_if_needed("command", 30, 10, 100);
  m.add_if_needed("command", 20, 10, 100);
  m.add_if_needed("command", 15, 10, 101);
  const LatencyMonitor::Series* s = m.find("command");
  REQUIRE(s != nullptr);
  CHECK(s->max_ms == 30);
  CHECK(s->latest().time_s == 101);
  CHECK(s->latest().latency_ms == 15);
  CHECK(s->samples[0].latency_ms == 30);
  // 160 seconds are kept: the oldest go.
  for (int t = 0; t < 200; ++t) m.add("command", 11, 1000 + t);
  size_t held = 0;
  for (const auto& x : m.find("command")->samples) held += x.time_s != 0;
  CHECK(held == LatencyMonitor::kSamples);
  CHECK(m.reset("COMMAND") == 1);
  CHECK(m.reset("command") == 0);
  CHECK(m.doctor(0, 0).rfind("I'm sorry, Dave", 0) == 0);
  CHECK(m.doctor(5, 0).rfind("Dave, no latency spike", 0) == 0);
  m.add("command", 40, 1000);
  m.add("command", 20, 1001);
  CHECK(m.doctor(5, 1004).find("1. command: 2 latency spikes (average 30ms, mean deviation 10ms, period 2.00 sec). "
                               "Worst all time event 40ms.") != std::string::npos);
}

}  // namespace lawnkv::test
