// MEMORY USAGE, STATS, PURGE, HELP, and the memory figures INFO shares.
//
// Allocator figures come from core/allocator (jemalloc, as Redis). A key's
// usage is what its entry holds: the Entry, the key and value bytes kept
// outside it, and its slot in the dictionary; Redis rounds to jemalloc's
// size classes, so the numbers differ from redis-server's.

#include <cstdio>

#include "commands/args.hpp"
#include "commands/errors.hpp"
#include "commands/lookup.hpp"
#include "commands/server_family.hpp"
#include "core/allocator.hpp"

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

/* MEMORY STATS */
void memory_stats_command(Call& call) {
  const uint64_t allocated = allocator::allocated_bytes();
  const uint64_t rss = allocator::resident_bytes();
  const uint64_t keys = call.data.keyspace.total_keys();
  const uint64_t clients = client_buffer_bytes(call.server);
  const uint64_t index = expiry_index_bytes(call.server);
  auto& r = call.reply;
  r.map(8);
  r.bulk("total.allocated");
  r.integer(static_cast<int64_t>(allocated));
  r.bulk("clients.normal");
  r.integer(static_cast<int64_t>(clients));
  r.bulk("keys.count");
  r.integer(static_cast<int64_t>(keys));
  r.bulk("keys.bytes-per-key");
  r.integer(static_cast<int64_t>(keys ? allocated / keys : 0));
  r.bulk("expiry-index.bytes");
  r.integer(static_cast<int64_t>(index));
  r.bulk("rss.bytes");
  r.integer(static_cast<int64_t>(rss));
  r.bulk("fragmentation");
  r.dbl(allocated ? static_cast<double>(rss) / static_cast<double>(allocated) : 0);
  r.bulk("fragmentation.bytes");
  r.integer(static_cast<int64_t>(rss) - static_cast<int64_t>(allocated));
}

/* MEMORY PURGE */
void memory_purge_command(Call& call) {
  allocator::purge();
  call.reply.simple("OK");
}

/* MEMORY HELP */
void memory_help_command(Call& call) {
  reply_help(call, "MEMORY",
             {"PURGE", "    Return free memory held by the allocator to the system.", "STATS",
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
