#include "scripting/lua_fixes.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <initializer_list>

extern "C" {
#include <lauxlib.h>
}

namespace lawnkv::scripting {

namespace {

// unpack(t [, i [, j]]): t[i], ..., t[j]; i defaults to 1, j to #t.
int unpack_checked(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const int first = luaL_optint(L, 2, 1);
  const int last = lua_isnoneornil(L, 3) ? static_cast<int>(lua_objlen(L, 1)) : luaL_checkint(L, 3);
  if (first > last) return 0;
  const long long count = static_cast<long long>(last) - first + 1;
  if (count >= INT_MAX || !lua_checkstack(L, static_cast<int>(count))) {
    return luaL_error(L, "too many results to unpack");
  }
  for (long long k = first; k <= last; ++k) lua_rawgeti(L, 1, static_cast<int>(k));
  return static_cast<int>(count);
}

// LuaBitOp's conversion of a number to 32 bits: rounded to the nearest
// integer, modulo 2^32 (the 2^52 + 2^51 trick it uses).
int32_t to_bits(lua_Number n) {
  const double shifted = static_cast<double>(n) + 6755399441055744.0;
  uint64_t raw;
  std::memcpy(&raw, &shifted, sizeof raw);
  return static_cast<int32_t>(static_cast<uint32_t>(raw));
}

// bit.tohex(x [, n]): the low |n| hex digits of x (8 by default, at most
// 8), upper case when n < 0; n = -2^31 reads as -(2^31 - 1).
int tohex_checked(lua_State* L) {
  uint32_t bits = static_cast<uint32_t>(to_bits(luaL_checknumber(L, 1)));
  int32_t digits = lua_isnone(L, 2) ? 8 : to_bits(luaL_checknumber(L, 2));
  const char* alphabet = "0123456789abcdef";
  if (digits == INT32_MIN) digits = INT32_MIN + 1;
  if (digits < 0) {
    digits = -digits;
    alphabet = "0123456789ABCDEF";
  }
  if (digits > 8) digits = 8;
  char text[8];
  for (int32_t i = digits - 1; i >= 0; --i, bits >>= 4) text[i] = alphabet[bits & 15];
  lua_pushlstring(L, text, static_cast<size_t>(digits));
  return 1;
}

}  // namespace

void apply_lua_fixes(lua_State* L) {
  lua_pushcfunction(L, unpack_checked);
  lua_setglobal(L, "unpack");

  lua_getglobal(L, "bit");
  lua_pushcfunction(L, tohex_checked);
  lua_setfield(L, -2, "tohex");
  lua_pop(L, 1);

  lua_newtable(L);
  int slot = 1;
  for (const char* name : {kScriptChunkName, kFunctionChunkName, kErrorHandlerChunkName, kLoadChunkName}) {
    lua_pushstring(L, name);
    lua_rawseti(L, -2, slot++);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, kChunkNamesKey);
}

}  // namespace lawnkv::scripting
