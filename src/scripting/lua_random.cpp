#include "scripting/lua_random.hpp"

#include <cmath>
#include <cstdint>

extern "C" {
#include <lauxlib.h>
}

#include "scripting/interpreter.hpp"

namespace lawnkv::scripting {

namespace {

constexpr uint64_t kMask48 = (uint64_t{1} << 48) - 1;
constexpr int32_t kRandMax = INT32_MAX;  // Redis's REDIS_LRAND48_MAX

// lrand48: the next state, and its top 31 bits.
int32_t next_random(uint64_t& x) {
  x = (0x5DEECE66Dull * x + 0xB) & kMask48;
  return static_cast<int32_t>(x >> 17);
}

// Lua 5.1's math.random over Redis's generator.
int math_random(lua_State* L) {
  uint64_t& state = Interpreter::of(L).random_state;
  const lua_Number r = static_cast<lua_Number>(next_random(state) % kRandMax) / static_cast<lua_Number>(kRandMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int math_randomseed(lua_State* L) {
  const uint32_t seed = static_cast<uint32_t>(luaL_checkint(L, 1));
  Interpreter::of(L).random_state = (uint64_t{seed} << 16) | 0x330E;
  return 0;
}

}  // namespace

void replace_math_random(lua_State* L) {
  lua_getglobal(L, "math");
  lua_pushcfunction(L, math_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, math_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
}

}  // namespace lawnkv::scripting
