#pragma once
// What one running script (EVAL, EVALSHA, their _RO forms) is allowed and
// has done: redis.call reads it before each command, as Redis's
// scriptRunCtx. It lives on the C++ stack of the command that runs the
// script (runtime.cpp), the interpreter points at it meanwhile.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/detached_session.hpp"

namespace lawnkv {
struct ServerState;
}

namespace lawnkv::scripting {

// redis.set_repl's values (Redis's PROPAGATE_AOF / PROPAGATE_REPL).
inline constexpr int kReplNone = 0;
inline constexpr int kReplAof = 1;
inline constexpr int kReplReplica = 2;
inline constexpr int kReplAll = 3;

struct RunContext {
  RunContext(ServerState& s, DetachedSession& c, int64_t now, int64_t start, std::string_view script_sha)
      : server(s), client(c), now_ms(now), start_ns(start), sha(script_sha) {}

  ServerState& server;
  DetachedSession& client;  // the script's client: the caller's db, RESP per redis.setresp
  int64_t now_ms;           // the caller's time snapshot: time is frozen for the script
  int64_t start_ns;         // Clock::steady_ns() when it started (the time limit)
  std::string_view sha;     // for error replies: "script: <sha>, on ..."
  bool read_only = false;   // *_RO, or a no-writes shebang: write commands refused
  bool allow_oom = false;   // allow-oom shebang flag
  bool oom_at_start = false;  // over maxmemory when the script started
  bool wrote = false;       // a write command ran (Redis's SCRIPT_WRITE_DIRTY)
  int repl = kReplAll;      // redis.set_repl
  uint64_t error_replies = 0;  // commands that failed or were refused: the script's call fails too
  bool function = false;    // FCALL: FUNCTION KILL stops it, SCRIPT KILL does not
  std::span<const std::string_view> caller_argv;  // the EVAL or FCALL (FUNCTION STATS shows it)
  // The client that called EVAL or FCALL: its ACL user is checked on every
  // redis.call, and the ACL LOG names it.
  const Session* caller = nullptr;
  bool timed_out = false;   // past busy-reply-threshold: the loop serves others meanwhile
  bool killed = false;      // SCRIPT KILL or FUNCTION KILL: the hook raises an error
};

}  // namespace lawnkv::scripting
