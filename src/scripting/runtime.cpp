#include "scripting/runtime.hpp"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

extern "C" {
#include <lauxlib.h>
}

#include "engine/errors.hpp"
#include "engine/good_replicas.hpp"
#include "core/ascii.hpp"
#include "core/sha1.hpp"
#include "scripting/conversions.hpp"
#include "scripting/environment.hpp"
#include "scripting/function_dump.hpp"
#include "scripting/lua_fixes.hpp"
#include "scripting/run_context.hpp"
#include "scripting/sandbox.hpp"
#include "scripting/script_globals.hpp"
#include "scripting/shebang.hpp"

namespace lawnkv::scripting {

namespace {

constexpr char kNoScript[] = "NOSCRIPT No matching script. Please use EVAL.";
constexpr char kKilled[] = "Script killed by user with SCRIPT KILL...";  // push_error_table adds "ERR "
constexpr char kTimedOut[] =
    "Script killed: it ran longer than busy-reply-threshold (lua-time-limit) milliseconds";
constexpr char kUnkillable[] =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait "
    "the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.";
constexpr char kNotBusy[] = "NOTBUSY No scripts in execution right now.";

// What redis.call's reply and argument buffers may keep between scripts.
constexpr size_t kKeptReplyBytes = 64 * 1024;
constexpr size_t kKeptArgs = 1024;

// The hook's C++ part (no Lua error can cross it): past busy-reply-threshold
// the script turns busy and the loop serves the other clients, each time
// the hook fires from then on. True, with the error pushed, when SCRIPT
// KILL or FUNCTION KILL came, or when the server has no loop (a state
// without sockets: tests, fuzzers, whose loop may also give up on a script
// that wrote), where nothing else could ever stop the script.
bool serve_others(Interpreter& in, RunContext& run) {
  HeapGuard guard(in);
  ServerState& server = run.server;
  if (!run.timed_out) {
    const int64_t limit_ms = server.config.values().busy_reply_threshold;
    const int64_t elapsed_ms = (Clock::steady_ns() - run.start_ns) / 1'000'000;
    if (limit_ms <= 0 || elapsed_ms < limit_ms) return false;
    run.timed_out = true;
    server.busy_error = run.function ? err::kBusyFunction : err::kBusyScript;
    if (server.log != nullptr && server.busy_loop != nullptr) {
      server.log->log(LogLevel::kWarning,
                      "Slow script detected: still in execution after " + std::to_string(elapsed_ms) +
                          " milliseconds. You can try killing the script using the " +
                          (run.function ? "FUNCTION KILL" : "SCRIPT KILL") +
                          " command. Script name is: " + std::string(run.sha) + ".");
    }
  }
  if (server.busy_loop == nullptr) {
    push_error_table(in.state(), kTimedOut);
    return true;
  }
  // An exception must not cross the interpreter's C frames: the loop is
  // served again at the next hook.
  try {
    server.busy_loop->serve_while_busy();
  } catch (const std::exception& e) {
    if (server.log != nullptr) server.log->log(LogLevel::kWarning, std::string("Serving clients: ") + e.what());
  } catch (...) {
    if (server.log != nullptr) server.log->log(LogLevel::kWarning, "Serving clients: an unknown exception");
  }
  if (!run.killed) return false;
  if (server.log != nullptr) server.log->log(LogLevel::kWarning, "Lua script killed by user with SCRIPT KILL.");
  push_error_table(in.state(), kKilled);
  return true;
}

// The count hook: every 100000 VM instructions, the time since the script
// started against busy-reply-threshold, then the loop while it is busy.
// Once killed it fires on every line, so a pcall in the script cannot
// swallow the error for long.
void time_hook(lua_State* L, lua_Debug*) {
  Interpreter& in = Interpreter::of(L);
  if (in.run == nullptr || !serve_others(in, *in.run)) return;
  lua_sethook(L, time_hook, LUA_MASKLINE, 0);
  lua_error(L);  // the error table serve_others pushed
}

// Whether the value on top is an error table ({err = "..."}).
bool returns_error(lua_State* L) {
  if (!lua_istable(L, -1)) return false;
  lua_pushliteral(L, "err");
  lua_rawget(L, -2);
  const bool yes = lua_type(L, -1) == LUA_TSTRING;
  lua_pop(L, 1);
  return yes;
}

// Over maxmemory, after evicting what can go.
bool out_of_memory(ServerState& server) {
  const config::Values& v = server.config.values();
  return v.maxmemory != 0 && server.data.evict(v) == Evictor::Result::kFail;
}

}  // namespace

Runtime::Runtime() : lua_(std::make_unique<Interpreter>(build_environment)) { client_.in_script = true; }

void Runtime::set_heap_limit(size_t bytes) {
  heap_limit_ = bytes;
  lua_->heap_limit = bytes;
}

Runtime& Runtime::of(ServerState& server) {
  if (!server.scripting()) {
    Runtime& runtime = server.adopt(std::make_unique<Runtime>());
    server.set_scripting(&runtime);
    // Libraries a file loaded before any script ran.
    if (!server.pending_functions.empty()) {
      const std::vector<std::string> codes = std::move(server.pending_functions);
      server.pending_functions.clear();
      if (std::string error = runtime.replace_function_libraries(codes); !error.empty() && server.log) {
        server.log->log(LogLevel::kWarning, "Failed loading a function library: " + error);
      }
    }
  }
  return static_cast<Runtime&>(*server.scripting());
}

std::vector<std::string> Runtime::function_libraries() const {
  std::vector<std::string> codes;
  for (const auto& entry : functions_.libraries()) codes.push_back(entry.second.code);
  return codes;
}

std::string Runtime::replace_function_libraries(const std::vector<std::string>& codes) {
  std::vector<std::string_view> views(codes.begin(), codes.end());
  std::string error;
  if (!functions_.restore(dump_libraries(views), Functions::RestorePolicy::kFlush, &error)) return error;
  return {};
}

const Runtime::Script* Runtime::compile(std::string_view body, const std::string& sha, std::string* error) {
  if (auto it = scripts_.find(sha); it != scripts_.end()) return &it->second;
  Shebang shebang;
  if (!parse_shebang(body, &shebang, error)) {
    *error = "ERR " + *error;
    return nullptr;
  }
  lua_State* L = lua_->state();
  const std::string_view code = body.substr(shebang.length);
  if (luaL_loadbuffer(L, code.data(), code.size(), kScriptChunkName) != 0) {
    *error = "ERR Error compiling script (new function): ";
    *error += lua_tostring(L, -1);
    lua_pop(L, 1);
    return nullptr;
  }
  set_cached_script_env(L);
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  scripts_bytes_ += sha.size() + body.size();
  return &scripts_.emplace(sha, Script{shebang.flags, ref}).first->second;
}

bool Runtime::load(std::string_view body, std::string* sha, std::string* error) {
  *sha = sha1_hex(body);
  return compile(body, *sha, error) != nullptr;
}

bool Runtime::exists(std::string_view sha) const { return scripts_.contains(to_lower(sha)); }

void Runtime::flush() {
  lua_.reset();
  lua_ = std::make_unique<Interpreter>(build_environment);
  lua_->heap_limit = heap_limit_;
  scripts_.clear();
  sha_memo_ = {};
  scripts_bytes_ = 0;
}

void Runtime::eval(Call& call, const Request& req) {
  std::string sha;
  char lower[40];  // EVALSHA's sha, lowercased here rather than in a new string
  std::string_view name;
  const Script* script = nullptr;
  if (req.by_sha) {
    if (req.script.size() != sizeof lower) return call.error(kNoScript);
    ShaMemo& memo = sha_memo_[(static_cast<unsigned char>(req.script[0]) * 31u +
                               static_cast<unsigned char>(req.script[39])) % sha_memo_.size()];
    if (memo.entry == nullptr || std::memcmp(memo.sent, req.script.data(), sizeof memo.sent) != 0) {
      for (size_t i = 0; i < sizeof lower; ++i) lower[i] = ascii_lower(req.script[i]);
      auto it = scripts_.find(std::string_view(lower, sizeof lower));
      if (it == scripts_.end()) return call.error(kNoScript);
      std::memcpy(memo.sent, req.script.data(), sizeof memo.sent);
      memo.entry = &*it;
    }
    name = memo.entry->first;
    script = &memo.entry->second;
  } else {
    sha = sha1_hex(req.script);
    name = sha;
    std::string error;
    script = compile(req.script, sha, &error);
    if (script == nullptr) return call.error(error);
  }
  if (script->flags & kCompatMode) {
    // Without a shebang only the stale rule applies (Redis's
    // scriptPrepareForRun in compatibility mode).
    if (running_stale(call.server)) return call.error(err::kMasterDown);
  } else if (!may_start(call, script->flags, req.read_only)) {
    return;
  }
  run(call, req, Target{*lua_, script->function, name, script->flags, false});
}

void Runtime::fcall(Call& call, const Request& req) {
  const FunctionInfo* f = functions_.find(req.script);
  if (f == nullptr) return call.error(kFunctionNotFound);
  if (!may_start(call, f->flags, req.read_only)) return;
  run(call, req, Target{functions_.interpreter(), f->callback, f->name, f->flags, true});
}

std::string_view Runtime::kill(bool eval) {
  if (running_ == nullptr) return kNotBusy;
  if (running_->wrote) return kUnkillable;
  if (eval && running_->function) return err::kBusyFunction;
  if (!eval && !running_->function) return err::kBusyScript;
  running_->killed = true;
  return {};
}

bool Runtime::running_stale(const ServerState& server) {
  return server.facts.replica && !server.facts.primary_link_up && !server.config.values().replica_serve_stale_data;
}

bool Runtime::may_start(Call& call, uint32_t flags, bool read_only) {
  if (running_stale(call.server) && !(flags & kAllowStale)) {
    call.error("MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and 'allow-stale' flag "
               "is not set on the script.");
    return false;
  }
  if (!(flags & kNoWrites) && call.server.facts.replica && call.cfg().replica_read_only && !call.session.master) {
    call.error("READONLY Can not run script with write flag on readonly replica");
    return false;
  }
  if (!(flags & kNoWrites) && read_only) {
    call.error("ERR Can not execute a script with write flag using *_ro command.");
    return false;
  }
  if (!(flags & kNoWrites) && too_few_good_replicas(call.server)) {
    call.error(err::kNoReplicas);
    return false;
  }
  if (!(flags & (kNoWrites | kAllowOom)) && out_of_memory(call.server)) {
    call.error(err::kOom);
    return false;
  }
  return true;
}

void Runtime::run(Call& call, const Request& req, const Target& target) {
  Interpreter& lua = target.lua;
  lua_State* L = lua.state();
  const bool compat = target.flags & kCompatMode;
  RunContext ctx(call.server, client_, call.now_ms, Clock::steady_ns(), target.name);
  ctx.read_only = req.read_only || (!compat && (target.flags & kNoWrites));
  ctx.allow_oom = !compat && (target.flags & kAllowOom);
  ctx.oom_at_start = compat && out_of_memory(call.server);
  ctx.function = target.keys_as_args;
  ctx.caller_argv = call.argv;
  ctx.caller = &call.session;
  client_.db = call.session.db;
  // The script's commands run as the caller's user (as Redis's script
  // client), for the checks a command makes itself (SORT's BY and GET).
  client_.user = call.session.user;
  client_.protocol = 2;  // scripts start in RESP2; redis.setresp changes it

  lua_checkstack(L, 6);
  lua_rawgeti(L, LUA_REGISTRYINDEX, lua.error_handler);
  lua_rawgeti(L, LUA_REGISTRYINDEX, target.function);
  if (target.keys_as_args) {
    push_string_array(L, req.keys);
    push_string_array(L, req.args);
  } else {
    set_keys_and_argv(lua, req.keys, req.args);
  }

  lua.run = &ctx;
  running_ = &ctx;
  if (call.cfg().busy_reply_threshold > 0) lua_sethook(L, time_hook, LUA_MASKCOUNT, 100000);
  lua.limit_active = true;
  const int status = lua_pcall(L, target.keys_as_args ? 2 : 0, 1, target.keys_as_args ? -4 : -2);
  lua.limit_active = false;
  lua_sethook(L, nullptr, 0, 0);
  lua.run = nullptr;
  running_ = nullptr;
  client_.user = nullptr;
  // redis.call's buffers are kept for the next script unless large.
  if (lua.call_reply.capacity() > kKeptReplyBytes) std::string().swap(lua.call_reply);
  if (lua.call_argv.capacity() > kKeptArgs) std::vector<std::string_view>().swap(lua.call_argv);
  if (ctx.timed_out) call.server.busy_error = {};

  // commandstats: the script's call failed when it replies an error, or
  // when a command it ran did (as Redis counts every error reply made
  // during the call).
  if (status != 0) {
    reply_error(call, lua, target.name);
  } else {
    if (returns_error(L)) call.failed = true;
    write_value(L, call.reply, client_.protocol);
  }
  if (ctx.error_replies > 0) call.failed = true;
  lua_pop(L, 1);  // the error handler
}

// The error on top of the stack as Redis words it: a table from the error
// handler gives "<err> script: <sha>, on <source>:<line>."; anything else
// (out of memory, where the handler does not run) "Error running script".
// Outside the protected call: only raw reads, so no metamethod of the
// script's can raise here (where Redis itself panics).
void Runtime::reply_error(Call& call, Interpreter& lua, std::string_view sha) {
  lua_State* L = lua.state();
  const int error = lua_gettop(L);
  auto raw_field = [L, error](const char* name) {
    lua_pushstring(L, name);
    lua_rawget(L, error);
  };
  std::string text;
  if (lua_istable(L, error)) {
    raw_field("err");
    const bool has_message = lua_type(L, -1) == LUA_TSTRING;
    if (has_message) text = lua_tostring(L, -1);
    lua_pop(L, 1);
    raw_field("line");
    raw_field("source");
    if (has_message && lua_isstring(L, -1) && lua_isstring(L, -2)) {
      text += " script: " + std::string(sha) + ", on " + lua_tostring(L, -1) + ":" + lua_tostring(L, -2) + ".";
    }
    lua_pop(L, 2);
    if (!has_message) text = "ERR Error running script " + std::string(sha) + ", execution failure";
  } else {
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.100s", msg);
    text = "ERR Error running script " + std::string(sha) + ", " + buf;
  }
  // An error a command replied (redis.call raising it) was counted then.
  const bool counted = error_counted(L, -1);
  lua_pop(L, 1);
  resp::ErrorObserver* observer = call.reply.error_observer();
  if (counted) call.reply.observe_errors(nullptr);
  call.error(text);
  call.reply.observe_errors(observer);
}

}  // namespace lawnkv::scripting
