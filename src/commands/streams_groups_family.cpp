// Stream consumer groups: XGROUP (CREATE, SETID, DESTROY, CREATECONSUMER,
// DELCONSUMER, HELP), XREADGROUP (COUNT, BLOCK, NOACK, ">" and a
// consumer's history), XACK, XPENDING (summary and extended), XCLAIM and
// XSETID, with Redis 7.0's replies, errors and keyspace events
// (xgroup-create, xgroup-setid, xgroup-destroy, xgroup-createconsumer,
// xgroup-delconsumer, xsetid). The groups are types::StreamGroup.
//
// Effects, as Redis propagates them: XREADGROUP records each delivery as
// "XCLAIM key group consumer 0 id TIME <ms> RETRYCOUNT <n> FORCE JUSTID
// LASTID <group's last ID>" (and, with NOACK, the consumer's creation and
// "XGROUP SETID ... ENTRIESREAD"), XCLAIM its claims the same way, so a
// replay rebuilds the same pending lists without the clock. A read of a
// consumer's history, which Redis does not propagate, is recorded too.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "commands/streams_errors.hpp"
#include "commands/streams_ops.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "expiry/timer.hpp"

namespace lawnkv {

namespace {

using types::Stream;
using types::StreamConsumer;
using types::StreamGroup;
using types::StreamId;
using types::StreamNack;

constexpr std::string_view kNeedsKey =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM "
    "option to create an empty stream automatically.";
constexpr std::string_view kBusyGroup = "BUSYGROUP Consumer Group name already exists";
constexpr std::string_view kEntriesRead = "ERR value for ENTRIESREAD must be positive or -1";
constexpr std::string_view kMissingGroup = "ERR Missing GROUP option for XREADGROUP";
constexpr std::string_view kDollarInGroup =
    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by "
    "specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.";
constexpr std::string_view kEntriesAddedNegative = "ERR entries_added must be positive";
constexpr std::string_view kIdBelowMaxDeleted =
    "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id";
constexpr std::string_view kIdBelowTop = "ERR The ID specified in XSETID is smaller than the target stream top item";
constexpr std::string_view kEntriesAddedBelowLength =
    "ERR The entries_added specified in XSETID is smaller than the target stream length";
// A format: key, then group.
constexpr std::string_view kNoKeyOrGroupXreadgroup =
    "NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option";
constexpr std::string_view kGroupGone = "NOGROUP the consumer group this client was blocked on no longer exists";
constexpr std::string_view kKeyGone = "UNBLOCKED the stream key no longer exists";

/* XGROUP CREATE key group (id | $) [MKSTREAM] [ENTRIESREAD n]
 * XGROUP SETID key group (id | $) [ENTRIESREAD n]
 * XGROUP DESTROY key group
 * XGROUP CREATECONSUMER key group consumer
 * XGROUP DELCONSUMER key group consumer */
void xgroup_command(Call& call) {
  const auto& argv = call.argv;
  const std::string_view opt = argv[1];
  const bool create = iequals(opt, "create");
  const bool setid = iequals(opt, "setid");
  bool mkstream = false;
  long long entries_read = types::kEntriesReadUnknown;
  for (size_t i = 5; i < argv.size();) {
    if (create && iequals(argv[i], "mkstream")) {
      mkstream = true;
      i++;
    } else if ((create || setid) && iequals(argv[i], "entriesread") && i + 1 < argv.size()) {
      if (!integer_or_reply(call, argv[i + 1], &entries_read)) return;
      if (entries_read < 0 && entries_read != types::kEntriesReadUnknown) return call.error(kEntriesRead);
      i += 2;
    } else {
      return reply_subcommand_syntax_error(call);
    }
  }
  const std::string_view key = argv[2];
  const std::string_view name = argv[3];
  const auto found = lookup<Stream>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  Stream* s = found.value;
  StreamGroup* g = nullptr;
  if (!mkstream) {
    if (!s) return call.error(kNeedsKey);
    g = s->group(name);
    if (!g && !create && !iequals(opt, "destroy"))
      return call.error(format_error(kNoGroupForKey, {name, key}));
  }
  if (create) {
    if (argv.size() > 8) return reply_subcommand_syntax_error(call);
    StreamId id;
    if (argv[4] == "$") {
      id = s ? s->last_id() : StreamId{};
    } else if (!stream_id_or_reply(call, argv[4], 0, true, nullptr, &id)) {
      return;
    }
    if (!s) {
      s = stream_or_create(call, key);
      call.modified(key);
    }
    if (!s->create_group(name, id, entries_read)) return call.error(kBusyGroup);
    call.data.changed();
    call.reply.simple("OK");
    call.notify(pubsub::kStream, "xgroup-create", key);
  } else if (setid) {
    if (argv.size() != 5 && argv.size() != 7) return reply_subcommand_syntax_error(call);
    StreamId id;
    if (argv[4] == "$") {
      id = s->last_id();
    } else if (!stream_id_or_reply(call, argv[4], 0, false, nullptr, &id)) {
      return;
    }
    g->last_id = id;
    g->entries_read = entries_read;
    call.data.changed();
    call.reply.simple("OK");
    call.notify(pubsub::kStream, "xgroup-setid", key);
  } else if (iequals(opt, "destroy")) {
    if (argv.size() != 4) return reply_subcommand_syntax_error(call);
    if (!g) return call.reply.integer(0);
    s->destroy_group(name);
    call.reply.integer(1);
    call.notify(pubsub::kStream, "xgroup-destroy", key);
    // Blocked XREADGROUPs on the group answer NOGROUP (WATCH is not touched,
    // as in Redis).
    call.data.changed();
    call.data.blocking.signal(call.db_index, key);
  } else if (iequals(opt, "createconsumer")) {
    if (argv.size() != 5) return reply_subcommand_syntax_error(call);
    bool created;
    if (g->consumer(argv[4])) return call.reply.integer(0);
    stream_consumer_or_create(call, g, key, argv[4], &created);
    call.data.changed();
    call.reply.integer(1);
  } else if (iequals(opt, "delconsumer")) {
    if (argv.size() != 5) return reply_subcommand_syntax_error(call);
    const int64_t pending = g->delete_consumer(argv[4]);
    if (pending >= 0) {
      call.data.changed();
      call.notify(pubsub::kStream, "xgroup-delconsumer", key);
    }
    call.reply.integer(pending < 0 ? 0 : pending);
  } else {
    reply_subcommand_syntax_error(call);
  }
}

/* XGROUP HELP */
void xgroup_help_command(Call& call) {
  reply_help(call, "XGROUP",
             {"CREATE <key> <groupname> <id|$> [option]",
              "    Create a new consumer group. Options are:",
              "    * MKSTREAM",
              "      Create the empty stream if it does not exist.",
              "    * ENTRIESREAD entries_read",
              "      Set the group's entries_read counter (internal use).",
              "CREATECONSUMER <key> <groupname> <consumer>",
              "    Create a new consumer in the specified group.",
              "DELCONSUMER <key> <groupname> <consumer>",
              "    Remove the specified consumer.",
              "DESTROY <key> <groupname>",
              "    Remove the specified group.",
              "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
              "    Set the current group ID and entries_read counter."});
}

/* XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id] */
void xsetid_command(Call& call) {
  const auto& argv = call.argv;
  StreamId id, max_xdel;
  long long entries_added = -1;
  if (!stream_id_or_reply(call, argv[2], 0, true, nullptr, &id)) return;
  for (size_t i = 3; i < argv.size();) {
    const bool more = i + 1 < argv.size();
    if (iequals(argv[i], "entriesadded") && more) {
      if (!integer_or_reply(call, argv[i + 1], &entries_added)) return;
      if (entries_added < 0) return call.error(kEntriesAddedNegative);
      i += 2;
    } else if (iequals(argv[i], "maxdeletedid") && more) {
      if (!stream_id_or_reply(call, argv[i + 1], 0, true, nullptr, &max_xdel)) return;
      if (id < max_xdel) return call.error(kIdBelowMaxDeleted);
      i += 2;
    } else {
      return call.error(err::kSyntax);
    }
  }
  const auto found = lookup<Stream>(call, argv[1], Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.error(err::kNoSuchKey);
  Stream* s = found.value;
  if (s->length() > 0) {
    StreamId top;
    s->edge_id(false, false, &top);
    if (id < top) return call.error(kIdBelowTop);
    if (entries_added != -1 && s->length() > static_cast<uint64_t>(entries_added))
      return call.error(kEntriesAddedBelowLength);
  }
  s->set_last_id(id);
  if (entries_added != -1) s->set_entries_added(static_cast<uint64_t>(entries_added));
  if (!max_xdel.zero()) s->set_max_deleted_id(max_xdel);
  call.data.changed();
  call.reply.simple("OK");
  call.notify(pubsub::kStream, "xsetid", argv[1]);
}

/* XACK key group id [id ...] */
void xack_command(Call& call) {
  const auto found = lookup<Stream>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  StreamGroup* g = found.value ? found.value->group(call.argv[2]) : nullptr;
  if (!g) return call.reply.integer(0);
  std::vector<StreamId> ids(call.argv.size() - 3);
  for (size_t j = 3; j < call.argv.size(); j++)
    if (!stream_id_or_reply(call, call.argv[j], 0, true, nullptr, &ids[j - 3])) return;
  int64_t acked = 0;
  for (const auto id : ids) acked += g->ack(id) ? 1 : 0;
  if (acked) call.data.changed();
  call.reply.integer(acked);
}

// A bound of XPENDING's range, as XRANGE reads it.
bool interval_or_reply(Call& call, std::string_view arg, uint64_t missing_seq, StreamId* id, bool* ex) {
  *ex = arg.size() > 1 && arg[0] == '(';
  if (*ex) return stream_id_or_reply(call, arg.substr(1), missing_seq, true, nullptr, id);
  return stream_id_or_reply(call, arg, missing_seq, false, nullptr, id);
}

/* XPENDING key group [[IDLE min-idle-time] start end count [consumer]] */
void xpending_command(Call& call) {
  const auto& argv = call.argv;
  const bool justinfo = argv.size() == 3;
  if (argv.size() != 3 && (argv.size() < 6 || argv.size() > 9)) return call.error(err::kSyntax);
  StreamId start, end;
  long long count = 0, minidle = 0;
  std::string_view consumer_name;
  bool has_consumer = false;
  if (argv.size() >= 6) {
    size_t at = 3;
    if (iequals(argv[3], "idle")) {
      if (!integer_or_reply(call, argv[4], &minidle)) return;
      if (argv.size() < 8) return call.error(err::kSyntax);
      at += 2;
    }
    if (!integer_or_reply(call, argv[at + 2], &count)) return;
    if (count < 0) count = 0;
    bool ex;
    if (!interval_or_reply(call, argv[at], 0, &start, &ex)) return;
    if (ex && !start.incr()) return call.error(kInvalidStartId);
    if (!interval_or_reply(call, argv[at + 1], UINT64_MAX, &end, &ex)) return;
    if (ex && !end.decr()) return call.error(kInvalidEndId);
    if (at + 3 < argv.size()) {
      consumer_name = argv[at + 3];
      has_consumer = true;
    }
  }
  const auto found = lookup<Stream>(call, argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  StreamGroup* g = found.value ? found.value->group(argv[2]) : nullptr;
  if (!g) return call.error(format_error(kNoKeyOrGroup, {argv[1], argv[2]}));
  auto& r = call.reply;
  if (justinfo) {
    r.array(4);
    r.integer(static_cast<int64_t>(g->pel.size()));
    if (g->pel.empty()) {
      r.null();
      r.null();
      return r.null_array();
    }
    reply_stream_id(r, g->pel.begin()->first);
    reply_stream_id(r, g->pel.rbegin()->first);
    size_t n = 0;
    for (const auto& [name, c] : g->consumers) n += c->pel.empty() ? 0 : 1;
    r.array(n);
    for (const auto& [name, c] : g->consumers) {
      if (c->pel.empty()) continue;
      r.array(2);
      r.bulk(name);
      r.bulk(std::to_string(c->pel.size()));
    }
    return;
  }
  StreamConsumer* c = nullptr;
  if (has_consumer) {
    c = g->consumer(consumer_name);
    if (!c) return r.array(0);
  }
  struct Row {
    StreamId id;
    const StreamNack* nack;
  };
  std::vector<Row> rows;
  auto take = [&](StreamId id) {
    const StreamNack& nack = g->pel.find(id)->second;
    if (minidle && call.now_ms - nack.delivery_time < minidle) return;
    rows.push_back({id, &nack});
    count--;
  };
  if (c) {
    for (auto it = c->pel.lower_bound(start); count > 0 && it != c->pel.end() && *it <= end; ++it) take(*it);
  } else {
    for (auto it = g->pel.lower_bound(start); count > 0 && it != g->pel.end() && it->first <= end; ++it)
      take(it->first);
  }
  r.array(rows.size());
  for (const auto& row : rows) {
    r.array(4);
    reply_stream_id(r, row.id);
    r.bulk(row.nack->consumer->name);
    const int64_t elapsed = call.now_ms - row.nack->delivery_time;
    r.integer(elapsed < 0 ? 0 : elapsed);
    r.integer(static_cast<int64_t>(row.nack->delivery_count));
  }
}

/* XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...] */
void xreadgroup_command(Call& call) {
  const auto& argv = call.argv;
  long long count = 0, block_ms = -1;
  size_t streams_arg = 0;
  bool noack = false;
  std::string_view group_name, consumer_name;
  bool has_group = false;
  for (size_t i = 1; i < argv.size(); i++) {
    const size_t more = argv.size() - 1 - i;
    const std::string_view o = argv[i];
    if (iequals(o, "block") && more) {
      if (call.session.in_script)
        return call.error(format_error(kBlockFromScript, {argv[0]}));
      if (!integer_or_reply(call, argv[++i], &block_ms, kBlockTimeoutNotInteger)) return;
      if (block_ms < 0) return call.error(err::kTimeoutNegative);
    } else if (iequals(o, "count") && more) {
      if (!integer_or_reply(call, argv[++i], &count)) return;
      if (count < 0) count = 0;
    } else if (iequals(o, "streams") && more) {
      streams_arg = i + 1;
      if ((argv.size() - streams_arg) % 2 != 0) return call.error(kUnbalancedStreams);
      break;
    } else if (iequals(o, "group") && more >= 2) {
      group_name = argv[i + 1];
      consumer_name = argv[i + 2];
      has_group = true;
      i += 2;
    } else if (iequals(o, "noack")) {
      noack = true;
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (streams_arg == 0) return call.error(err::kSyntax);
  if (!has_group) return call.error(kMissingGroup);
  const size_t n = (argv.size() - streams_arg) / 2;
  // Woken by a key (blocked, every ID ">"): that key alone is read, and only
  // a stream whose last ID is past the group's serves it.
  const size_t ready = stream_ready_index(call, argv.subspan(streams_arg, n));
  const bool woken = ready < n;
  std::vector<StreamId> ids(n);
  std::vector<bool> fresh(n);  // ">"
  std::vector<StreamGroup*> groups(n);
  for (size_t k = 0; k < n; k++) {
    if (woken && k != ready) continue;
    const std::string_view key = argv[streams_arg + k];
    const auto found = lookup<Stream>(call, key, Intent::kRead);
    if (woken && !found.value) return call.error(kKeyGone);  // deleted, or now another type
    if (found.wrong_type) return call.error(err::kWrongType);
    groups[k] = found.value ? found.value->group(group_name) : nullptr;
    if (!groups[k]) {
      if (woken) return call.error(kGroupGone);
      return call.error(format_error(kNoKeyOrGroupXreadgroup, {key, group_name}));
    }
    const std::string_view arg = argv[streams_arg + n + k];
    if (arg == "$") return call.error(kDollarInGroup);
    if (arg == ">") {
      fresh[k] = true;
      ids[k] = StreamId::max();
    } else if (!stream_id_or_reply(call, arg, 0, true, nullptr, &ids[k])) {
      return;
    } else {
      // Redis stands for ">" with the greatest ID: written out, it is ">".
      fresh[k] = ids[k] == StreamId::max();
    }
  }
  call.data.effects.drop_own();
  struct Served {
    std::string_view key;
    std::vector<types::StreamEntry> entries;
    std::vector<bool> missing;  // history: an ID no longer in the stream
  };
  std::vector<Served> out;
  for (size_t k = 0; k < n; k++) {
    if (woken && k != ready) continue;
    const std::string_view key = argv[streams_arg + k];
    Stream* s = lookup<Stream>(call, key, Intent::kRead).value;
    StreamGroup* g = groups[k];
    if (!s) continue;
    const bool history = !fresh[k];
    if (woken) {
      if (!(s->last_id() > g->last_id)) continue;
    } else if (!history) {
      StreamId top;
      if (!s->length() || !s->edge_id(false, false, &top) || !(top > g->last_id)) continue;
    }
    bool created;
    StreamConsumer* c = stream_consumer_or_create(call, g, key, consumer_name, &created);
    if (created && noack && call.data.effects.active())
      call.data.effects.add(call.db_index, std::vector<std::string>{"XGROUP", "CREATECONSUMER", std::string(key),
                                                                    std::string(group_name), std::string(consumer_name)});
    Served sv{key, {}, {}};
    if (history) {
      StreamId start = ids[k];
      start.incr();
      for (auto it = c->pel.lower_bound(start); it != c->pel.end() && (!count || sv.entries.size() < static_cast<size_t>(count)); ++it) {
        types::StreamEntry e;
        const bool found = s->find(*it, &e);
        e.id = *it;
        if (found) {
          StreamNack& nack = g->pel.find(*it)->second;
          nack.delivery_time = call.now_ms;
          nack.delivery_count++;
          // Redis does not propagate a history read's new delivery time and
          // count; recorded here, a replay rebuilds the pending list exactly.
          record_stream_claim(call, key, group_name, *g, *it, nack);
        }
        sv.entries.push_back(e);
        sv.missing.push_back(!found);
      }
    } else {
      StreamId start = g->last_id;
      start.incr();
      const long long limit = woken && count == 0 ? kBlockedReadDefaultCount : count;
      sv.entries = stream_range(*s, start, StreamId::max(), false, static_cast<size_t>(limit));
      sv.missing.assign(sv.entries.size(), false);
      bool moved = false;
      for (const auto& e : sv.entries) {
        if (e.id > g->last_id) {
          if (g->entries_read != types::kEntriesReadUnknown && !s->range_has_tombstones(e.id, nullptr)) {
            g->entries_read++;
          } else if (s->entries_added()) {
            g->entries_read = s->estimate_distance(e.id);
          }
          g->last_id = e.id;
          moved = true;
        }
        if (!noack) {
          g->deliver(e.id, c, call.now_ms);
          record_stream_claim(call, key, group_name, *g, e.id, g->pel.find(e.id)->second);
        }
      }
      if (noack && moved) record_stream_group_id(call, key, group_name, *g);
    }
    call.data.changed();
    out.push_back(std::move(sv));
  }
  if (out.empty()) {
    if (block_ms < 0) return call.reply.null_array();
    const int64_t timeout_at = block_ms == 0 ? expiry::kNever : call.now_ms + block_ms;
    return call.block({.keys = argv.subspan(streams_arg, n), .timeout_at_ms = timeout_at,
                       .ready_bound_ms = expiry::kNever});
  }
  auto& r = call.reply;
  const bool resp3 = r.protocol() == 3;
  if (resp3) {
    r.map(out.size());
  } else {
    r.array(out.size());
  }
  for (const auto& sv : out) {
    if (!resp3) r.array(2);
    r.bulk(sv.key);
    r.array(sv.entries.size());
    for (size_t i = 0; i < sv.entries.size(); i++) {
      r.array(2);
      reply_stream_id(r, sv.entries[i].id);
      if (sv.missing[i]) {
        r.null_array();
      } else {
        r.array_of_bulks(sv.entries[i].fields);
      }
    }
  }
}

}  // namespace

void register_stream_group_commands(CommandTable& t) {
  constexpr std::string_view kWriteAcl = "@write @stream @slow";
  t.add({
    {.name = "xgroup", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "stream", .since = "5.0.0", .complexity = "Depends on subcommand.",
     .summary = "A container for consumer groups commands",
     .subcommands = {
         {.name = "xgroup|create", .arity = -5, .flags = kWrite | kDenyOom, .keys = {2, 2, 1},
          .acl = kWriteAcl,
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Create a consumer group.",
          .key_flags = "RW insert",
          .handler = xgroup_command},
         {.name = "xgroup|createconsumer", .arity = 5, .flags = kWrite | kDenyOom, .keys = {2, 2, 1},
          .acl = kWriteAcl,
          .group = "stream", .since = "6.2.0", .complexity = "O(1)",
          .summary = "Create a consumer in a consumer group.",
          .key_flags = "RW insert",
          .handler = xgroup_command},
         {.name = "xgroup|delconsumer", .arity = 5, .flags = kWrite, .keys = {2, 2, 1},
          .acl = kWriteAcl,
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Delete a consumer from a consumer group.",
          .key_flags = "RW delete",
          .handler = xgroup_command},
         {.name = "xgroup|destroy", .arity = 4, .flags = kWrite, .keys = {2, 2, 1},
          .acl = kWriteAcl,
          .group = "stream", .since = "5.0.0", .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
          .summary = "Destroy a consumer group.",
          .key_flags = "RW delete",
          .handler = xgroup_command},
         {.name = "xgroup|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@stream @slow",
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Show helpful text about the different subcommands",
          .handler = xgroup_help_command},
         {.name = "xgroup|setid", .arity = -5, .flags = kWrite, .keys = {2, 2, 1},
          .acl = kWriteAcl,
          .group = "stream", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Set a consumer group to an arbitrary last delivered ID value.",
          .key_flags = "RW update",
          .handler = xgroup_command},
     }},
    {.name = "xsetid", .arity = -3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @stream @fast",
     .group = "stream", .since = "5.0.0", .complexity = "O(1)",
     .summary = "An internal command for replicating stream values",
     .key_flags = "RW update",
     .handler = xsetid_command},
    {.name = "xack", .arity = -4, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @stream @fast",
     .group = "stream", .since = "5.0.0", .complexity = "O(1) for each message ID processed.",
     .summary = "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
     .key_flags = "RW update",
     .handler = xack_command},
    {.name = "xpending", .arity = -3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @stream @slow",
     .group = "stream", .since = "5.0.0", .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
     .summary = "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = xpending_command},
    {.name = "xreadgroup", .arity = -7, .flags = kWrite | kBlocking | kMovableKeys,
     .keyword = {.word = "STREAMS", .startfrom = 4},
     .acl = "@write @stream @slow @blocking",
     .group = "stream", .since = "5.0.0", .complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
     .summary = "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
     .key_flags = "RO access",
     .handler = xreadgroup_command},
  });
}

}  // namespace lawnkv
