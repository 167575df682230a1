#include "scripting/environment.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lualib.h>
}

#include "scripting/function_api.hpp"
#include "scripting/interpreter.hpp"
#include "scripting/lua_fixes.hpp"
#include "scripting/lua_libs.hpp"
#include "scripting/lua_random.hpp"
#include "scripting/redis_api.hpp"
#include "scripting/sandbox.hpp"

namespace lawnkv::scripting {

namespace {

// Redis's __redis__err__handler: an error becomes a table {err=...} with
// the source and line of the Lua code that raised it (of its caller when
// a C function such as redis.call raised it), so the reply can say
// "script: <sha>, on @user_script:1.". It keeps `debug` as an upvalue; the
// global goes away with the sandbox.
constexpr char kErrorHandler[] =
    "local dbg = debug\n"
    "return function(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}\n"
    "  end\n"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end\n"
    "  return err\n"
    "end\n";

void open_library(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

// A module whose opener returns its table without setting a global (as
// Debian builds lua-cjson and LuaBitOp): the global is set here.
void open_module(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  lua_setglobal(L, name);
}

}  // namespace

void build_environment(lua_State* L, bool functions) {
  open_library(L, "", luaopen_base);
  open_library(L, LUA_TABLIBNAME, luaopen_table);
  open_library(L, LUA_STRLIBNAME, luaopen_string);
  open_library(L, LUA_MATHLIBNAME, luaopen_math);
  open_library(L, LUA_DBLIBNAME, luaopen_debug);
  open_module(L, "cjson", luaopen_cjson);
  open_module(L, "bit", luaopen_bit);
  open_extra_libraries(L);
  apply_lua_fixes(L);
  register_redis_api(L);
  replace_math_random(L);
  luaL_loadbuffer(L, kErrorHandler, sizeof kErrorHandler - 1, kErrorHandlerChunkName);
  lua_call(L, 0, 1);
  lua_pushvalue(L, -1);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kErrorHandlerKey);
  Interpreter::of(L).error_handler = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_setglobal(L, "__redis__err__handler");
  if (functions) register_library_api(L);
  install_sandbox(L);
}


}  // namespace lawnkv::scripting
