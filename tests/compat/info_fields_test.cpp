// INFO's field names against redis-server 7.0.15: every field lawnkv prints
// in the sections Redis has is one Redis prints too (tools parse them by
// name), every field Redis prints in its default sections lawnkv prints
// too (but the few named below), the default sections come in Redis's
// order, and the fields the memory and eviction issue lists are in both.
// lawnkv's own fields live in sections of their own (INFO expiry), except
// those named below.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

std::string info_text(RawClient& c, const std::string& section) {
  if (section.empty()) return parse_reply(c.call({"INFO"})).text;
  return parse_reply(c.call({"INFO", section})).text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find("\r\n", pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 2;
  }
  return out;
}

std::set<std::string> field_names(RawClient& c, const std::string& section) {
  const Reply r = parse_reply(c.call({"INFO", section}));
  std::set<std::string> out;
  size_t pos = 0;
  while (pos < r.text.size()) {
    size_t end = r.text.find("\r\n", pos);
    if (end == std::string::npos) end = r.text.size();
    const std::string line = r.text.substr(pos, end - pos);
    pos = end + 2;
    if (line.empty() || line[0] == '#') continue;
    out.insert(line.substr(0, line.find(':')));
  }
  return out;
}

}  // namespace

TEST_CASE("compat: INFO memory, stats, clients and server fields are Redis's names") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  RawClient ours(lawnkv.port()), theirs(redis.port());
  // Names Redis 7.0 lacks: Redis 7.4's count of expired hash fields (the
  // field TTLs came with it), Redis 7.2's counts of clients closed at their
  // buffer limits, and lawnkv's own version beside redis_version.
  const std::set<std::string> newer = {"expired_subkeys", "client_query_buffer_limit_disconnections",
                                       "client_output_buffer_limit_disconnections", "lawnkv_version"};
  for (const std::string section : {"server", "clients", "memory", "stats", "persistence"}) {
    CAPTURE(section);
    const std::set<std::string> mine = field_names(ours, section);
    const std::set<std::string> reference = field_names(theirs, section);
    CHECK(mine.size() > 5);
    for (const std::string& name : mine) {
      CAPTURE(name);
      CHECK((reference.count(name) == 1 || newer.count(name) == 1));
    }
  }
  const std::set<std::string> memory = field_names(ours, "memory");
  const std::set<std::string> stats = field_names(ours, "stats");
  for (const char* name : {"used_memory", "used_memory_human", "used_memory_rss", "used_memory_peak", "maxmemory",
                           "maxmemory_human", "maxmemory_policy", "mem_fragmentation_ratio",
                           "mem_not_counted_for_evict", "mem_clients_normal", "mem_allocator"})
    CHECK_MESSAGE(memory.count(name) == 1, name);
  for (const char* name : {"evicted_keys", "evicted_clients", "total_eviction_exceeded_time",
                           "current_eviction_exceeded_time"})
    CHECK_MESSAGE(stats.count(name) == 1, name);
}

TEST_CASE("compat: default INFO has Redis's sections in Redis's order, and every field of them") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  RawClient ours(lawnkv.port()), theirs(redis.port());
  for (RawClient* c : {&ours, &theirs}) c->call({"GET"});  // an error: errorstat_ERR
  std::vector<std::string> our_sections, their_sections;
  std::set<std::string> our_fields, their_fields;
  for (const auto& [c, sections, fields] :
       {std::tie(ours, our_sections, our_fields), std::tie(theirs, their_sections, their_fields)}) {
    for (const std::string& line : lines_of(info_text(c, ""))) {
      if (line.empty()) continue;
      if (line[0] == '#') {
        sections.push_back(line);
      } else {
        fields.insert(line.substr(0, line.find(':')));
      }
    }
  }
  // lawnkv's Expiry section follows Stats.
  std::vector<std::string> expected = their_sections;
  expected.insert(std::find(expected.begin(), expected.end(), "# Stats") + 1, "# Expiry");
  CHECK(our_sections == expected);
  CHECK(our_sections.back() == "# Keyspace");
  // What lawnkv leaves out: Redis's build id (a hash of its own build),
  // and its reply-buffer resizing counters (lawnkv's replies have no such
  // buffer).
  const std::set<std::string> left_out = {"redis_build_id", "reply_buffer_shrinks", "reply_buffer_expands"};
  for (const std::string& name : their_fields) {
    CAPTURE(name);
    CHECK((our_fields.count(name) == 1 || left_out.count(name) == 1));
  }
  CHECK(our_fields.count("errorstat_ERR") == 1);
  // Redis counts every read of a client's socket and every write to it.
  for (int i = 0; i < 5; ++i) ours.call({"PING"});
  std::map<std::string, long long> stats;
  for (const std::string& line : lines_of(info_text(ours, "stats")))
    if (const size_t colon = line.find(':'); colon != std::string::npos)
      stats[line.substr(0, colon)] = std::atoll(line.c_str() + colon + 1);
  CHECK(stats["total_reads_processed"] >= 7);
  CHECK(stats["total_writes_processed"] >= 7);
  CHECK(stats["total_error_replies"] == 1);
  CHECK(parse_reply(ours.call({"MODULE", "LIST"})).elements.empty());
}

}  // namespace lawnkv::test
