#pragma once
// The scripting engine of one server (Redis 7.0's eval.c + script.c): the
// Lua interpreter, the script cache (sha1 -> body, compiled function) and
// running one script atomically for EVAL / EVALSHA and their _RO forms.
//
// A run: the caller's time snapshot is the script's (time is frozen), its
// commands run through one detached client in the caller's db; what they
// write is recorded as their own effects, nested in the EVAL's frame, so
// the records of one script reach the AOF together (wrapped in MULTI/EXEC
// when more than one); EVAL itself is never recorded. Keyspace events,
// WATCH and blocked clients hear of each write as it happens; blocked
// clients are served once the EVAL is done, as after any command.
//
// Past busy-reply-threshold (lua-time-limit) a script keeps running and
// turns busy, as in Redis 7.0: its Lua hook (every 100000 instructions)
// calls the server's loop (engine/busy_loop.hpp), which reads and answers
// the other clients; dispatch answers -BUSY to all but the allow-busy
// commands. SCRIPT KILL / FUNCTION KILL (kill()) mark a script that has
// not written, and the hook then raises "Script killed by user with
// SCRIPT KILL..." on every line until the script ends; one that has written
// runs to its end (-UNKILLABLE), or until SHUTDOWN NOSAVE ends the process.
// A server state without a loop (tests, fuzzers) stops the script with an
// error past the threshold instead: nothing could ever kill it there.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/context.hpp"
#include "engine/detached_session.hpp"
#include "engine/server_state.hpp"
#include "scripting/functions.hpp"
#include "scripting/interpreter.hpp"

namespace lawnkv::scripting {

// FCALL of a function no library defines (FCALL checks before it parses its
// keys, the runtime again when it runs one).
inline constexpr std::string_view kFunctionNotFound = "ERR Function not found";

class Runtime final : public Service, public FunctionLibraries {
 public:
  Runtime();

  // The runtime of server, built on first use.
  static Runtime& of(ServerState& server);

  struct Request {
    std::string_view script;  // the body (EVAL) or a sha1 (EVALSHA)
    bool by_sha = false;
    bool read_only = false;   // EVAL_RO / EVALSHA_RO
    std::span<const std::string_view> keys;
    std::span<const std::string_view> args;
  };
  // Runs the script and replies to call.
  void eval(Call& call, const Request& req);
  // FCALL / FCALL_RO: req.script is the function's name.
  void fcall(Call& call, const Request& req);
  Functions& functions() { return functions_; }
  const Functions& functions() const { return functions_; }

  // SCRIPT LOAD: caches body, returning its sha1 in *sha, or false with
  // *error (a full error text) when it does not compile.
  bool load(std::string_view body, std::string* sha, std::string* error);
  bool exists(std::string_view sha) const;
  // The command flags one EVAL, EVALSHA (and _RO) or, with function, FCALL
  // (and _RO) call runs with, as Redis's evalGetCommandFlags and
  // fcallGetCommandFlags: a script's or function's flags replace the row's
  // write, denyoom, stale and may_replicate; a script without a shebang, an
  // unknown sha or function, keep the row's (call_flags.cpp).
  uint32_t call_flags(std::span<const std::string_view> argv, uint32_t row_flags, bool function) const;

  // SCRIPT FLUSH: forgets every script and starts a fresh interpreter.
  void flush();

  // SCRIPT KILL (eval) or FUNCTION KILL: "" when the running script will
  // be stopped, else the error to reply (NOTBUSY, UNKILLABLE, or the BUSY
  // text that names the other KILL).
  std::string_view kill(bool eval);
  // The script running now (a busy one, when another client asks), or nullptr.
  const RunContext* running() const { return running_; }

  // FunctionLibraries: as dump.rdb keeps them.
  std::vector<std::string> function_libraries() const override;
  std::string replace_function_libraries(const std::vector<std::string>& codes) override;

  // INFO.
  size_t cached_scripts() const { return scripts_.size(); }
  size_t scripts_bytes() const { return scripts_bytes_; }
  size_t lua_bytes() const { return lua_->used_bytes(); }

  // The Lua heap a script may grow to (Interpreter::kHeapLimit unless a
  // test sets less).
  void set_heap_limit(size_t bytes);

 private:
  struct Script {
    uint32_t flags = 0;  // shebang.hpp's ScriptFlag
    int function = 0;    // the compiled function, a reference in the Lua registry
  };
  // What run() calls: a cached script, or a FUNCTION's callback.
  struct Target {
    Interpreter& lua;
    int function;           // registry reference
    std::string_view name;  // the sha or function name, for "script: <name>, on ..."
    uint32_t flags;         // ScriptFlag
    bool keys_as_args;      // FCALL: KEYS and ARGV are the callback's two arguments
  };
  // The cached script for sha (lowercase), compiling body when it is new.
  const Script* compile(std::string_view body, const std::string& sha, std::string* error);
  // The shebang / function flags checked before a run; false after an error reply.
  static bool may_start(Call& call, uint32_t flags, bool read_only);
  // A replica whose link is down under replica-serve-stale-data no.
  static bool running_stale(const ServerState& server);
  void run(Call& call, const Request& req, const Target& target);
  void reply_error(Call& call, Interpreter& lua, std::string_view name);

  std::unique_ptr<Interpreter> lua_;
  Functions functions_;
  // Looked up by a string_view too (EVALSHA's lowercased sha, on the stack).
  struct ShaHash {
    using is_transparent = void;
    size_t operator()(std::string_view sha) const { return std::hash<std::string_view>{}(sha); }
  };
  std::unordered_map<std::string, Script, ShaHash, std::equal_to<>> scripts_;
  // EVALSHA's last shas, as the clients sent them (any case), and their
  // entries in scripts_ (whose nodes stay where they are until a flush):
  // a repeated EVALSHA skips lowercasing and hashing its sha.
  struct ShaMemo {
    char sent[40] = {};
    const std::pair<const std::string, Script>* entry = nullptr;
  };
  std::array<ShaMemo, 8> sha_memo_{};
  size_t scripts_bytes_ = 0;
  DetachedSession client_;  // the scripts' client (Redis's lua_client)
  RunContext* running_ = nullptr;  // on run()'s stack while a script runs
  size_t heap_limit_ = Interpreter::kHeapLimit;
};

}  // namespace lawnkv::scripting
