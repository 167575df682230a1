// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS and XINFO HELP,
// with Redis 7.0's replies. "radix-tree-keys" is the number of nodes, which
// split where Redis's listpacks do; "radix-tree-nodes" is the node count of
// the radix tree Redis would hold for those keys (each master ID as 16
// bytes, big endian), computed from the keys.

#include <array>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "commands/streams_errors.hpp"
#include "commands/streams_ops.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

using types::Stream;
using types::StreamGroup;
using types::StreamId;

using Key = std::array<uint8_t, 16>;

Key key_of(StreamId id) {
  Key k;
  for (int i = 0; i < 8; i++) {
    k[static_cast<size_t>(i)] = static_cast<uint8_t>(id.ms >> (56 - 8 * i));
    k[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(id.seq >> (56 - 8 * i));
  }
  return k;
}

// Nodes of a compressed radix tree (Redis's rax) holding keys[lo, hi), all
// equal before depth: a compressed node for a shared run, a branching node
// where they differ, and an empty node for each key's end.
size_t rax_nodes(const std::vector<Key>& keys, size_t lo, size_t hi, size_t depth) {
  if (hi - lo == 1) return depth < 16 ? 2 : 1;
  size_t p = depth;
  while (p < 16 && keys[lo][p] == keys[hi - 1][p]) p++;
  size_t n = (p > depth ? 1 : 0) + 1;
  for (size_t i = lo; i < hi;) {
    size_t j = i;
    while (j < hi && keys[j][p] == keys[i][p]) j++;
    n += rax_nodes(keys, i, j, p + 1);
    i = j;
  }
  return n;
}

size_t radix_tree_nodes(const Stream& s) {
  std::vector<Key> keys;
  for (const auto id : s.node_ids()) keys.push_back(key_of(id));
  if (keys.empty()) return 1;
  return rax_nodes(keys, 0, keys.size(), 0);
}

// Redis's streamReplyWithCGLag.
void reply_lag(resp::Writer& r, const Stream& s, const StreamGroup& g) {
  if (!s.entries_added()) return r.integer(0);
  if (g.entries_read != types::kEntriesReadUnknown && !s.range_has_tombstones(g.last_id, nullptr))
    return r.integer(static_cast<int64_t>(s.entries_added()) - g.entries_read);
  const int64_t read = s.estimate_distance(g.last_id);
  if (read == types::kEntriesReadUnknown) return r.null();
  r.integer(static_cast<int64_t>(s.entries_added()) - read);
}

void reply_entries_read(resp::Writer& r, const StreamGroup& g) {
  if (g.entries_read == types::kEntriesReadUnknown) return r.null();
  r.integer(g.entries_read);
}

// The stream at argv[2], or nullptr with err::kNoSuchKey or WRONGTYPE replied.
Stream* stream_or_reply(Call& call) {
  bool wrong_type;
  Stream* s = lookup_or_reply<Stream>(call, call.argv[2], Intent::kRead, &wrong_type);
  if (!s && !wrong_type) call.error(err::kNoSuchKey);
  return s;
}

/* XINFO STREAM key [FULL [COUNT count]] */
void xinfo_stream_command(Call& call) {
  const auto& argv = call.argv;
  bool full = false;
  long long count = 10;
  if (argv.size() > 3) {
    const size_t optc = argv.size() - 3;
    if (optc != 1 && optc != 3) return reply_subcommand_syntax_error(call);
    if (!iequals(argv[3], "full")) return reply_subcommand_syntax_error(call);
    if (optc == 3) {
      if (!iequals(argv[4], "count")) return reply_subcommand_syntax_error(call);
      if (!integer_or_reply(call, argv[5], &count)) return;
      if (count < 0) count = 10;
    }
    full = true;
  }
  Stream* s = stream_or_reply(call);
  if (!s) return;
  auto& r = call.reply;
  r.map(full ? 9 : 10);
  r.bulk("length");
  r.integer(static_cast<int64_t>(s->length()));
  r.bulk("radix-tree-keys");
  r.integer(static_cast<int64_t>(s->node_count()));
  r.bulk("radix-tree-nodes");
  r.integer(static_cast<int64_t>(radix_tree_nodes(*s)));
  r.bulk("last-generated-id");
  reply_stream_id(r, s->last_id());
  r.bulk("max-deleted-entry-id");
  reply_stream_id(r, s->max_deleted_id());
  r.bulk("entries-added");
  r.integer(static_cast<int64_t>(s->entries_added()));
  r.bulk("recorded-first-entry-id");
  reply_stream_id(r, s->first_id());
  if (!full) {
    r.bulk("groups");
    r.integer(static_cast<int64_t>(s->groups().size()));
    for (const bool rev : {false, true}) {
      r.bulk(rev ? "last-entry" : "first-entry");
      const auto e = stream_range(*s, {}, StreamId::max(), rev, 1);
      if (e.empty()) {
        r.null();
      } else {
        r.array(2);
        reply_stream_id(r, e[0].id);
        r.array_of_bulks(e[0].fields);
      }
    }
    return;
  }
  const size_t limit = static_cast<size_t>(count);
  r.bulk("entries");
  reply_stream_entries(r, stream_range(*s, {}, StreamId::max(), false, limit));
  r.bulk("groups");
  r.array(s->groups().size());
  for (const auto& [name, g] : s->groups()) {
    r.map(7);
    r.bulk("name");
    r.bulk(name);
    r.bulk("last-delivered-id");
    reply_stream_id(r, g->last_id);
    r.bulk("entries-read");
    reply_entries_read(r, *g);
    r.bulk("lag");
    reply_lag(r, *s, *g);
    r.bulk("pel-count");
    r.integer(static_cast<int64_t>(g->pel.size()));
    r.bulk("pending");
    const size_t shown = limit && g->pel.size() > limit ? limit : g->pel.size();
    r.array(shown);
    size_t k = 0;
    for (auto it = g->pel.begin(); k < shown; ++it, ++k) {
      r.array(4);
      reply_stream_id(r, it->first);
      r.bulk(it->second.consumer->name);
      r.integer(it->second.delivery_time);
      r.integer(static_cast<int64_t>(it->second.delivery_count));
    }
    r.bulk("consumers");
    r.array(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      r.map(4);
      r.bulk("name");
      r.bulk(cname);
      r.bulk("seen-time");
      r.integer(c->seen_time);
      r.bulk("pel-count");
      r.integer(static_cast<int64_t>(c->pel.size()));
      r.bulk("pending");
      const size_t cshown = limit && c->pel.size() > limit ? limit : c->pel.size();
      r.array(cshown);
      size_t m = 0;
      for (auto it = c->pel.begin(); m < cshown; ++it, ++m) {
        const auto& nack = g->pel.find(*it)->second;
        r.array(3);
        reply_stream_id(r, *it);
        r.integer(nack.delivery_time);
        r.integer(static_cast<int64_t>(nack.delivery_count));
      }
    }
  }
}

/* XINFO GROUPS key */
void xinfo_groups_command(Call& call) {
  Stream* s = stream_or_reply(call);
  if (!s) return;
  auto& r = call.reply;
  r.array(s->groups().size());
  for (const auto& [name, g] : s->groups()) {
    r.map(6);
    r.bulk("name");
    r.bulk(name);
    r.bulk("consumers");
    r.integer(static_cast<int64_t>(g->consumers.size()));
    r.bulk("pending");
    r.integer(static_cast<int64_t>(g->pel.size()));
    r.bulk("last-delivered-id");
    reply_stream_id(r, g->last_id);
    r.bulk("entries-read");
    reply_entries_read(r, *g);
    r.bulk("lag");
    reply_lag(r, *s, *g);
  }
}

/* XINFO CONSUMERS key group */
void xinfo_consumers_command(Call& call) {
  Stream* s = stream_or_reply(call);
  if (!s) return;
  const StreamGroup* g = s->group(call.argv[3]);
  if (!g) return call.error(format_error(kNoGroupForKey, {call.argv[3], call.argv[2]}));
  auto& r = call.reply;
  r.array(g->consumers.size());
  for (const auto& [name, c] : g->consumers) {
    r.map(3);
    r.bulk("name");
    r.bulk(name);
    r.bulk("pending");
    r.integer(static_cast<int64_t>(c->pel.size()));
    r.bulk("idle");
    const int64_t idle = call.now_ms - c->seen_time;
    r.integer(idle < 0 ? 0 : idle);
  }
}

/* XINFO HELP */
void xinfo_help_command(Call& call) {
  reply_help(call, "XINFO",
             {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.", "GROUPS <key>",
              "    Show the stream consumer groups.", "STREAM <key> [FULL [COUNT <count>]",
              "    Show information about the stream."});
}

}  // namespace

void register_stream_info_commands(CommandTable& t) {
  t.add({
    {.name = "xinfo", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "stream", .since = "5.0.0", .complexity = "Depends on subcommand.",
     .summary = "A container for stream introspection commands",
     .subcommands = {
         {.name = "xinfo|consumers", .arity = 4, .flags = kReadonly, .keys = {2, 2, 1},
          .acl = "@read @stream @slow",
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "List the consumers in a consumer group",
          .tips = "nondeterministic_output", .key_flags = "RO access",
          .handler = xinfo_consumers_command},
         {.name = "xinfo|groups", .arity = 3, .flags = kReadonly, .keys = {2, 2, 1},
          .acl = "@read @stream @slow",
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "List the consumer groups of a stream",
          .key_flags = "RO access",
          .handler = xinfo_groups_command},
         {.name = "xinfo|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@stream @slow",
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Show helpful text about the different subcommands",
          .handler = xinfo_help_command},
         {.name = "xinfo|stream", .arity = -3, .flags = kReadonly, .keys = {2, 2, 1},
          .acl = "@read @stream @slow",
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Get information about a stream",
          .key_flags = "RO access",
          .handler = xinfo_stream_command},
     }},
  });
}

}  // namespace lawnkv
