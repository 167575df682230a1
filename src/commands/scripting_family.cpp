// Scripts: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT. The runtime
// (src/scripting/runtime.hpp) runs them; this file parses their arguments
// and answers SCRIPT's subcommands.
//
// SCRIPT DEBUG: lawnkv has no Lua debugger. NO answers OK (nothing to turn
// off); YES and SYNC answer an error saying so, instead of Redis's OK that
// starts a debugging session. SCRIPT KILL is what another client may send
// while a script runs past busy-reply-threshold (runtime.hpp).

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "scripting/runtime.hpp"

namespace lawnkv {

namespace {

using scripting::Runtime;

constexpr std::string_view kFlushMode = "ERR SCRIPT FLUSH only support SYNC|ASYNC option";
constexpr std::string_view kNoDebugger = "ERR lawnkv has no Lua debugger: SCRIPT DEBUG NO is the only mode";
constexpr std::string_view kDebugMode = "ERR Use SCRIPT DEBUG YES/SYNC/NO";

/* EVAL script numkeys [key [key ...]] [arg [arg ...]] (and EVALSHA, _RO) */
void eval_generic(Call& call, bool by_sha, bool read_only) {
  long long numkeys = 0;
  if (!integer_or_reply(call, call.argv[2], &numkeys)) return;
  const long long room = static_cast<long long>(call.argv.size()) - 3;
  if (numkeys > room) return call.error(err::kTooManyKeys);
  if (numkeys < 0) return call.error(err::kNegativeKeys);
  const size_t n = static_cast<size_t>(numkeys);
  Runtime::Request req{.script = call.argv[1], .by_sha = by_sha, .read_only = read_only,
                       .keys = call.argv.subspan(3, n), .args = call.argv.subspan(3 + n)};
  Runtime::of(call.server).eval(call, req);
}

void eval_command(Call& call) { eval_generic(call, false, false); }
void evalsha_command(Call& call) { eval_generic(call, true, false); }
void eval_ro_command(Call& call) { eval_generic(call, false, true); }
void evalsha_ro_command(Call& call) { eval_generic(call, true, true); }

/* SCRIPT LOAD script */
void script_load_command(Call& call) {
  std::string sha, error;
  if (!Runtime::of(call.server).load(call.argv[2], &sha, &error)) return call.error(error);
  call.reply.bulk(sha);
}

/* SCRIPT EXISTS sha1 [sha1 ...] */
void script_exists_command(Call& call) {
  const Runtime& rt = Runtime::of(call.server);
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) call.reply.integer(rt.exists(call.argv[i]) ? 1 : 0);
}

/* SCRIPT FLUSH [ASYNC|SYNC] */
void script_flush_command(Call& call) {
  if (call.argv.size() > 3 ||
      (call.argv.size() == 3 && !is_option(call.argv[2], "sync") && !is_option(call.argv[2], "async"))) {
    return call.error(kFlushMode);
  }
  // ASYNC frees at once too: the Lua heap of the scripts is small next to
  // a dataset, and a fresh interpreter must exist before the next script.
  Runtime::of(call.server).flush();
  call.reply.simple("OK");
}

/* SCRIPT KILL */
void script_kill_command(Call& call) {
  const std::string_view error = Runtime::of(call.server).kill(true);
  if (!error.empty()) return call.error(error);
  call.reply.simple("OK");
}

/* SCRIPT DEBUG YES|SYNC|NO */
void script_debug_command(Call& call) {
  const std::string_view mode = call.argv[2];
  if (is_option(mode, "no")) return call.reply.simple("OK");
  if (is_option(mode, "yes") || is_option(mode, "sync")) {
    return call.error(kNoDebugger);
  }
  call.error(kDebugMode);
}

/* SCRIPT HELP */
void script_help_command(Call& call) {
  reply_help(call, "SCRIPT",
             {"DEBUG (YES|SYNC|NO)",
              "    Set the debug mode for subsequent scripts executed.",
              "EXISTS <sha1> [<sha1> ...]",
              "    Return information about the existence of the scripts in the script cache.",
              "FLUSH [ASYNC|SYNC]",
              "    Flush the Lua scripts cache. Very dangerous on replicas.",
              "    When called without the optional mode argument, the behavior is determined by the",
              "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
              "    * ASYNC: Asynchronously flush the scripts cache.",
              "    * SYNC: Synchronously flush the scripts cache.",
              "KILL",
              "    Kill the currently executing Lua script.",
              "LOAD <script>",
              "    Load a script into the scripts cache without executing it."});
}

constexpr uint32_t kEvalFlags = kNoscript | kStale | kSkipMonitor | kNoMandatoryKeys | kMovableKeys;
// EVAL and EVALSHA may replicate (Redis 7.0's rows; COMMAND INFO hides it).
constexpr std::string_view kAcl = "@slow @scripting";

// CLIENT PAUSE reads the flags the script runs with (Runtime::call_flags).
uint32_t eval_call_flags(ServerState& server, std::span<const std::string_view> argv, uint32_t row_flags) {
  return Runtime::of(server).call_flags(argv, row_flags, false);
}

}  // namespace

void register_scripting_commands(CommandTable& t) {
  t.add({
    {.name = "eval", .arity = -3, .flags = kEvalFlags | kMayReplicate, .keynum = {2, 1, 1},
     .acl = kAcl,
     .group = "scripting", .since = "2.6.0", .complexity = "Depends on the script that is executed.",
     .summary = "Runs a Lua script on the server",
     .key_flags = "RW access update",
     .key_notes = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE",
     .call_flags = eval_call_flags,
     .handler = eval_command},
    {.name = "evalsha", .arity = -3, .flags = kEvalFlags | kMayReplicate, .keynum = {2, 1, 1},
     .acl = kAcl,
     .group = "scripting", .since = "2.6.0", .complexity = "Depends on the script that is executed.",
     .summary = "Runs a cached Lua script by its SHA1 digest",
     .key_flags = "RW access update",
     .call_flags = eval_call_flags,
     .handler = evalsha_command},
    {.name = "eval_ro", .arity = -3, .flags = kEvalFlags | kReadonly, .keynum = {2, 1, 1},
     .acl = kAcl,
     .group = "scripting", .since = "7.0.0", .complexity = "Depends on the script that is executed.",
     .summary = "Runs a Lua script that may not write",
     .key_flags = "RO access",
     .key_notes = "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS",
     .call_flags = eval_call_flags,
     .handler = eval_ro_command},
    {.name = "evalsha_ro", .arity = -3, .flags = kEvalFlags | kReadonly, .keynum = {2, 1, 1},
     .acl = kAcl,
     .group = "scripting", .since = "7.0.0", .complexity = "Depends on the script that is executed.",
     .summary = "Runs a cached Lua script that may not write",
     .key_flags = "RO access",
     .call_flags = eval_call_flags,
     .handler = evalsha_ro_command},
    {.name = "script", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "scripting", .since = "2.6.0", .complexity = "Depends on subcommand.",
     .summary = "Commands about the Lua script cache",
     .subcommands = {
         {.name = "script|debug", .arity = 3, .flags = kNoscript,
          .acl = kAcl,
          .group = "scripting", .since = "3.2.0", .complexity = "O(1)",
          .summary = "Sets the debug mode of later scripts (lawnkv: NO only)",
          .handler = script_debug_command},
         {.name = "script|exists", .arity = -3, .flags = kNoscript,
          .acl = kAcl,
          .group = "scripting", .since = "2.6.0", .complexity = "O(N) with N the number of scripts asked about",
          .summary = "Says which scripts are cached",
          .tips = "request_policy:all_shards response_policy:agg_logical_and",
          .handler = script_exists_command},
         {.name = "script|flush", .arity = -2, .flags = kNoscript,
          .acl = kAcl,
          .group = "scripting", .since = "2.6.0", .complexity = "O(N) with N the number of cached scripts",
          .summary = "Forgets every cached script",
          .tips = "request_policy:all_nodes response_policy:all_succeeded",
          .handler = script_flush_command},
         {.name = "script|help", .arity = 2, .flags = kLoading | kStale,
          .acl = kAcl,
          .group = "scripting", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Shows the SCRIPT subcommands",
          .handler = script_help_command},
         {.name = "script|kill", .arity = 2, .flags = kNoscript | kAllowBusy,
          .acl = kAcl,
          .group = "scripting", .since = "2.6.0", .complexity = "O(1)",
          .summary = "Stops the script running now",
          .tips = "request_policy:all_shards response_policy:one_succeeded",
          .handler = script_kill_command},
         {.name = "script|load", .arity = 3, .flags = kNoscript | kStale,
          .acl = kAcl,
          .group = "scripting", .since = "2.6.0", .complexity = "O(N) with N the length of the script",
          .summary = "Caches a script without running it",
          .tips = "request_policy:all_nodes response_policy:all_succeeded",
          .handler = script_load_command},
     }},
  });
}

}  // namespace lawnkv
