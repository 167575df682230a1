#include "scripting/redis_api.hpp"

#include <cmath>
#include <cstdio>
#include <string>

extern "C" {
#include <lauxlib.h>
}

#include "engine/acl_check.hpp"
#include "engine/dispatch.hpp"
#include "engine/errors.hpp"
#include "engine/good_replicas.hpp"
#include "engine/server_state.hpp"
#include "core/log.hpp"
#include "core/numbers.hpp"
#include "core/sha1.hpp"
#include "scripting/conversions.hpp"
#include "scripting/interpreter.hpp"
#include "scripting/run_context.hpp"

namespace lawnkv::scripting {

namespace {

// Pushes Redis's error table for text; the guard lives in this frame only,
// so the caller may raise the table once this returns.
void push_error(lua_State* L, std::string_view text) {
  HeapGuard guard(Interpreter::of(L));
  push_error_table(L, text);
}

// Raises Redis's error table for text.
int raise(lua_State* L, const char* text) {
  push_error(L, text);
  return lua_error(L);
}

// A number argument's text as Redis writes it, "%.17g" (Lua's own "%.14g"
// would lose precision), into buf. An integer below 1e15 in magnitude is
// its digits in that format, written without printf (the usual case:
// counts, TTLs); -0 keeps printf's "-0".
size_t number_text(lua_Number d, char (&buf)[32]) {
  if (d > -1e15 && d < 1e15 && d == std::trunc(d) && !(d == 0 && std::signbit(d))) {
    return ll_to_chars(buf, static_cast<long long>(d));
  }
  return static_cast<size_t>(std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(d)));
}

// The texts of a call's first number arguments, in the frame of the call
// (trivially destructible: no longjmp can skip anything); further numbers
// become Lua strings on the stack.
struct NumberTexts {
  static constexpr size_t kSlots = 8;
  char text[kSlots][32];
  size_t used = 0;
};

// The arguments of a redis.* call as strings (numbers as number_text
// writes them) into argv. Returns the error text, or nullptr.
const char* collect_args(lua_State* L, std::vector<std::string_view>& argv, NumberTexts& numbers) {
  const int argc = lua_gettop(L);
  if (argc == 0) return "Please specify at least one argument for this redis lib call";
  argv.clear();
  for (int i = 1; i <= argc; ++i) {
    const int type = lua_type(L, i);
    if (type == LUA_TNUMBER) {
      if (numbers.used < NumberTexts::kSlots) {
        char(&buf)[32] = numbers.text[numbers.used++];
        argv.emplace_back(buf, number_text(lua_tonumber(L, i), buf));
        continue;
      }
      char buf[32];
      lua_pushlstring(L, buf, number_text(lua_tonumber(L, i), buf));
      lua_replace(L, i);
    } else if (type != LUA_TSTRING) {
      lua_settop(L, 0);
      return "Lua redis lib command arguments must be strings or integers";
    }
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    argv.emplace_back(s, len);
  }
  return nullptr;
}

// resolve() through the interpreter's cache of rows by command name.
Resolved resolve_cached(Interpreter& in, const CommandTable& table, std::span<const std::string_view> argv) {
  const std::string_view name = argv[0];
  if (name.empty()) return resolve(table, argv);
  Interpreter::CachedCommand& slot =
      in.command_cache[(name.size() * 31 + static_cast<unsigned char>(name.front()) +
                        static_cast<unsigned char>(name.back())) % in.command_cache.size()];
  if (slot.spec != nullptr && slot.name == name) {
    Resolved r;
    r.known = slot.spec;
    if (arity_ok(*slot.spec, argv.size())) r.spec = slot.spec;
    return r;
  }
  // Kept: the row of a command without subcommands (r.known is the
  // subcommand's row for a container).
  if (const CommandSpec* top = table.find(name); top != nullptr && top->subcommands.empty()) {
    slot.name.assign(name);
    slot.spec = top;
  }
  return resolve(table, argv);
}

// Why the script may not run this command now (Redis's scriptCall checks,
// in its order), or nullptr.
const char* refusal(const RunContext& run, const Resolved& r, std::span<const std::string_view> argv) {
  if (r.spec == nullptr) {
    return r.known ? "Wrong number of args calling Redis command from script"
                   : "Unknown Redis command called from script";
  }
  const CommandSpec& spec = *r.spec;
  if (spec.has(kNoscript)) return "This Redis command is not allowed from script";
  if (const acl::User* user = run.caller ? run.caller->user : nullptr; user && !user->unrestricted()) {
    // Redis's scriptVerifyACL: logged in the "lua" context.
    const acl::Verdict v = acl_check_and_log(run.server, *run.caller, *user, spec, argv, kAclLua, run.now_ms);
    switch (v) {
      case acl::kAllowed:
        break;
      case acl::kDeniedCommand:
        return "The user executing the script can't run this command or subcommand";
      case acl::kDeniedKey:
        return "The user executing the script can't access at least one of the keys mentioned in the command "
               "arguments";
      case acl::kDeniedChannel:
        return "The user executing the script can't publish to the channel mentioned in the command";
      default:
        return "The user executing the script lacking the permissions for the command";
    }
  }
  if (run.read_only && spec.has(kWrite | kMayReplicate)) return "Write commands are not allowed from read-only scripts.";
  // A read-only replica: only its primary's scripts write (Redis's
  // scriptVerifyWriteCommandAllow).
  if (spec.has(kWrite) && run.server.facts.replica && run.server.config.values().replica_read_only &&
      !(run.caller && run.caller->master))
    return "-READONLY You can't write against a read only replica.";
  // min-replicas-to-write: reached by scripts without flags (EVAL's
  // shebang-less form); a flagged one was refused before it ran.
  if (spec.has(kWrite) && !run.wrote && too_few_good_replicas(run.server))
    return "-NOREPLICAS Not enough good replicas to write.";
  if (!run.allow_oom && !run.wrote && run.oom_at_start && spec.has(kDenyOom) &&
      run.server.config.values().maxmemory != 0) {
    return "-OOM command not allowed when used memory > 'maxmemory'.";
  }
  return nullptr;
}

enum class Outcome { kValue, kRaise };

// redis.call / redis.pcall without the raise: every C++ object lives in
// this frame, which returns before the caller raises. Leaves one value on
// the stack: the reply's Lua value, or an error table.
Outcome execute(lua_State* L, bool raising) {
  Interpreter& in = Interpreter::of(L);
  HeapGuard guard(in);
  RunContext* run = in.run;
  if (run == nullptr) {
    push_error_table(L, "redis.call/pcall can only be called inside a script invocation");
    return Outcome::kRaise;
  }
  NumberTexts numbers;
  if (const char* why = collect_args(L, in.call_argv, numbers)) {
    push_error_table(L, why);
    return raising ? Outcome::kRaise : Outcome::kValue;
  }
  ServerState& server = run->server;
  const Resolved r = resolve_cached(in, server.commands, in.call_argv);
  if (const char* why = refusal(*run, r, in.call_argv)) {
    if (r.known) ++r.known->stats.rejected_calls;
    ++run->error_replies;
    lua_settop(L, 0);
    push_error_table(L, why);
    // Counted here, as Redis's scriptCall counts a refusal (INFO errorstats).
    lua_getfield(L, -1, "err");
    server.facts.errors.on_error_reply(lua_tostring(L, -1));
    lua_pop(L, 1);
    mark_error_counted(L);
    return raising ? Outcome::kRaise : Outcome::kValue;
  }
  if (r.spec->has(kWrite)) run->wrote = true;
  std::string& out = in.call_reply;
  out.clear();
  resp::Writer w(out, run->client.protocol);
  w.observe_errors(&server.facts.errors);
  const size_t recorded = server.data.effects.pending();
  run_command(server, run->client, w, *r.spec, in.call_argv, run->now_ms);
  // lawnkv has no replicas: what is not for the AOF goes nowhere.
  if (!(run->repl & kReplAof)) server.data.effects.forget_since(recorded);
  lua_settop(L, 0);  // the arguments' strings: call_argv points into them
  in.call_argv.clear();
  push_reply(L, out);
  if (!out.empty() && out[0] == '-') ++run->error_replies;
  return raising && !out.empty() && out[0] == '-' ? Outcome::kRaise : Outcome::kValue;
}

int redis_call(lua_State* L) {
  if (execute(L, true) == Outcome::kRaise) return lua_error(L);
  return 1;
}

int redis_pcall(lua_State* L) {
  if (execute(L, false) == Outcome::kRaise) return lua_error(L);
  return 1;
}

// Global pcall: an error that is a table with an err string comes back as
// that string.
int global_pcall(lua_State* L) {
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

int redis_sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) return raise(L, "wrong number of arguments");
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  char digest[41];
  {
    HeapGuard guard(Interpreter::of(L));
    const std::string hex = sha1_hex(s ? std::string_view(s, len) : std::string_view());
    hex.copy(digest, 40);
    digest[40] = '\0';
  }
  lua_pushstring(L, digest);
  return 1;
}

int redis_error_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error(L, "wrong number or type of arguments");
    return 1;
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  if (len > 0 && s[0] == '-') {
    push_error(L, {s, len});
  } else {
    lua_pushliteral(L, "-");
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
    s = lua_tolstring(L, -1, &len);
    push_error(L, {s, len});
  }
  return 1;
}

int redis_status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, 1);
  lua_rawset(L, -3);
  return 1;
}

int redis_log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) return raise(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return raise(L, "First argument must be a number (log level).");
  const int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < 0 || level > 3) return raise(L, "Invalid debug level.");
  // The arguments joined by spaces (those that are not strings or numbers
  // left out, as Redis).
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 2; i <= argc; ++i) {
    if (!lua_isstring(L, i)) continue;
    if (i != 2) luaL_addchar(&b, ' ');
    lua_pushvalue(L, i);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  const RunContext* run = Interpreter::of(L).run;
  if (run != nullptr && run->server.log != nullptr) {
    size_t len = 0;
    const char* text = lua_tolstring(L, -1, &len);
    HeapGuard guard(Interpreter::of(L));
    run->server.log->log(static_cast<LogLevel>(level), std::string_view(text, len));
  }
  return 0;
}

int redis_setresp(lua_State* L) {
  RunContext* run = Interpreter::of(L).run;
  if (run == nullptr) return raise(L, "redis.setresp can only be called inside a script invocation");
  if (lua_gettop(L) != 1) return raise(L, "redis.setresp() requires one argument.");
  const int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) return raise(L, "RESP version must be 2 or 3.");
  run->client.protocol = resp;
  return 0;
}

int redis_set_repl(lua_State* L) {
  RunContext* run = Interpreter::of(L).run;
  if (run == nullptr) return raise(L, "redis.set_repl can only be called inside a script invocation");
  if (lua_gettop(L) != 1) return raise(L, "redis.set_repl() requires two arguments.");
  const int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~kReplAll) != 0) {
    return raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  run->repl = flags;
  return 0;
}

// Whether the command exists, and *allowed whether the caller's ACL user
// may run it (Redis's ACLCheckAllUserCommandPerm: nothing is logged).
const char* acl_check(lua_State* L, bool* allowed) {
  Interpreter& in = Interpreter::of(L);
  HeapGuard guard(in);
  NumberTexts numbers;
  if (const char* why = collect_args(L, in.call_argv, numbers)) return why;
  const Resolved r = resolve(in.run->server.commands, in.call_argv);
  if (!r.known) {
    in.call_argv.clear();
    return "Invalid command passed to redis.acl_check_cmd()";
  }
  const acl::User* user = in.run->caller ? in.run->caller->user : nullptr;
  int pos = 0;
  *allowed = !user || user->check(*r.known, in.call_argv, &pos) == acl::kAllowed;
  in.call_argv.clear();
  return nullptr;
}

int redis_acl_check_cmd(lua_State* L) {
  if (Interpreter::of(L).run == nullptr) {
    return raise(L, "redis.acl_check_cmd can only be called inside a script invocation");
  }
  bool allowed = false;
  if (const char* why = acl_check(L, &allowed)) return raise(L, why);
  lua_pushboolean(L, allowed ? 1 : 0);
  return 1;
}

// Without the debugger: breakpoint answers false, debug does nothing.
int redis_breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}

int redis_debug(lua_State*) { return 0; }

// Redis 7 always replicates effects: answers true.
int redis_replicate_commands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

void set_number(lua_State* L, const char* name, lua_Number n) {
  lua_pushnumber(L, n);
  lua_setfield(L, -2, name);
}

constexpr luaL_Reg kFunctions[] = {
    {"call", redis_call},
    {"pcall", redis_pcall},
    {"setresp", redis_setresp},
    {"sha1hex", redis_sha1hex},
    {"error_reply", redis_error_reply},
    {"status_reply", redis_status_reply},
    {"set_repl", redis_set_repl},
    {"acl_check_cmd", redis_acl_check_cmd},
    {"breakpoint", redis_breakpoint},
    {"debug", redis_debug},
    {"replicate_commands", redis_replicate_commands},
    {nullptr, nullptr},
};

}  // namespace

void add_log_and_version(lua_State* L) {
  lua_pushcfunction(L, redis_log);
  lua_setfield(L, -2, "log");
  set_number(L, "LOG_DEBUG", 0);
  set_number(L, "LOG_VERBOSE", 1);
  set_number(L, "LOG_NOTICE", 2);
  set_number(L, "LOG_WARNING", 3);
  // The Redis version lawnkv answers as (INFO's redis_version).
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  set_number(L, "REDIS_VERSION_NUM", 0x07000f);
}

void register_redis_api(lua_State* L) {
  lua_pushcfunction(L, global_pcall);
  lua_setglobal(L, "pcall");

  lua_newtable(L);
  for (const luaL_Reg* f = kFunctions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  add_log_and_version(L);
  set_number(L, "REPL_NONE", kReplNone);
  set_number(L, "REPL_AOF", kReplAof);
  set_number(L, "REPL_SLAVE", kReplReplica);
  set_number(L, "REPL_REPLICA", kReplReplica);
  set_number(L, "REPL_ALL", kReplAll);
  lua_setglobal(L, "redis");
}

}  // namespace lawnkv::scripting
