#include "scripting/script_globals.hpp"

extern "C" {
#include <lauxlib.h>
}

#include "scripting/interpreter.hpp"
#include "scripting/sandbox.hpp"

namespace lawnkv::scripting {

namespace {

// Whether the table at idx holds exactly the keys 1..n, met in that order
// by lua_next, and has no metatable.
bool holds_just_indices(lua_State* L, int idx, size_t n) {
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return false;
  }
  size_t seen = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);  // the value
    if (lua_type(L, -1) != LUA_TNUMBER || lua_tonumber(L, -1) != static_cast<lua_Number>(seen + 1) ||
        ++seen > n) {
      lua_pop(L, 1);  // the key
      return false;
    }
  }
  return seen == n;
}

// Sets global name (a literal) to an array of items, refilling the table
// that *ref holds when holds_just_indices allows; a new table becomes the
// global, in the direct environment too, and *ref.
void set_array(lua_State* L, int* ref, const char* name, size_t name_len,
               std::span<const std::string_view> items) {
  if (*ref != LUA_NOREF) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, *ref);
    const int t = lua_gettop(L);
    if (holds_just_indices(L, t, items.size())) {
      for (size_t i = 0; i < items.size(); ++i) {
        // The same bytes as last run's (a queue's name, a fixed argument)
        // are the same Lua string: kept without interning them again.
        lua_rawgeti(L, t, static_cast<int>(i + 1));
        size_t len = 0;
        const char* old = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : nullptr;
        const bool same = old != nullptr && std::string_view(old, len) == items[i];
        lua_pop(L, 1);
        if (same) continue;
        lua_pushlstring(L, items[i].data(), items[i].size());
        lua_rawseti(L, t, static_cast<int>(i + 1));
      }
      lua_pop(L, 1);
      return;
    }
    lua_pop(L, 1);
  }
  push_string_array(L, items);
  const int t = lua_gettop(L);
  lua_pushvalue(L, t);
  if (*ref == LUA_NOREF) {
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_rawseti(L, LUA_REGISTRYINDEX, *ref);
  }
  // The real globals have no __newindex: a plain set; nor does a raw set
  // reach the direct environment's.
  lua_pushlstring(L, name, name_len);
  lua_pushvalue(L, t);
  lua_rawset(L, LUA_GLOBALSINDEX);
  lua_getfield(L, LUA_REGISTRYINDEX, kDirectEnvKey);
  if (lua_istable(L, -1)) {
    lua_pushlstring(L, name, name_len);
    lua_pushvalue(L, t);
    lua_rawset(L, -3);
  }
  lua_pop(L, 2);
}

}  // namespace

void push_string_array(lua_State* L, std::span<const std::string_view> items) {
  lua_createtable(L, static_cast<int>(items.size()), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    lua_pushlstring(L, items[i].data(), items[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

void set_keys_and_argv(Interpreter& in, std::span<const std::string_view> keys,
                       std::span<const std::string_view> args) {
  lua_State* L = in.state();
  lua_checkstack(L, 6);
  set_array(L, &in.keys_table, "KEYS", 4, keys);
  set_array(L, &in.argv_table, "ARGV", 4, args);
}

}  // namespace lawnkv::scripting
