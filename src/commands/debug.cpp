// DEBUG: test hooks, refused unless enable-debug-command allows them (yes,
// or local for loopback clients), with Redis 7.0's refusal text.
//
//   DEBUG SLEEP seconds           blocks the whole server, as Redis
//   DEBUG SET-ACTIVE-EXPIRE 0|1   turns the expiry engine off / on, so a test
//                                 can watch lazy expiry alone
//   DEBUG ADVANCE-TIME ms         lawnkv's: moves the server clock by ms
//                                 (negative: back), so expiry tests need not
//                                 sleep
//   DEBUG FREEZE-TIME 1|0         lawnkv's: stops the server clock (1) so
//                                 only ADVANCE-TIME moves it, whatever real
//                                 time passes; 0 lets it run again from the
//                                 wall clock, the offset kept (core/clock.hpp)
//   DEBUG OBJECT key              a line about the key's value
//   DEBUG RELOAD [NOSAVE]         saves the snapshot and loads it back
//                                 (NOSAVE: loads the file as it is); a load
//                                 that fails leaves the dataset unchanged
//   DEBUG DIGEST                  a digest of the whole dataset (40 zeros
//                                 when empty), equal after a save and load
//   DEBUG DIGEST-VALUE key...     the digest of each key's value
//   DEBUG HELP

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "commands/encoding_names.hpp"
#include "commands/server_family.hpp"
#include "core/address.hpp"
#include "core/numbers.hpp"
#include "durability/snapshots.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "persistence/keyspace_digest.hpp"
#include "persistence/rdb_writer.hpp"
#include "store/idle_class.hpp"
#include "types/list.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kClockRange = "ERR the clock would leave its range (0 to year 146,000)";
constexpr std::string_view kReloadNosaveOnly = "ERR lawnkv's DEBUG RELOAD supports the NOSAVE option only.";
constexpr std::string_view kReloadOptions =
    "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.";
constexpr std::string_view kReloadFailed = "ERR Error trying to load the RDB dump";
constexpr std::string_view kDebugRefused =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it "
    "from a local connection, otherwise you need to set this option in the configuration file, and then "
    "restart the server.";

// Redis's allowProtectedAction for enable-debug-command.
bool debug_allowed(const Call& call) {
  const std::string& mode = call.cfg().enable_debug_command;
  return mode == "yes" || (mode == "local" && is_loopback(call.session.peer_address()));
}

void debug_help(Call& call) {
  reply_help(call, "DEBUG",
             {"ADVANCE-TIME <milliseconds>",
              "    lawnkv: move the server clock by <milliseconds> (negative moves it back).",
              "FREEZE-TIME <0|1>",
              "    lawnkv: stop the server clock (1): only ADVANCE-TIME moves it then. 0 lets it run",
              "    again, reading the wall clock plus the ADVANCE-TIME offset (a jump forward by the",
              "    time spent frozen).",
              "DIGEST", "    Output a hex signature representing the current DB content.",
              "DIGEST-VALUE <key> [<key> ...]", "    Output a hex signature of the values of all the specified keys.",
              "OBJECT <key>", "    Show low level info about the key and its value.",
              "RELOAD [NOSAVE]", "    Save the RDB on disk and reload it back to memory (NOSAVE: load the file as it is).",
              "SET-ACTIVE-EXPIRE <0|1>",
              "    Turn the expiry engine off or on; keys then expire only when accessed.", "SLEEP <seconds>",
              "    Stop the server for <seconds> (a decimal number)."});
}

/* DEBUG SLEEP seconds */
void debug_sleep(Call& call) {
  // strtod as Redis: a text that is not a number sleeps 0 seconds.
  const double seconds = std::strtod(std::string(call.argv[2]).c_str(), nullptr);
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  call.reply.simple("OK");
}

/* DEBUG SET-ACTIVE-EXPIRE 0|1 */
void debug_set_active_expire(Call& call) {
  call.server.facts.active_expire = std::atoi(std::string(call.argv[2]).c_str()) != 0;
  call.reply.simple("OK");
}

/* DEBUG ADVANCE-TIME milliseconds */
void debug_advance_time(Call& call) {
  long long ms;
  if (!integer_or_reply(call, call.argv[2], &ms)) return;
  if (!call.server.clock.advance_ms(ms)) return call.error(kClockRange);
  call.reply.simple("OK");
}

/* DEBUG FREEZE-TIME 0|1 */
void debug_freeze_time(Call& call) {
  long long on;
  if (!integer_or_reply(call, call.argv[2], &on)) return;
  call.server.clock.freeze(on != 0);
  call.reply.simple("OK");
}

/* DEBUG OBJECT key */
void debug_object(Call& call) {
  // As Redis: the entry as it is, expired or not, and no access counted.
  const store::Entry* e = call.db().peek(call.argv[2]);
  if (!e) return call.error(err::kNoSuchKey);
  const std::string_view encoding = encoding_name(*e);
  std::string extra;
  if (e->type() == store::Type::kList) {
    // Redis's quicklist fields: nodes, elements per node, the fill limit,
    // compression (never, here), and the bytes of the elements.
    const auto* list = static_cast<const types::List*>(e->obj());
    char buf[160];
    std::snprintf(buf, sizeof(buf), " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%lld ql_compressed:0 ql_uncompressed_size:%zu",
                  list->node_count(), static_cast<double>(list->size()) / static_cast<double>(list->node_count()),
                  static_cast<long long>(call.cfg().list_max_listpack_size), list->element_bytes());
    extra = buf;
  }
  // lru: Redis's 24-bit clock of seconds at the last access, here now less
  // the idle class's floor (store/idle_class.hpp), which lru_seconds_idle is.
  const int64_t idle_s = store::idle_floor_s(e->idle_class());
  const int64_t lru = (call.now_ms / 1000 - idle_s) & ((int64_t{1} << 24) - 1);
  char buf[256];
  std::snprintf(buf, sizeof(buf), "Value at:%p refcount:1 encoding:%.*s serializedlength:%llu lru:%lld lru_seconds_idle:%lld",
                static_cast<const void*>(e), static_cast<int>(encoding.size()), encoding.data(),
                static_cast<unsigned long long>(persistence::saved_value_length(*e, call.cfg().rdbcompression)),
                static_cast<long long>(lru), static_cast<long long>(idle_s));
  call.reply.simple(std::string(buf) + extra);
}

/* DEBUG RELOAD [NOSAVE] */
void debug_reload(Call& call) {
  bool save = true;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    if (iequals(call.argv[i], "nosave")) save = false;
    else if (iequals(call.argv[i], "merge") || iequals(call.argv[i], "noflush"))
      return call.error(kReloadNosaveOnly);
    else return call.error(kReloadOptions);
  }
  Snapshots& snap = call.server.snapshots();
  if (save && !snap.save(call.server).empty()) return call.error("ERR");
  const persistence::LoadResult r = snap.reload(call.server, Snapshots::path(call.cfg()), call.now_ms);
  if (!r.ok()) return call.error(kReloadFailed);
  call.reply.simple("OK");
}

/* DEBUG DIGEST */
void debug_digest(Call& call) { call.reply.simple(persistence::keyspace_digest(call.data.keyspace).hex()); }

/* DEBUG DIGEST-VALUE key [key ...] */
void debug_digest_value(Call& call) {
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    const store::Entry* e = call.db().lookup_untouched(call.argv[i], call.now_ms);
    call.reply.simple(e ? persistence::value_digest(*e).hex() : persistence::Digest().hex());
  }
}

/* DEBUG subcommand [argument ...] */
void debug_command(Call& call) {
  if (!debug_allowed(call)) return call.error(kDebugRefused);
  const std::string_view sub = call.argv[1];
  const size_t argc = call.argv.size();
  if (is_option(sub, "help") && argc == 2) return debug_help(call);
  if (is_option(sub, "sleep") && argc == 3) return debug_sleep(call);
  if (is_option(sub, "set-active-expire") && argc == 3) return debug_set_active_expire(call);
  if (is_option(sub, "advance-time") && argc == 3) return debug_advance_time(call);
  if (is_option(sub, "freeze-time") && argc == 3) return debug_freeze_time(call);
  if (is_option(sub, "object") && argc == 3) return debug_object(call);
  if (is_option(sub, "reload")) return debug_reload(call);
  if (is_option(sub, "digest") && argc == 2) return debug_digest(call);
  if (is_option(sub, "digest-value") && argc >= 2) return debug_digest_value(call);
  reply_subcommand_syntax_error(call);
}

}  // namespace

void register_debug_command(CommandTable& t) {
  t.add({
    {.name = "debug", .arity = -2, .flags = kAdmin | kNoscript | kLoading | kStale | kProtected,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "Depends on the subcommand",
     .summary = "Test hooks (see DEBUG HELP)",
     .handler = debug_command},
  });
}

}  // namespace lawnkv
