// MEMORY USAGE, STATS, PURGE, HELP, and the memory figures INFO shares.
//
// Allocator figures come from core/allocator (jemalloc, as Redis). A key's
// usage is what its entry holds: the Entry, the key and value bytes kept
// outside it, and its slot in the dictionary; Redis rounds to jemalloc's
// size classes, so the numbers differ from redis-server's.

#include <algorithm>
#include <cstdio>
#include <string>

#include "commands/memory_figures.hpp"
#include "commands/server_family.hpp"
#include "core/allocator.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

/* MEMORY USAGE key [SAMPLES count]
 * SAMPLES is checked as Redis checks it; lawnkv measures every value whole.
 * A key past its deadline is gone (null), as for every other command. */
void memory_usage_command(Call& call) {
  for (size_t j = 3; j < call.argv.size(); ++j) {
    if (iequals(call.argv[j], "samples") && j + 1 < call.argv.size()) {
      long long samples;
      if (!integer_or_reply(call, call.argv[j + 1], &samples)) return;
      if (samples < 0) return call.error(err::kSyntax);
      ++j;
    } else {
      return call.error(err::kSyntax);
    }
  }
  const store::Entry* e = lookup_write(call, call.argv[2]);
  if (!e) return call.reply.null();
  call.reply.integer(static_cast<int64_t>(entry_bytes(*e)));
}

/* MEMORY STATS
 * Redis 7.0's fields in its order (memory_figures.hpp computes them), and
 * lawnkv's expiry-index.bytes last. */
void memory_stats_command(Call& call) {
  const MemoryFigures m = memory_figures(call.server);
  auto& r = call.reply;
  auto integer = [&](std::string_view name, uint64_t v) {
    r.bulk(name);
    r.integer(static_cast<int64_t>(v));
  };
  auto signed_integer = [&](std::string_view name, int64_t v) {
    r.bulk(name);
    r.integer(v);
  };
  // Redis's ratios are floats, printed with a double's digits.
  auto ratio = [&](std::string_view name, uint64_t a, uint64_t b) {
    r.bulk(name);
    r.dbl(static_cast<float>(a) / static_cast<float>(b));
  };
  r.map(28 + m.dbs.size());
  integer("peak.allocated", m.peak);
  integer("total.allocated", m.used);
  integer("startup.allocated", m.startup);
  integer("replication.backlog", 0);
  integer("clients.slaves", 0);
  integer("clients.normal", m.clients_normal);
  integer("cluster.links", 0);
  integer("aof.buffer", 0);
  integer("lua.caches", m.scripting.scripts_eval);
  integer("functions.caches", m.scripting.functions_bytes);
  for (const MemoryFigures::Db& db : m.dbs) {
    r.bulk("db." + std::to_string(db.index));
    r.map(3);
    integer("overhead.hashtable.main", db.main);
    integer("overhead.hashtable.expires", db.expires);
    integer("overhead.hashtable.slot-to-keys", 0);  // no cluster mode
  }
  integer("overhead.total", m.overhead);
  integer("keys.count", m.keys);
  integer("keys.bytes-per-key", m.bytes_per_key);
  integer("dataset.bytes", m.dataset);
  r.bulk("dataset.percentage");
  r.dbl(static_cast<float>(m.dataset_perc));
  r.bulk("peak.percentage");
  r.dbl(static_cast<float>(m.peak_perc));
  integer("allocator.allocated", m.alloc.allocated);
  integer("allocator.active", m.alloc.active);
  integer("allocator.resident", m.alloc.resident);
  ratio("allocator-fragmentation.ratio", m.alloc.active, m.alloc.allocated);
  signed_integer("allocator-fragmentation.bytes", static_cast<int64_t>(m.alloc.active - m.alloc.allocated));
  ratio("allocator-rss.ratio", m.alloc.resident, m.alloc.active);
  signed_integer("allocator-rss.bytes", static_cast<int64_t>(m.alloc.resident - m.alloc.active));
  ratio("rss-overhead.ratio", m.rss, m.alloc.resident);
  signed_integer("rss-overhead.bytes", static_cast<int64_t>(m.rss - m.alloc.resident));
  ratio("fragmentation", m.rss, m.used);
  signed_integer("fragmentation.bytes", static_cast<int64_t>(m.rss - m.used));
  integer("expiry-index.bytes", expiry_index_bytes(call.server));
}

/* MEMORY MALLOC-STATS */
void memory_malloc_stats_command(Call& call) { call.reply.verbatim(allocator::stats_text()); }

/* MEMORY PURGE */
void memory_purge_command(Call& call) {
  allocator::purge();
  call.reply.simple("OK");
}

/* MEMORY DOCTOR
 * Redis's report, from the figures lawnkv has: an almost empty instance, a
 * past peak, fragmentation (RSS against used memory), big client buffers. */
void memory_doctor_command(Call& call) {
  const uint64_t used = allocator::used_bytes();
  const uint64_t rss = allocator::resident_bytes();
  const uint64_t peak = std::max(call.server.facts.used_memory_peak, used);
  const size_t clients = std::max<size_t>(1, call.server.clients.size());
  if (used < 5 * 1024 * 1024)
    return call.reply.verbatim(
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these "
        "conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be "
        "back to our programming as soon as I finished rebooting.\n");
  std::string report;
  if (static_cast<double>(peak) / static_cast<double>(used) > 1.5)
    report += " * Peak memory: In the past this instance used more than 150% the memory that is currently using. "
              "The allocator is normally not able to release memory after a peak, so you can expect to see a big "
              "fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if "
              "the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used "
              "as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you "
              "want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option "
              "is to shutdown and restart the instance.\n\n";
  if (static_cast<double>(rss) / static_cast<double>(used) > 1.4 && rss - used > (10u << 20))
    report += " * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this "
              "means that the Resident Set Size of the Redis process is much larger than the sum of the logical "
              "allocations Redis performed). This problem is usually due either to a large peak memory (check if "
              "there is a peak memory entry above in the report) or may result from a workload that causes the "
              "allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. "
              "Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
              "currently used allocator is \"" + std::string(allocator::name()) + "\".\n\n";
  if (client_buffer_bytes(call.server) / clients > 1024 * 200)
    report += " * Big client buffers: The clients output buffers in this instance are greater than 200K per client "
              "(on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot "
              "not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients "
              "sending commands with large replies or very large sequences of commands in the same pipeline. Please "
              "use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, "
              "or to understand better why certain clients are using a big amount of memory.\n\n";
  if (report.empty())
    return call.reply.verbatim(
        "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n");
  call.reply.verbatim("Sam, I detected a few issues in this Redis instance memory implants:\n\n" + report +
                      "I'm here to keep you safe, Sam. I want to help you.\n");
}

/* MEMORY HELP */
void memory_help_command(Call& call) {
  reply_help(call, "MEMORY",
             {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
              "    Return internal statistics report from the memory allocator.", "PURGE", "    Return free memory held by the allocator to the system.", "STATS",
              "    Return a map of memory figures of the server.", "USAGE <key> [SAMPLES <count>]",
              "    Return the bytes <key> and its value take (SAMPLES is accepted; values are measured whole)."});
}

}  // namespace

uint64_t client_buffer_bytes(const ServerState& server) {
  uint64_t n = 0;
  for (const auto& [id, s] : server.clients.all()) n += s->query_buffer_bytes() + s->output_buffer_bytes();
  return n;
}

uint64_t expiry_index_bytes(const ServerState& server) {
  uint64_t n = 0;
  for (int db = 0; db < server.data.keyspace.databases(); ++db) n += server.data.keyspace.db(db).index_memory_bytes();
  return n;
}

uint64_t entry_bytes(const store::Entry& e) {
  // The block, what it points to outside, and its dictionary bucket's share.
  return e.block_bytes() + e.outside_bytes() + sizeof(uint32_t);
}

void register_memory_command(CommandTable& t) {
  t.add({
    {.name = "memory", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "server", .since = "4.0.0", .complexity = "Depends on the subcommand",
     .summary = "Commands about memory use",
     .subcommands = {
         {.name = "memory|usage", .arity = -3, .flags = kReadonly, .keys = {2, 2, 1},
          .acl = "@read @slow",
          .group = "server", .since = "4.0.0", .complexity = "O(1)",
          .summary = "Returns the bytes a key and its value take",
          .key_flags = "RO",
          .handler = memory_usage_command},
         {.name = "memory|stats", .arity = 2, .flags = 0,
          .acl = "@slow",
          .group = "server", .since = "4.0.0", .complexity = "O(1)",
          .summary = "Returns memory figures of the server",
          .tips = "nondeterministic_output request_policy:all_shards response_policy:special",
          .handler = memory_stats_command},
         {.name = "memory|doctor", .arity = 2, .flags = 0,
          .acl = "@slow",
          .group = "server", .since = "4.0.0", .complexity = "O(1)",
          .summary = "Reports memory problems, in Redis's words",
          .tips = "nondeterministic_output request_policy:all_shards response_policy:special",
          .handler = memory_doctor_command},
         {.name = "memory|malloc-stats", .arity = 2, .flags = 0,
          .acl = "@slow",
          .group = "server", .since = "4.0.0", .complexity = "Depends on how much memory is allocated, could be slow",
          .summary = "Show allocator internal stats",
          .tips = "nondeterministic_output request_policy:all_shards response_policy:special",
          .handler = memory_malloc_stats_command},
         {.name = "memory|purge", .arity = 2, .flags = 0,
          .acl = "@slow",
          .group = "server", .since = "4.0.0", .complexity = "Depends on the allocator",
          .summary = "Returns free allocator memory to the system",
          .tips = "request_policy:all_shards response_policy:all_succeeded",
          .handler = memory_purge_command},
         {.name = "memory|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "4.0.0", .complexity = "O(1)",
          .summary = "Describes the MEMORY subcommands",
          .handler = memory_help_command},
     }},
  });
}

}  // namespace lawnkv
