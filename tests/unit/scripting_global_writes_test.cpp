// The bytecode scan for global assignments (scripting/global_writes.hpp)
// and the environment a cached script gets from it (sandbox.hpp).

#include <doctest/doctest.h>

#include <string>

extern "C" {
#include <lauxlib.h>
#include <lualib.h>
}

#include "scripting/environment.hpp"
#include "scripting/global_writes.hpp"
#include "scripting/interpreter.hpp"
#include "scripting/sandbox.hpp"
#include "scripting/script_globals.hpp"

namespace lawnkv::scripting {
namespace {

// may_assign_globals of code compiled in a bare state.
bool assigns(const std::string& code) {
  lua_State* L = luaL_newstate();
  REQUIRE(luaL_loadbuffer(L, code.data(), code.size(), "@t") == 0);
  const bool yes = may_assign_globals(L);
  CHECK(lua_gettop(L) == 1);
  lua_close(L);
  return yes;
}

TEST_CASE("global writes: SETGLOBAL in a chunk or in any function nested in it") {
  CHECK_FALSE(assigns("return 1"));
  CHECK_FALSE(assigns("local x = 1 x = 2 return x"));
  CHECK_FALSE(assigns("local t = {} t.x = 1 t[1] = 2 return t"));
  CHECK_FALSE(assigns("return redis.call('get', KEYS[1])"));
  CHECK(assigns("x = 1"));
  CHECK(assigns("function f() end"));
  CHECK(assigns("if false then x = 1 end return 1"));
  CHECK(assigns("local function f() y = 1 end return 1"));
  CHECK(assigns("return function() return function() return function() z = 1 end end end"));
  // Every kind of constant and of debug information before and after a
  // nested function: misread, the scan would give up (and say true).
  CHECK_FALSE(assigns("local s, n, b, z = 'abc', 1.5, true, nil\n"
                      "local function f(a, ...) local c = a .. s return c, n, b, z, ... end\n"
                      "local g = function() local u = f return u('x') end\n"
                      "return f('x', 'y'), g(), 'tail', 2.25"));
  CHECK(assigns("local s, n = 'abc', 1.5\nlocal function f(a) local c = a .. s return c, n end\n"
                "local function g() w = f('x') end\nreturn 'tail', 2.25"));
}

TEST_CASE("global writes: a C function or anything else is taken to assign") {
  lua_State* L = luaL_newstate();
  lua_pushcfunction(L, luaopen_base);
  CHECK(may_assign_globals(L));
  lua_pushnumber(L, 1);
  CHECK(may_assign_globals(L));
  lua_close(L);
}

// The environment set_cached_script_env gave code.
std::string env_of(Interpreter& in, const std::string& code) {
  lua_State* L = in.state();
  REQUIRE(luaL_loadbuffer(L, code.data(), code.size(), "@user_script") == 0);
  set_cached_script_env(L);
  lua_getfenv(L, -1);
  lua_getfield(L, LUA_REGISTRYINDEX, kDirectEnvKey);
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  const std::string env = lua_rawequal(L, -3, -2) ? "direct" : lua_rawequal(L, -3, -1) ? "proxy" : "other";
  lua_pop(L, 4);
  return env;
}

// How many keys the direct environment holds, and whether it holds name.
int direct_env_size(lua_State* L, const char* name, bool* has) {
  lua_getfield(L, LUA_REGISTRYINDEX, kDirectEnvKey);
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    ++n;
    lua_pop(L, 1);
  }
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  *has = !lua_isnil(L, -1);
  lua_pop(L, 2);
  return n;
}

TEST_CASE("global writes: cached scripts that assign no global run with the globals themselves") {
  Interpreter in(build_environment);
  CHECK(env_of(in, "return redis.call('get', KEYS[1])") == "direct");
  CHECK(env_of(in, "local function f() return KEYS end return f()") == "direct");
  CHECK(env_of(in, "x = 1") == "proxy");
  CHECK(env_of(in, "if false then x = 1 end return KEYS[1]") == "proxy");

  // KEYS and ARGV: the same tables in the globals and the direct
  // environment, refilled or replaced.
  lua_State* L = in.state();
  const std::string_view k1[] = {"a"};
  const std::string_view k2[] = {"b", "c"};
  for (auto keys : {std::span<const std::string_view>(k1), std::span<const std::string_view>(k2),
                    std::span<const std::string_view>(k2)}) {
    set_keys_and_argv(in, keys, keys);
    for (const char* name : {"KEYS", "ARGV"}) {
      CAPTURE(name);
      lua_getfield(L, LUA_REGISTRYINDEX, kDirectEnvKey);
      lua_pushstring(L, name);
      lua_rawget(L, -2);
      lua_pushstring(L, name);
      lua_rawget(L, LUA_GLOBALSINDEX);
      CHECK(lua_istable(L, -1));
      CHECK(lua_rawequal(L, -1, -2));
      CHECK(static_cast<size_t>(lua_objlen(L, -1)) == keys.size());
      lua_rawgeti(L, -1, 1);
      CHECK(std::string(lua_tostring(L, -1)) == keys[0]);
      lua_pop(L, 4);
    }
  }

  // Nothing a script does adds to or changes the direct environment.
  bool has = false;
  const int size = direct_env_size(L, "x", &has);
  CHECK_FALSE(has);
  for (const char* code : {"_G.x = 1", "rawset(_G, 'x', 1)", "redis = 1", "x = 1", "loadstring('x = 1')()",
                           "coroutine.wrap(function() x = 1 end)()", "setmetatable(_G, {})"}) {
    CAPTURE(code);
    lua_getfield(L, LUA_REGISTRYINDEX, kErrorHandlerKey);
    REQUIRE(luaL_loadstring(L, code) == 0);
    set_cached_script_env(L);
    CHECK(lua_pcall(L, 0, 0, -2) != 0);
    lua_pop(L, 2);
  }
  CHECK(direct_env_size(L, "x", &has) == size);
  CHECK_FALSE(has);
  CHECK(lua_gettop(L) == 0);
}

}  // namespace
}  // namespace lawnkv::scripting
