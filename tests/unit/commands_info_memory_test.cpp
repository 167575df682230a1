// INFO's error counts and memory figures, and MEMORY STATS, computed as
// Redis 7.0 computes them (issue 25). The field lists and errorstats
// replies are compared with redis-server in tests/compat (info_fields_test,
// cases/info.txt); this file pins the arithmetic.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

// INFO's name:value lines as a map.
std::map<std::string, std::string> info(test::CommandServer& s, const std::string& section) {
  std::string text = s.run({"info", section});
  text = text.substr(text.find("\r\n") + 2);  // the bulk's length line
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find("\r\n", pos);
    const std::string line = text.substr(pos, end - pos);
    pos = end + 2;
    if (const size_t colon = line.find(':'); colon != std::string::npos && line[0] != '#')
      out[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return out;
}

// MEMORY STATS's top-level integer and double fields as text.
std::map<std::string, std::string> memory_stats(test::CommandServer& s) {
  const std::string r = s.run({"memory", "stats"});
  std::map<std::string, std::string> out;
  size_t pos = r.find("\r\n") + 2;
  std::string name;
  while (pos < r.size()) {
    const size_t end = r.find("\r\n", pos);
    const std::string line = r.substr(pos, end - pos);
    pos = end + 2;
    if (line[0] == '$') {
      const size_t len = std::stoul(line.substr(1));
      name = r.substr(pos, len);
      pos += len + 2;
    } else if (line[0] == ':' || line[0] == ',') {
      out[name] = line.substr(1);
    }
  }
  return out;
}

TEST_CASE("total_error_replies and errorstats count every error reply, muted ones and unknown commands too") {
  test::CommandServer s;
  CHECK(info(s, "stats")["total_error_replies"] == "0");
  s.run({"nosuchcommand"});
  s.run({"get"});
  s.run({"set", "k", "v"});
  s.run({"lpush", "k", "x"});
  s.run({"client", "reply", "off"});
  s.run({"lpush", "k", "x"});
  s.run({"client", "reply", "on"});
  CHECK(info(s, "stats")["total_error_replies"] == "4");
  const auto errors = info(s, "errorstats");
  CHECK(errors.at("errorstat_ERR") == "count=2");
  CHECK(errors.at("errorstat_WRONGTYPE") == "count=2");
  CHECK(s.run({"config", "resetstat"}) == "+OK\r\n");
  CHECK(info(s, "stats")["total_error_replies"] == "0");
  CHECK(info(s, "errorstats").empty());
}

TEST_CASE("MEMORY STATS and INFO memory: overhead, dataset and bytes per key as Redis computes them") {
  test::CommandServer s;
  for (int i = 0; i < 2; ++i) s.run({"set", "key:" + std::to_string(i), std::string(100, 'v')});
  s.run({"set", "ttl", "v", "EX", "100"});
  auto m = memory_stats(s);
  const long long total = std::stoll(m.at("total.allocated"));
  const long long startup = std::stoll(m.at("startup.allocated"));
  const long long overhead = std::stoll(m.at("overhead.total"));
  CHECK(m.at("keys.count") == "3");
  // (total - startup) / keys, not all memory over the keys (which gave
  // 610,212 bytes a key for 2 keys).
  CHECK(std::stoll(m.at("keys.bytes-per-key")) == (total - startup) / 3);
  CHECK(overhead >= startup);
  // used - overhead (0 if the test process's startup figure is above it)
  CHECK(std::stoll(m.at("dataset.bytes")) == std::max(0LL, total - overhead));
  CHECK(m.count("peak.allocated") == 1);
  CHECK(m.count("allocator.resident") == 1);
  const std::string raw = s.run({"memory", "stats"});
  for (const char* name : {"db.0", "overhead.hashtable.slot-to-keys", "fragmentation", "dataset.percentage",
                           "allocator-rss.ratio"})
    CHECK_MESSAGE(raw.find("\r\n" + std::string(name) + "\r\n") != std::string::npos, name);

  auto mem = info(s, "memory");
  CHECK(std::stoll(mem.at("used_memory_overhead")) >= std::stoll(mem.at("used_memory_startup")));
  CHECK(std::stoll(mem.at("used_memory_dataset")) ==
        std::max(0LL, std::stoll(mem.at("used_memory")) - std::stoll(mem.at("used_memory_overhead"))));
  CHECK(std::stoll(mem.at("allocator_active")) >= std::stoll(mem.at("allocator_allocated")));
  // The interpreter exists from the first INFO on; no script is cached yet.
  CHECK(std::stoll(mem.at("used_memory_lua")) > 0);
  CHECK(mem.at("number_of_cached_scripts") == "0");
  CHECK(mem.at("used_memory_scripts_eval") == "0");
  s.run({"script", "load", "return 1"});
  mem = info(s, "memory");
  CHECK(mem.at("number_of_cached_scripts") == "1");
  CHECK(std::stoll(mem.at("used_memory_scripts_eval")) > 0);
  CHECK(std::stoll(mem.at("used_memory_scripts")) >= std::stoll(mem.at("used_memory_scripts_eval")));
}

TEST_CASE("MEMORY MALLOC-STATS is the allocator's report, as Redis's") {
  test::CommandServer s;
  const std::string r = s.run({"memory", "malloc-stats"});
  REQUIRE(r[0] == '$');
  // jemalloc's malloc_stats_print; a sanitizer build (libc malloc) answers
  // Redis's text for an allocator without statistics.
  CHECK((r.find("___ Begin jemalloc statistics ___") != std::string::npos ||
         r.find("Stats not supported for the current allocator") != std::string::npos));
  CHECK(s.run({"memory", "malloc-stats", "x"}) ==
        "-ERR wrong number of arguments for 'memory|malloc-stats' command\r\n");  // redis
}

}  // namespace
}  // namespace lawnkv
