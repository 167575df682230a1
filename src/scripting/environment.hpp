#pragma once
// What a script's Lua state holds, built as Redis 7.0 builds its scripting
// engine: the libraries base, table, string, math, cjson, bit, struct and
// cmsgpack; the redis.* API (redis_api.hpp) and Redis's math.random
// (lua_random.hpp); the error handler; for FUNCTION's interpreter the
// library API (function_api.hpp); then the sandbox (sandbox.hpp) seals it.
// An Interpreter::Setup.

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

void build_environment(lua_State* L, bool functions);

}  // namespace lawnkv::scripting
