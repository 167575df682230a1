// INFO's field names against redis-server 7.0.15: every field lawnkv prints
// in the sections Redis has is one Redis prints too (tools parse them by
// name), and the fields the memory and eviction issue lists are in both.
// lawnkv's own fields live in sections of their own (INFO expiry), except
// those named below.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

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

}  // namespace lawnkv::test
