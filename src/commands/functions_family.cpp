// FUNCTION libraries and FCALL (src/scripting/functions.hpp runs them).
// KILL and STATS are what another client may send while a function runs
// past busy-reply-threshold (scripting/runtime.hpp).

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "core/error_format.hpp"
#include "core/glob.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "scripting/run_context.hpp"
#include "scripting/runtime.hpp"
#include "scripting/shebang.hpp"

namespace lawnkv {

namespace {

using scripting::Runtime;

constexpr std::string_view kBadNumkeys = "ERR Bad number of keys provided";
constexpr std::string_view kCodeMissing = "ERR Function code is missing";
constexpr std::string_view kLibraryNotFound = "ERR Library not found";
constexpr std::string_view kFlushMode = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
constexpr std::string_view kLibraryNameMissing = "ERR library name argument was not given";
constexpr std::string_view kRestorePolicy =
    "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.";
// Followed by the argument.
constexpr std::string_view kUnknownLoadOption = "ERR Unknown option given: %s";
constexpr std::string_view kUnknownListArgument = "ERR Unknown argument %s";

/* FCALL function numkeys [key ...] [arg ...] (and FCALL_RO) */
void fcall_generic(Call& call, bool read_only) {
  Runtime& rt = Runtime::of(call.server);
  if (rt.functions().find(call.argv[1]) == nullptr) return call.error(scripting::kFunctionNotFound);
  long long numkeys = 0;
  if (!integer_or_reply(call, call.argv[2], &numkeys, kBadNumkeys)) return;
  const long long room = static_cast<long long>(call.argv.size()) - 3;
  if (numkeys > room) return call.error(err::kTooManyKeys);
  if (numkeys < 0) return call.error(err::kNegativeKeys);
  const size_t n = static_cast<size_t>(numkeys);
  rt.fcall(call, {.script = call.argv[1], .by_sha = false, .read_only = read_only,
                  .keys = call.argv.subspan(3, n), .args = call.argv.subspan(3 + n)});
}

void fcall_command(Call& call) { fcall_generic(call, false); }
void fcall_ro_command(Call& call) { fcall_generic(call, true); }

/* FUNCTION LOAD [REPLACE] function-code */
void function_load_command(Call& call) {
  bool replace = false;
  size_t at = 2;
  for (; at + 1 < call.argv.size(); ++at) {
    if (!is_option(call.argv[at], "replace")) {
      return call.error(format_error(kUnknownLoadOption, {call.argv[at]}));
    }
    replace = true;
  }
  if (at >= call.argv.size()) return call.error(kCodeMissing);
  std::string name, error;
  if (!Runtime::of(call.server).functions().load(call.argv[at], replace, &name, &error)) return call.error(error);
  call.data.changed();
  call.reply.bulk(name);
}

/* FUNCTION DELETE library-name */
void function_delete_command(Call& call) {
  if (!Runtime::of(call.server).functions().remove(call.argv[2])) return call.error(kLibraryNotFound);
  call.data.changed();
  call.reply.simple("OK");
}

/* FUNCTION FLUSH [ASYNC|SYNC] */
void function_flush_command(Call& call) {
  if (call.argv.size() > 3) return reply_subcommand_syntax_error(call);
  if (call.argv.size() == 3 && !is_option(call.argv[2], "sync") && !is_option(call.argv[2], "async")) {
    return call.error(kFlushMode);
  }
  Runtime::of(call.server).functions().flush();
  call.data.changed();
  call.reply.simple("OK");
}

/* FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] */
void function_list_command(Call& call) {
  bool with_code = false;
  std::optional<std::string_view> pattern;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    if (!with_code && is_option(call.argv[i], "withcode")) {
      with_code = true;
      continue;
    }
    if (!pattern && is_option(call.argv[i], "libraryname")) {
      if (i + 1 >= call.argv.size()) return call.error(kLibraryNameMissing);
      pattern = call.argv[++i];
      continue;
    }
    return call.error(format_error(kUnknownListArgument, {call.argv[i]}));
  }
  const auto& libraries = Runtime::of(call.server).functions().libraries();
  size_t n = 0;
  for (const auto& entry : libraries) {
    if (!pattern || glob_match(*pattern, entry.first)) ++n;
  }
  call.reply.array(n);
  for (const auto& [name, lib] : libraries) {
    if (pattern && !glob_match(*pattern, name)) continue;
    call.reply.map(with_code ? 4 : 3);
    call.reply.bulk("library_name");
    call.reply.bulk(name);
    call.reply.bulk("engine");
    call.reply.bulk("LUA");
    call.reply.bulk("functions");
    call.reply.array(lib.functions.size());
    for (const auto& [fname, f] : lib.functions) {
      call.reply.map(3);
      call.reply.bulk("name");
      call.reply.bulk(fname);
      call.reply.bulk("description");
      if (f.description) {
        call.reply.bulk(*f.description);
      } else {
        call.reply.null();
      }
      call.reply.bulk("flags");
      size_t flags = 0;
      scripting::for_each_flag_name(f.flags, [&](std::string_view) { ++flags; });
      call.reply.set(flags);
      scripting::for_each_flag_name(f.flags, [&](std::string_view flag) { call.reply.simple(flag); });
    }
    if (with_code) {
      call.reply.bulk("library_code");
      call.reply.bulk(lib.code);
    }
  }
}

/* FUNCTION DUMP */
void function_dump_command(Call& call) { call.reply.bulk(Runtime::of(call.server).functions().dump()); }

/* FUNCTION RESTORE serialized-value [FLUSH|APPEND|REPLACE] */
void function_restore_command(Call& call) {
  using Policy = scripting::Functions::RestorePolicy;
  if (call.argv.size() > 4) return reply_subcommand_syntax_error(call);
  Policy policy = Policy::kAppend;
  if (call.argv.size() == 4) {
    if (is_option(call.argv[3], "append")) {
      policy = Policy::kAppend;
    } else if (is_option(call.argv[3], "replace")) {
      policy = Policy::kReplace;
    } else if (is_option(call.argv[3], "flush")) {
      policy = Policy::kFlush;
    } else {
      return call.error(kRestorePolicy);
    }
  }
  std::string error;
  if (!Runtime::of(call.server).functions().restore(call.argv[2], policy, &error)) return call.error(error);
  call.data.changed();
  call.reply.simple("OK");
}

/* FUNCTION STATS */
void function_stats_command(Call& call) {
  const Runtime& rt = Runtime::of(call.server);
  const scripting::RunContext* running = rt.running();
  // An EVAL script is busy: Redis answers as to a command that may not run.
  if (running != nullptr && !running->function) return call.error(err::kBusyScript);
  const scripting::Functions& fs = rt.functions();
  call.reply.map(2);
  call.reply.bulk("running_script");
  if (running == nullptr) {
    call.reply.null();
  } else {
    call.reply.map(3);
    call.reply.bulk("name");
    call.reply.bulk(running->sha);
    call.reply.bulk("command");
    call.reply.array(running->caller_argv.size());
    for (std::string_view a : running->caller_argv) call.reply.bulk(a);
    call.reply.bulk("duration_ms");
    call.reply.integer((Clock::steady_ns() - running->start_ns) / 1'000'000);
  }
  call.reply.bulk("engines");
  call.reply.map(1);
  call.reply.bulk("LUA");
  call.reply.map(2);
  call.reply.bulk("libraries_count");
  call.reply.integer(static_cast<int64_t>(fs.libraries().size()));
  call.reply.bulk("functions_count");
  call.reply.integer(static_cast<int64_t>(fs.function_count()));
}

/* FUNCTION KILL */
void function_kill_command(Call& call) {
  const std::string_view error = Runtime::of(call.server).kill(false);
  if (!error.empty()) return call.error(error);
  call.reply.simple("OK");
}

/* FUNCTION HELP */
void function_help_command(Call& call) {
  reply_help(call, "FUNCTION",
             {"LOAD [REPLACE] <FUNCTION CODE>",
              "    Create a new library with the given library name and code.",
              "DELETE <LIBRARY NAME>",
              "    Delete the given library.",
              "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
              "    Return general information on all the libraries:",
              "    * Library name",
              "    * The engine used to run the Library",
              "    * Library description",
              "    * Functions list",
              "    * Library code (if WITHCODE is given)",
              "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
              "STATS",
              "    Return information about the current function running:",
              "    * Function name",
              "    * Command used to run the function",
              "    * Duration in MS that the function is running",
              "    If no function is running, return nil",
              "    In addition, returns a list of available engines.",
              "KILL",
              "    Kill the current running function.",
              "FLUSH [ASYNC|SYNC]",
              "    Delete all the libraries.",
              "    When called without the optional mode argument, the behavior is determined by the",
              "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
              "    * ASYNC: Asynchronously flush the libraries.",
              "    * SYNC: Synchronously flush the libraries.",
              "DUMP",
              "    Return a serialized payload representing the current libraries, can be restored using FUNCTION "
              "RESTORE command",
              "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
              "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
              "    control how to handle existing libraries (default APPEND):",
              "    * FLUSH: delete all existing libraries.",
              "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
              "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
              "      libraries with the new libraries (notice that even on this option there is a chance of failure",
              "      in case of functions name collision with another library)."});
}

constexpr uint32_t kFcallFlags = kNoscript | kStale | kSkipMonitor | kNoMandatoryKeys | kMovableKeys;
constexpr std::string_view kAcl = "@slow @scripting";
constexpr std::string_view kWriteAcl = "@write @slow @scripting";
constexpr std::string_view kAllShards = "request_policy:all_shards response_policy:all_succeeded";

// CLIENT PAUSE reads the flags the script runs with (Runtime::call_flags).
uint32_t fcall_call_flags(ServerState& server, std::span<const std::string_view> argv, uint32_t row_flags) {
  return Runtime::of(server).call_flags(argv, row_flags, true);
}

}  // namespace

void register_function_commands(CommandTable& t) {
  t.add({
    {.name = "fcall", .arity = -3, .flags = kFcallFlags | kMayReplicate, .keynum = {2, 1, 1},
     .acl = kAcl,
     .group = "scripting", .since = "7.0.0", .complexity = "Depends on the function that is executed.",
     .summary = "Runs a function of a loaded library",
     .key_flags = "RW access update",
     .key_notes = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE",
     .call_flags = fcall_call_flags,
     .handler = fcall_command},
    {.name = "fcall_ro", .arity = -3, .flags = kFcallFlags | kReadonly, .keynum = {2, 1, 1},
     .acl = kAcl,
     .group = "scripting", .since = "7.0.0", .complexity = "Depends on the function that is executed.",
     .summary = "Runs a function that may not write",
     .key_flags = "RO access",
     .key_notes = "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS",
     .call_flags = fcall_call_flags,
     .handler = fcall_ro_command},
    {.name = "function", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "scripting", .since = "7.0.0", .complexity = "Depends on subcommand.",
     .summary = "Commands about function libraries",
     .subcommands = {
         {.name = "function|delete", .arity = 3, .flags = kWrite | kNoscript,
          .acl = kWriteAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(1)",
          .summary = "Deletes a library and its functions",
          .tips = kAllShards,
          .handler = function_delete_command},
         {.name = "function|dump", .arity = 2, .flags = kNoscript,
          .acl = kAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(N) where N is the number of functions",
          .summary = "Serializes every library",
          .handler = function_dump_command},
         {.name = "function|flush", .arity = -2, .flags = kWrite | kNoscript,
          .acl = kWriteAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(N) where N is the number of functions deleted",
          .summary = "Deletes every library",
          .tips = kAllShards,
          .handler = function_flush_command},
         {.name = "function|help", .arity = 2, .flags = kLoading | kStale,
          .acl = kAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(1)",
          .summary = "Shows the FUNCTION subcommands",
          .handler = function_help_command},
         {.name = "function|kill", .arity = 2, .flags = kNoscript | kAllowBusy,
          .acl = kAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(1)",
          .summary = "Stops the function running now",
          .tips = "request_policy:all_shards response_policy:one_succeeded",
          .handler = function_kill_command},
         {.name = "function|list", .arity = -2, .flags = kNoscript,
          .acl = kAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(N) where N is the number of functions",
          .summary = "Lists the libraries and their functions",
          .tips = "nondeterministic_output_order",
          .handler = function_list_command},
         {.name = "function|load", .arity = -3, .flags = kWrite | kDenyOom | kNoscript,
          .acl = kWriteAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(1) (considering compilation time is redundant)",
          .summary = "Loads a library",
          .tips = kAllShards,
          .handler = function_load_command},
         {.name = "function|restore", .arity = -3, .flags = kWrite | kDenyOom | kNoscript,
          .acl = kWriteAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(N) where N is the number of functions on the payload",
          .summary = "Restores libraries from a FUNCTION DUMP payload",
          .tips = kAllShards,
          .handler = function_restore_command},
         {.name = "function|stats", .arity = 2, .flags = kNoscript | kAllowBusy,
          .acl = kAcl,
          .group = "scripting", .since = "7.0.0", .complexity = "O(1)",
          .summary = "Says which function runs, and how many there are",
          .tips = "nondeterministic_output request_policy:all_shards response_policy:special",
          .handler = function_stats_command},
     }},
  });
}

}  // namespace lawnkv
