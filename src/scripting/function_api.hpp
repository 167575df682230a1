#pragma once
// What a FUNCTION library's top level sees while FUNCTION LOAD runs it
// (Redis 7.0's library API): only `redis`, with register_function, log,
// the LOG_* levels, REDIS_VERSION and REDIS_VERSION_NUM. The functions it
// registers run later with the scripts' globals (sandbox.hpp switches the
// environment between the two).
//
// redis.register_function(name, callback) or
// redis.register_function{function_name=, callback=, description=, flags={...}}
// adds to the Library being loaded (Interpreter::loading), with Redis's
// error texts.

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

// Registry key of the library API's globals table.
inline constexpr char kLibraryApiKey[] = "lawnkv.library_api";

// Builds the library API table and keeps it under kLibraryApiKey (before
// the sandbox, which seals it).
void register_library_api(lua_State* L);

}  // namespace lawnkv::scripting
