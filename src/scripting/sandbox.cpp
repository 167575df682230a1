#include "scripting/sandbox.hpp"

#include <cstring>

#include "scripting/function_api.hpp"
#include "scripting/global_writes.hpp"
#include "scripting/lua_fixes.hpp"

extern "C" {
#include <lauxlib.h>
}

namespace lawnkv::scripting {

namespace {

// proxy -> real table, in the registry and as upvalue 1 of the wrappers.
constexpr char kProxiesKey[] = "lawnkv.proxies";

// The globals a script may see (Redis 7.0's allow lists, less what it
// removes after initialisation). KEYS and ARGV are set per run.
constexpr const char* kAllowedGlobals[] = {
    "string", "cjson", "bit", "cmsgpack", "math", "table", "struct", "redis", "__redis__err__handler",
    "xpcall", "tostring", "setmetatable", "next", "assert", "tonumber", "rawequal", "collectgarbage",
    "getmetatable", "rawset", "pcall", "coroutine", "type", "_G", "select", "unpack", "gcinfo", "pairs",
    "rawget", "loadstring", "ipairs", "_VERSION", "load", "error",
};

constexpr char kReadonly[] = "Attempt to modify a readonly table";

// __newindex of a proxy: the error carries the script's position, as the
// patched VM's does.
int readonly_newindex(lua_State* L) {
  luaL_where(L, 1);
  lua_pushstring(L, kReadonly);
  lua_concat(L, 2);
  return lua_error(L);
}

// rawset / setmetatable on a protected table: no position (Redis raises it
// inside the C function).
int readonly_plain(lua_State* L) {
  lua_pushstring(L, kReadonly);
  return lua_error(L);
}

// __index of the real globals: a global that does not exist.
int missing_global(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
}

// Replaces the value at idx by the table it is a proxy of (if it is one).
// Returns whether it was.
bool see_through(lua_State* L, int idx) {
  lua_pushvalue(L, idx);
  lua_rawget(L, lua_upvalueindex(1));
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
  lua_replace(L, idx);
  return true;
}

bool is_proxy(lua_State* L, int idx) {
  lua_pushvalue(L, idx);
  lua_rawget(L, lua_upvalueindex(1));
  const bool yes = !lua_isnil(L, -1);
  lua_pop(L, 1);
  return yes;
}

int sb_rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  see_through(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int sb_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (is_proxy(L, 1)) return readonly_plain(L);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int sb_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  see_through(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

// pairs: upvalue 2 is the wrapped next.
int sb_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int sb_ipairs_step(lua_State* L) {
  const int i = luaL_checkint(L, 2) + 1;
  luaL_checktype(L, 1, LUA_TTABLE);
  see_through(L, 1);
  lua_pushinteger(L, i);
  lua_rawgeti(L, 1, i);
  return lua_isnil(L, -1) ? 0 : 2;
}

// ipairs: upvalue 2 is the step function.
int sb_ipairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

// getmetatable: a library table has none; the globals' is the error
// metatable (upvalue 2, itself read-only).
int sb_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (is_proxy(L, 1)) {
    lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
    if (lua_rawequal(L, 1, -1)) {
      lua_pushvalue(L, lua_upvalueindex(2));
    } else {
      lua_pushnil(L);
    }
    return 1;
  }
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");
  return 1;
}

int sb_setmetatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (is_proxy(L, 1)) return readonly_plain(L);
  if (luaL_getmetafield(L, 1, "__metatable")) return luaL_error(L, "cannot change a protected metatable");
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// Compiles the chunk on top of the stack (a string) under chunkname,
// replacing it with the function in the scripts' environment, or with nil
// and the error message. Bytecode is never loaded (a crafted chunk can
// break out of the VM): as in Redis, a chunk starting with ESC is read as
// text, so it fails with "unexpected symbol near 'char(27)'".
int compile_chunk(lua_State* L, const char* chunkname) {
  size_t len = 0;
  const char* code = lua_tolstring(L, -1, &len);
  int status;
  if (len > 0 && code[0] == LUA_SIGNATURE[0]) {
    lua_pushliteral(L, " ");
    lua_pushvalue(L, -2);
    lua_concat(L, 2);
    const char* text = lua_tolstring(L, -1, &len);
    status = luaL_loadbuffer(L, text, len, chunkname);
  } else {
    status = luaL_loadbuffer(L, code, len, chunkname);
  }
  if (status != 0) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  lua_setfenv(L, -2);
  return 1;
}

// loadstring(s [, chunkname])
int sb_loadstring(lua_State* L) {
  const char* s = luaL_checkstring(L, 1);
  const char* chunkname = luaL_optstring(L, 2, s);
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  return compile_chunk(L, chunkname);
}

// load(func [, chunkname]): the pieces func returns, joined, then compiled.
int sb_load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* chunkname = luaL_optstring(L, 2, kLoadChunkName);
  lua_settop(L, 2);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) {
      lua_pop(L, 1);
      luaL_pushresult(&b);
      lua_pushnil(L);
      lua_pushliteral(L, "reader function must return a string");
      return 2;
    }
    if (lua_objlen(L, -1) == 0) {
      lua_pop(L, 1);
      break;
    }
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return compile_chunk(L, chunkname);
}

// Pushes the proxy of the table at idx (absolute), recording it.
void push_proxy(lua_State* L, int idx) {
  lua_newtable(L);                // proxy
  lua_createtable(L, 0, 2);       // its metatable
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// globals[name] = closure of fn with the proxies table (and extra, when
// given, from the top of the stack) as upvalues.
void wrap(lua_State* L, const char* name, lua_CFunction fn, bool with_extra = false) {
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  if (with_extra) lua_insert(L, -2);
  lua_pushcclosure(L, fn, with_extra ? 2 : 1);
  lua_setfield(L, LUA_GLOBALSINDEX, name);
}

bool allowed(const char* name) {
  for (const char* a : kAllowedGlobals) {
    if (std::strcmp(a, name) == 0) return true;
  }
  return false;
}

}  // namespace

void install_sandbox(lua_State* L) {
  // Drop what Redis does not leave (collected first: no table change
  // during traversal).
  lua_newtable(L);
  int drop = 0;
  lua_pushnil(L);
  while (lua_next(L, LUA_GLOBALSINDEX)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING || !allowed(lua_tostring(L, -1))) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, -3, ++drop);
    }
  }
  for (int i = 1; i <= drop; ++i) {
    lua_rawgeti(L, -1, i);
    lua_pushnil(L);
    lua_rawset(L, LUA_GLOBALSINDEX);
  }
  lua_pop(L, 1);

  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProxiesKey);

  // The wrappers that see through proxies.
  wrap(L, "rawget", sb_rawget);
  wrap(L, "rawset", sb_rawset);
  wrap(L, "setmetatable", sb_setmetatable);
  wrap(L, "next", sb_next);
  lua_getfield(L, LUA_GLOBALSINDEX, "next");
  wrap(L, "pairs", sb_pairs, true);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushcclosure(L, sb_ipairs_step, 1);
  wrap(L, "ipairs", sb_ipairs, true);
  lua_pushcfunction(L, sb_loadstring);
  lua_setfield(L, LUA_GLOBALSINDEX, "loadstring");
  lua_pushcfunction(L, sb_load);
  lua_setfield(L, LUA_GLOBALSINDEX, "load");

  // Every library table of the globals becomes its proxy.
  lua_newtable(L);
  int libs = 0;
  lua_pushnil(L);
  while (lua_next(L, LUA_GLOBALSINDEX)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_rawget(L, LUA_GLOBALSINDEX);
    const bool table = lua_istable(L, -1) && !lua_rawequal(L, -1, LUA_GLOBALSINDEX);
    lua_pop(L, 1);
    if (table) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, -3, ++libs);
    }
  }
  for (int i = 1; i <= libs; ++i) {
    lua_rawgeti(L, -1, i);                    // name
    lua_pushvalue(L, -1);
    lua_rawget(L, LUA_GLOBALSINDEX);          // name, table
    push_proxy(L, lua_gettop(L));             // name, table, proxy
    lua_remove(L, -2);
    lua_rawset(L, LUA_GLOBALSINDEX);
  }
  lua_pop(L, 1);

  // Strings' metatable: its __index is string's proxy, and getmetatable("")
  // answers a read-only view of it.
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  const int smt = lua_gettop(L);
  lua_getfield(L, LUA_GLOBALSINDEX, "string");
  lua_setfield(L, smt, "__index");
  push_proxy(L, smt);
  lua_setfield(L, smt, "__metatable");
  lua_pop(L, 2);

  // The globals: a missing name raises; scripts see them through a proxy,
  // which _G names too; getmetatable(_G) answers a read-only view of the
  // error metatable.
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, missing_global);
  lua_setfield(L, -2, "__index");
  const int gmt = lua_gettop(L);
  push_proxy(L, LUA_GLOBALSINDEX);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kEnvKey);
  lua_setfield(L, LUA_GLOBALSINDEX, "_G");
  push_proxy(L, gmt);
  wrap(L, "getmetatable", sb_getmetatable, true);

  // The library API (FUNCTION's interpreter only): its redis table is
  // read-only, a missing name raises as for the globals.
  lua_getfield(L, LUA_REGISTRYINDEX, kLibraryApiKey);
  if (lua_istable(L, -1)) {
    const int api = lua_gettop(L);
    lua_getfield(L, api, "redis");
    lua_pushvalue(L, gmt);
    lua_setmetatable(L, -2);  // a missing field raises, as a missing global
    push_proxy(L, lua_gettop(L));
    lua_setfield(L, api, "redis");
    lua_pop(L, 1);
    lua_pushvalue(L, gmt);
    lua_setmetatable(L, api);
  }
  lua_pop(L, 1);

  lua_pushvalue(L, gmt);
  lua_setmetatable(L, LUA_GLOBALSINDEX);
  lua_pop(L, 1);

  // The direct environment: the globals' values (the proxies and wrappers
  // above), a missing name raising, a new one refused.
  lua_createtable(L, 0, 48);
  const int direct = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, LUA_GLOBALSINDEX)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, direct);
  }
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, missing_global);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, direct);
  lua_setfield(L, LUA_REGISTRYINDEX, kDirectEnvKey);
}

void use_library_api(lua_State* L, bool on) {
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  lua_getmetatable(L, -1);
  if (on) {
    lua_getfield(L, LUA_REGISTRYINDEX, kLibraryApiKey);
  } else {
    lua_pushvalue(L, LUA_GLOBALSINDEX);
  }
  lua_setfield(L, -2, "__index");
  lua_pop(L, 2);
}

void set_script_env(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  lua_setfenv(L, -2);
}

void set_cached_script_env(lua_State* L) {
  if (may_assign_globals(L)) return set_script_env(L);
  lua_getfield(L, LUA_REGISTRYINDEX, kDirectEnvKey);
  lua_setfenv(L, -2);
}

}  // namespace lawnkv::scripting
