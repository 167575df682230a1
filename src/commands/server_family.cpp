// Server commands over the whole keyspace or process: DBSIZE, FLUSHDB,
// FLUSHALL, TIME, LASTSAVE, SAVE, BGSAVE, SHUTDOWN. The family's other
// commands live one per file (info.cpp, config_command.cpp,
// command_command.cpp, debug.cpp, memory.cpp); register_server_commands
// gathers them. Snapshots themselves: durability/snapshots.hpp.

#include <cstdio>

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "core/allocator.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kRewriteInProgress =
    "ERR Background append only file rewriting already in progress";
constexpr std::string_view kChildActive =
    "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a "
    "BGSAVE whenever possible.";
constexpr std::string_view kRewriteFailed =
    "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.";
constexpr std::string_view kBgsaveInProgress = "ERR Background save already in progress";
constexpr std::string_view kShutdownErrors = "ERR Errors trying to SHUTDOWN. Check logs.";
constexpr std::string_view kNoShutdownInProgress = "ERR No shutdown in progress.";

// FLUSHDB / FLUSHALL take nothing, SYNC or ASYNC (both flush at once here).
// Either way the memory the keys held goes back to the system before the
// reply (allocator::purge), as Redis purges jemalloc after a SYNC flush: an
// idle allocator would keep it.
bool flush_mode_ok_or_reply(Call& call) {
  if (call.argv.size() == 1) return true;
  if (call.argv.size() == 2 && (iequals(call.argv[1], "sync") || iequals(call.argv[1], "async"))) return true;
  call.error(err::kSyntax);
  return false;
}

// Empties db. WATCHers of a key alive in it see it change (Redis's
// touchAllWatchedKeysInDb); keys already expired are not a change. Each key
// removed counts as a change (Redis's server.dirty); returns how many.
size_t op_flush_db(ServerState& server, int db, int64_t now_ms) {
  store::Db& d = server.data.keyspace.db(db);
  server.data.keyspace.watches().touch_db(db, [&](std::string_view key) { return d.contains_live(key, now_ms); });
  const size_t removed = d.clear();
  server.data.dirty += removed;
  return removed;
}

/* DBSIZE */
void dbsize_command(Call& call) { call.reply.integer(static_cast<int64_t>(call.db().size())); }

/* FLUSHDB [ASYNC | SYNC] */
void flushdb_command(Call& call) {
  if (!flush_mode_ok_or_reply(call)) return;
  // Even a flush of nothing is a change: it is recorded (effects.hpp).
  if (op_flush_db(call.server, call.session.db, call.now_ms) == 0) call.data.changed();
  call.data.tracking.invalidate_all();
  allocator::purge();
  call.reply.simple("OK");
}

/* FLUSHALL [ASYNC | SYNC] */
void flushall_command(Call& call) {
  if (!flush_mode_ok_or_reply(call)) return;
  size_t removed = 0;
  for (int db = 0; db < call.data.keyspace.databases(); ++db) removed += op_flush_db(call.server, db, call.now_ms);
  if (removed == 0) call.data.changed();
  call.data.tracking.invalidate_all();
  call.server.snapshots().after_flushall(call.server);
  allocator::purge();
  call.reply.simple("OK");
}

/* TIME */
void time_command(Call& call) {
  const int64_t us = call.server.clock.now_us();
  call.reply.array(2);
  call.reply.bulk(ll_to_string(us / 1000000));
  call.reply.bulk(ll_to_string(us % 1000000));
}

/* LASTSAVE */
void lastsave_command(Call& call) { call.reply.integer(call.server.snapshots().lastsave_s); }

/* SAVE */
void save_command(Call& call) {
  if (call.server.snapshots().in_progress()) return call.error(kBgsaveInProgress);
  if (!call.server.snapshots().save(call.server).empty()) return call.error("ERR");
  call.reply.simple("OK");
}

/* BGSAVE [SCHEDULE]
 * As Redis 7.0: inside EXEC the save is scheduled (it starts from the
 * server's timer); while one runs, another is refused, SCHEDULE or not. */
void bgsave_command(Call& call) {
  if (call.argv.size() > 2 || (call.argv.size() == 2 && !iequals(call.argv[1], "schedule"))) {
    call.error(err::kSyntax);
    return;
  }
  Snapshots& snap = call.server.snapshots();
  if (snap.in_progress()) return call.error(kBgsaveInProgress);
  // One child at a time (Redis's hasActiveChildProcess).
  if (call.server.aof().rewrite_in_progress()) {
    if (call.argv.size() == 1)
      return call.error(kChildActive);
    snap.schedule();
    return call.reply.simple("Background saving scheduled");
  }
  if (call.session.in_exec) {
    snap.schedule();
    return call.reply.simple("Background saving scheduled");
  }
  if (snap.start_bgsave(call.server) != Snapshots::Bg::kStarted) return call.error("ERR");
  call.reply.simple("Background saving started");
}

/* BGREWRITEAOF
 * The append-only file's new base, written by a forked child
 * (durability/append_only.hpp); scheduled while a BGSAVE runs. */
void bgrewriteaof_command(Call& call) {
  switch (call.server.aof().start_rewrite(call.server)) {
    case AppendOnly::Rewrite::kStarted: return call.reply.simple("Background append only file rewriting started");
    case AppendOnly::Rewrite::kScheduled:
      return call.reply.simple("Background append only file rewriting scheduled");
    case AppendOnly::Rewrite::kInProgress: return call.error(kRewriteInProgress);
    case AppendOnly::Rewrite::kFailed:
      return call.error(kRewriteFailed);
  }
}

/* SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
 * On success nothing is replied: the server stops and closes the
 * connection, as redis-server does. */
void shutdown_command(Call& call) {
  bool nosave = false, save = false, other = false, force = false, abort = false;
  for (size_t i = 1; i < call.argv.size(); ++i) {
    const std::string_view a = call.argv[i];
    if (iequals(a, "nosave")) nosave = true;
    else if (iequals(a, "save")) save = true;
    else if (iequals(a, "now")) other = true;
    else if (iequals(a, "force")) other = force = true;
    else if (iequals(a, "abort")) abort = true;
    else return call.error(err::kSyntax);
  }
  if ((abort && (nosave || save || other)) || (nosave && save)) return call.error(err::kSyntax);
  // A shutdown here is immediate, so none is ever in progress to abort.
  if (abort) return call.error(kNoShutdownInProgress);
  // While a script is busy only NOSAVE may end the server (at once: the
  // loop exits from inside the script, engine/busy_loop.hpp).
  if (!nosave && !call.server.busy_error.empty()) return call.error(call.server.busy_error);
  // Saves when asked, or when save rules are set (unless NOSAVE); a failed
  // save keeps the server up unless FORCE.
  const std::string error = call.server.snapshots().on_shutdown(call.server, save, nosave);
  if (!error.empty() && !force) return call.error(kShutdownErrors);
  call.server.shutdown_requested = true;
}

}  // namespace

void reply_help(Call& call, std::string_view name, std::initializer_list<std::string_view> lines) {
  call.reply.array(lines.size() + 3);
  call.reply.simple(std::string(name) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (std::string_view line : lines) call.reply.simple(line);
  call.reply.simple("HELP");
  call.reply.simple("    Prints this help.");
}

void reply_subcommand_syntax_error(Call& call) {
  call.error(format_error(err::kSubcommandSyntax, {call.argv[1], to_upper(call.argv[0])}));
}

std::string bytes_to_human(uint64_t n) {
  if (n < 1024) return std::to_string(n) + "B";
  double scale = 1024;
  for (char unit : {'K', 'M', 'G', 'T', 'P'}) {
    if (static_cast<double>(n) < scale * 1024) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.2f%c", static_cast<double>(n) / scale, unit);
      return buf;
    }
    scale *= 1024;
  }
  return std::to_string(n) + "B";
}

void register_server_commands(CommandTable& t) {
  t.add({
    {.name = "bgrewriteaof", .arity = 1, .flags = kAdmin | kNoscript | kNoAsyncLoading,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Asynchronously rewrites the append-only file to disk",
     .handler = bgrewriteaof_command},
    {.name = "bgsave", .arity = -1, .flags = kAdmin | kNoscript | kNoAsyncLoading,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Asynchronously saves the database(s) to disk",
     .handler = bgsave_command},
    {.name = "dbsize", .arity = 1, .flags = kReadonly | kFast,
     .acl = "@keyspace @read @fast",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns the number of keys in the database",
     .tips = "request_policy:all_shards response_policy:agg_sum",
     .handler = dbsize_command},
    {.name = "flushall", .arity = -1, .flags = kWrite,
     .acl = "@keyspace @write @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(N) where N is the number of keys",
     .summary = "Deletes every key of every database",
     .tips = "request_policy:all_shards response_policy:all_succeeded",
     .handler = flushall_command},
    {.name = "flushdb", .arity = -1, .flags = kWrite,
     .acl = "@keyspace @write @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(N) where N is the number of keys",
     .summary = "Deletes every key of the database",
     .tips = "request_policy:all_shards response_policy:all_succeeded",
     .handler = flushdb_command},
    {.name = "lastsave", .arity = 1, .flags = kLoading | kStale | kFast,
     .acl = "@admin @fast @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns the Unix timestamp of the last successful save to disk",
     .tips = "nondeterministic_output",
     .handler = lastsave_command},
    {.name = "save", .arity = 1, .flags = kAdmin | kNoscript | kNoAsyncLoading | kNoMulti,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Synchronously saves the database(s) to disk",
     .handler = save_command},
    {.name = "shutdown", .arity = -1, .flags = kAdmin | kNoscript | kLoading | kStale | kSentinel | kNoMulti | kAllowBusy,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Stops the server",
     .handler = shutdown_command},
    {.name = "time", .arity = 1, .flags = kLoading | kStale | kFast,
     .acl = "@fast",
     .group = "server", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Returns the server's time",
     .tips = "nondeterministic_output",
     .handler = time_command},
  });
  register_info_command(t);
  register_config_command(t);
  register_command_command(t);
  register_debug_command(t);
  register_memory_command(t);
  register_module_command(t);
}

}  // namespace lawnkv
