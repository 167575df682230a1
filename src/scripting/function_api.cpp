#include "scripting/function_api.hpp"

#include <string>

extern "C" {
#include <lauxlib.h>
}

#include "core/ascii.hpp"
#include "scripting/conversions.hpp"
#include "scripting/function_library.hpp"
#include "scripting/interpreter.hpp"
#include "scripting/redis_api.hpp"
#include "scripting/shebang.hpp"

namespace lawnkv::scripting {

namespace {

// The string at idx (numbers too, as lua_isstring), or nullopt.
std::optional<std::string> string_at(lua_State* L, int idx) {
  if (!lua_isstring(L, idx)) return std::nullopt;
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  return std::string(s, len);
}

// The flags table on top of the stack; false on an unknown flag.
bool read_flags(lua_State* L, uint32_t* flags) {
  uint32_t out = 0;
  for (int j = 1;; ++j) {
    lua_pushnumber(L, j);
    lua_rawget(L, -2);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    const auto name = string_at(L, -1);
    lua_pop(L, 1);
    const uint32_t flag = name ? script_flag_named(*name, true) : 0;
    if (flag == 0) return false;
    out |= flag;
  }
  *flags = out;
  return true;
}

void drop_callback(lua_State* L, FunctionInfo& f) {
  if (f.callback != 0) luaL_unref(L, LUA_REGISTRYINDEX, f.callback);
  f.callback = 0;
}

// register_function{...}: the named arguments into *f.
const char* read_named(lua_State* L, FunctionInfo* f) {
  if (!lua_istable(L, 1)) {
    return "calling redis.register_function with a single argument is only applicable to Lua table (representing "
           "named arguments).";
  }
  bool named = false;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    if (!lua_isstring(L, -2)) return "named argument key given to redis.register_function is not a string";
    const std::string key = *string_at(L, -2);
    if (iequals(key, "function_name")) {
      auto name = string_at(L, -1);
      if (!name) return "function_name argument given to redis.register_function must be a string";
      f->name = *name;
      named = true;
    } else if (iequals(key, "description")) {
      auto desc = string_at(L, -1);
      if (!desc) return "description argument given to redis.register_function must be a string";
      f->description = *desc;
    } else if (iequals(key, "callback")) {
      if (!lua_isfunction(L, -1)) return "callback argument given to redis.register_function must be a function";
      drop_callback(L, *f);
      f->callback = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the value
      continue;
    } else if (iequals(key, "flags")) {
      if (!lua_istable(L, -1)) {
        return "flags argument to redis.register_function must be a table representing function flags";
      }
      if (!read_flags(L, &f->flags)) return "unknown flag given";
    } else {
      return "unknown argument given to redis.register_function";
    }
    lua_pop(L, 1);
  }
  if (!named) return "redis.register_function must get a function name argument";
  if (f->callback == 0) return "redis.register_function must get a callback argument";
  return nullptr;
}

// register_function(name, callback).
const char* read_positional(lua_State* L, FunctionInfo* f) {
  auto name = string_at(L, 1);
  if (!name) return "first argument to redis.register_function must be a string";
  if (!lua_isfunction(L, 2)) return "second argument to redis.register_function must be a function";
  f->name = *name;
  lua_pushvalue(L, 2);
  f->callback = luaL_ref(L, LUA_REGISTRYINDEX);
  return nullptr;
}

// Reads the arguments and adds the function to the library being loaded;
// every C++ object lives in this frame. Leaves an error table on the stack
// and returns true when the caller must raise it.
bool register_inner(lua_State* L) {
  Interpreter& in = Interpreter::of(L);
  HeapGuard guard(in);
  if (in.loading == nullptr) {
    push_error_table(L, "redis.register_function can only be called on FUNCTION LOAD command");
    return true;
  }
  const int argc = lua_gettop(L);
  FunctionInfo f;
  const char* why = nullptr;
  if (argc < 1 || argc > 2) {
    why = "wrong number of arguments to redis.register_function";
  } else {
    why = argc == 1 ? read_named(L, &f) : read_positional(L, &f);
  }
  if (why == nullptr && !valid_function_name(f.name)) why = kBadNameError.data();
  if (why == nullptr && in.loading->functions.contains(f.name)) why = "Function already exists in the library";
  if (why != nullptr) {
    drop_callback(L, f);
    lua_settop(L, 0);
    push_error_table(L, why);
    return true;
  }
  std::string name = f.name;
  in.loading->functions.emplace(std::move(name), std::move(f));
  return false;
}

int register_function(lua_State* L) {
  if (register_inner(L)) return lua_error(L);
  return 0;
}

}  // namespace

void register_library_api(lua_State* L) {
  lua_newtable(L);  // the library API's globals
  lua_newtable(L);  // its redis
  lua_pushcfunction(L, register_function);
  lua_setfield(L, -2, "register_function");
  add_log_and_version(L);
  lua_setfield(L, -2, "redis");
  lua_setfield(L, LUA_REGISTRYINDEX, kLibraryApiKey);
}

}  // namespace lawnkv::scripting
