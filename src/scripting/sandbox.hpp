#pragma once
// Redis 7.0's sandbox, on a Lua without Redis's read-only-table patch.
//
// What a script sees:
// - only the globals Redis 7.0 leaves (base functions without print,
//   dofile, loadfile, getfenv, setfenv, newproxy, module, require; the
//   libraries string, table, math, coroutine, cjson, bit, struct, cmsgpack;
//   redis; KEYS and ARGV; __redis__err__handler);
// - reading a global that does not exist raises "Script attempted to
//   access nonexistent global variable 'x'";
// - writing any global, or any field of a library table (redis, string,
//   cjson, ...), or the string metatable, raises "Attempt to modify a
//   readonly table", as do rawset and setmetatable on them.
//
// How, without the patch: a protected table is seen through a proxy, an
// empty table whose metatable reads from the real one (__index) and
// refuses writes (__newindex). Scripts run with the globals' proxy as their
// environment, and every library table in the globals is replaced by its
// proxy. The base functions that bypass metatables (rawget, rawset, next,
// pairs, ipairs, getmetatable, setmetatable) are replaced by versions that
// see through a proxy to its table, or refuse to change it, so pairs(redis)
// lists redis's fields as in Redis. loadstring and load give the functions
// they compile the same environment. What differs: # and unpack() of a
// library table count 0 (nobody indexes them by number).
//
// Reading a global through the proxy costs two table lookups and a
// metamethod. A cached script whose code never assigns a global (no
// SETGLOBAL, global_writes.hpp: what nearly every script is, since Redis
// refuses such assignments) runs instead with the direct environment: a
// table holding the globals' values themselves (KEYS and ARGV kept equal
// to the globals' by script_globals.cpp, _G still the proxy), whose
// metatable raises for a missing name or a new one. Nothing else can write
// it: no function a script can reach returns it (getfenv and debug are
// gone, _G is the proxy), and the chunks loadstring and load compile get
// the proxy.

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

// Registry keys: the error handler (interpreter.cpp), the environment
// scripts run in (the globals' proxy) and the direct environment.
inline constexpr char kErrorHandlerKey[] = "lawnkv.err_handler";
inline constexpr char kEnvKey[] = "lawnkv.env";
inline constexpr char kDirectEnvKey[] = "lawnkv.direct_env";

// Seals the globals as described above; the last step of building a state.
void install_sandbox(lua_State* L);

// Gives the function on top of the stack the scripts' environment.
void set_script_env(lua_State* L);

// Gives a cached script (the function on top of the stack) the direct
// environment when it cannot assign a global, else the scripts'.
void set_cached_script_env(lua_State* L);

// Points the scripts' environment at the library API (function_api.hpp)
// while a FUNCTION library's top level runs, or back at the globals.
void use_library_api(lua_State* L, bool on);

}  // namespace lawnkv::scripting
