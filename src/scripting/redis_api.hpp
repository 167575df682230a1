#pragma once
// The `redis` table scripts call, as Redis 7.0 has it: call, pcall,
// error_reply, status_reply, sha1hex, log with LOG_DEBUG..LOG_WARNING,
// setresp, set_repl with REPL_NONE/AOF/REPLICA/SLAVE/ALL,
// replicate_commands, acl_check_cmd, REDIS_VERSION and REDIS_VERSION_NUM
// (7.0.15, the version lawnkv answers as), and breakpoint / debug as a
// server without the debugger answers them (false, nothing). Also the
// global pcall, which turns Redis's error tables back into their message,
// as Redis 7.0 does for scripts written for older versions.
//
// redis.call runs a command as Redis's scriptCall does: arity and unknown
// commands, noscript commands, write commands in read-only scripts, OOM
// before the first write, each refused with Redis's text; then the
// command itself through the script's detached client with the script's
// frozen time (run_context.hpp), its reply converted (conversions.hpp).

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

// Sets the global `redis` and replaces the global pcall.
void register_redis_api(lua_State* L);

// Adds log, the LOG_* levels, REDIS_VERSION and REDIS_VERSION_NUM to the
// table on top of the stack (the library API has them too).
void add_log_and_version(lua_State* L);

}  // namespace lawnkv::scripting
