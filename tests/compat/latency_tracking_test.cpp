// Per-command latency tracking beside redis-server 7.0.15: INFO
// latencystats and LATENCY HISTOGRAM after the same commands, with
// latency-tracking on and off, other percentiles, CONFIG RESETSTAT. The
// latencies themselves differ between the servers, so every number in the
// percentile lines is normalised (their rounding is Redis's HdrHistogram's:
// tests/unit/core_latency_histogram_test.cpp); names, call counts, the
// percentile labels and the shape of the replies must be the same.

#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

// INFO latencystats' lines, sorted (Redis lists commands in its hash
// table's order), each number made "N.NNN" after checking it has the
// form "%.3f".
std::vector<std::string> latencystats(RawClient& c) {
  const Reply r = parse_reply(c.call({"INFO", "latencystats"}));
  std::vector<std::string> lines;
  const std::regex number(R"(=[0-9]+\.[0-9]{3}(,|$))");
  size_t start = 0;
  const std::string& text = r.text;
  while (start < text.size()) {
    const size_t end = text.find("\r\n", start);
    std::string line = text.substr(start, end - start);
    lines.push_back(std::regex_replace(line, number, "=N.NNN$1"));
    start = end + 2;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// LATENCY HISTOGRAM's reply as "name calls=N" per command, sorted, after
// checking each histogram: steps of rising us and rising counts, the last
// count the calls.
std::vector<std::string> histograms(RawClient& c, std::initializer_list<std::string_view> argv) {
  const Reply r = parse_reply(c.call(argv));
  std::vector<std::string> out;
  REQUIRE(r.elements.size() % 2 == 0);
  for (size_t i = 0; i < r.elements.size(); i += 2) {
    const Reply& h = r.elements[i + 1];
    REQUIRE(h.elements.size() == 4);
    CHECK(h.elements[0].text == "calls");
    CHECK(h.elements[2].text == "histogram_usec");
    const Reply& steps = h.elements[3];
    long long last_us = -1, last_count = 0;
    for (size_t j = 0; j + 1 < steps.elements.size(); j += 2) {
      const long long us = std::stoll(steps.elements[j].text), count = std::stoll(steps.elements[j + 1].text);
      CHECK(us > last_us);
      CHECK(count > last_count);
      last_us = us;
      last_count = count;
    }
    CHECK(std::to_string(last_count) == h.elements[1].text);
    out.push_back(r.elements[i].text + " calls=" + h.elements[1].text);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Lines as one text, so a difference shows in the failure.
std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

void same_commands(RawClient& c) {
  for (int i = 0; i < 5; ++i) c.call({"SET", "k", std::to_string(i)});
  c.call({"GET", "k"});
  c.call({"GET", "nosuch"});
  c.call({"CONFIG", "GET", "maxmemory"});
  c.call({"DEBUG", "SLEEP", "0.01"});
  c.call({"LPUSH", "k", "x"});  // WRONGTYPE: failed calls count too
}

}  // namespace

TEST_CASE("compat: INFO latencystats and LATENCY HISTOGRAM as redis-server 7.0 gives them") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  for (RawClient* c : {&r, &l}) {
    REQUIRE(c->call({"CONFIG", "RESETSTAT"}) == "+OK\r\n");
    same_commands(*c);
  }
  const std::vector<std::string> first = latencystats(l);
  CHECK(joined(first) == joined(latencystats(r)));
  CHECK(first.size() > 5);
  CHECK(joined(histograms(l, {"LATENCY", "HISTOGRAM", "set", "GET", "config", "nosuch", "config|get"})) == joined(histograms(r, {"LATENCY", "HISTOGRAM", "set", "GET", "config", "nosuch", "config|get"})));
  CHECK(l.call({"LATENCY", "HISTOGRAM", "nosuch"}) == r.call({"LATENCY", "HISTOGRAM", "nosuch"}));
  CHECK(l.call({"LATENCY", "HISTOGRAM", "lpop"}) == r.call({"LATENCY", "HISTOGRAM", "lpop"}));
  CHECK(joined(histograms(l, {"LATENCY", "HISTOGRAM"})) == joined(histograms(r, {"LATENCY", "HISTOGRAM"})));

  // Other percentiles; none.
  for (RawClient* c : {&r, &l})
    REQUIRE(c->call({"CONFIG", "SET", "latency-tracking-info-percentiles", "0 12.5 100 99.99"}) == "+OK\r\n");
  CHECK(l.call({"CONFIG", "GET", "latency-tracking-info-percentiles"}) ==
        r.call({"CONFIG", "GET", "latency-tracking-info-percentiles"}));
  CHECK(joined(latencystats(l)) == joined(latencystats(r)));
  for (RawClient* c : {&r, &l})
    REQUIRE(c->call({"CONFIG", "SET", "latency-tracking-info-percentiles", ""}) == "+OK\r\n");
  CHECK(joined(latencystats(l)) == joined(latencystats(r)));
  for (const char* bad : {"abc", "101", "-1", "50 x"})
    CHECK(l.call({"CONFIG", "SET", "latency-tracking-info-percentiles", bad}) ==
          r.call({"CONFIG", "SET", "latency-tracking-info-percentiles", bad}));

  // Off: nothing recorded nor shown; RESETSTAT forgets what was.
  for (RawClient* c : {&r, &l}) {
    REQUIRE(c->call({"CONFIG", "SET", "latency-tracking-info-percentiles", "50"}) == "+OK\r\n");
    REQUIRE(c->call({"CONFIG", "SET", "latency-tracking", "no"}) == "+OK\r\n");
    c->call({"PING"});
  }
  CHECK(joined(latencystats(l)) == joined(latencystats(r)));
  CHECK(latencystats(l) == std::vector<std::string>{"# Latencystats"});
  CHECK(joined(histograms(l, {"LATENCY", "HISTOGRAM", "ping"})) == joined(histograms(r, {"LATENCY", "HISTOGRAM", "ping"})));
  for (RawClient* c : {&r, &l}) {
    REQUIRE(c->call({"CONFIG", "SET", "latency-tracking", "yes"}) == "+OK\r\n");
    REQUIRE(c->call({"CONFIG", "RESETSTAT"}) == "+OK\r\n");
  }
  CHECK(l.call({"LATENCY", "HISTOGRAM", "set"}) == "*0\r\n");
  CHECK(r.call({"LATENCY", "HISTOGRAM", "set"}) == "*0\r\n");
  CHECK(joined(latencystats(l)) == joined(latencystats(r)));
  CHECK(joined(histograms(l, {"LATENCY", "HISTOGRAM"})) == joined(histograms(r, {"LATENCY", "HISTOGRAM"})));
}

}  // namespace lawnkv::test
