#pragma once
// Runs Lua snippets against the struct and cmsgpack libraries
// (src/scripting/lib_struct.hpp, lib_cmsgpack.hpp) as redis-server runs an
// EVAL body: chunk name "@user_script", so errors read "user_script:1: ...".
//
// Every snippet runs after kLuaLibsPrelude on the same line, and the
// expectations in the tests are what redis-server 7.0.15 answered to
// `EVAL "<prelude> <snippet>" 0`, its "ERR " and " script: ..." around an
// error taken off. The prelude only defines locals, so it runs unchanged
// inside Redis's sandbox:
//   hex(s)     the bytes of s as lowercase hex
//   show(v)    numbers as %.17g, strings quoted with \ddd for other than
//              printable ASCII, tables as {k=v,...} sorted, else tostring
//   all(...)   show() of every argument, space separated

#include <lua.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "scripting/lib_cmsgpack.hpp"
#include "scripting/lib_struct.hpp"

namespace lawnkv::test {

inline constexpr const char* kLuaLibsPrelude =
    "local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', "
    "string.byte(c)) end)) end local function show(v) local t = type(v) if t == 'number' then return "
    "string.format('%.17g', v) elseif t == 'string' then return \"'\" .. string.gsub(v, '[^%w%p ]', "
    "function(c) return string.format('\\\\%d', string.byte(c)) end) .. \"'\" elseif t == 'table' then "
    "local ks = {} for k in pairs(v) do ks[#ks + 1] = k end local parts = {} for i = 1, #ks do parts[i] "
    "= show(ks[i]) .. '=' .. show(v[ks[i]]) end table.sort(parts) return '{' .. table.concat(parts, "
    "',') .. '}' else return tostring(v) end end local function all(...) local r = {} for i = 1, "
    "select('#', ...) do r[i] = show((select(i, ...))) end return table.concat(r, ' ') end";

// A Lua state with the standard libraries, struct and cmsgpack, each opened
// the way Redis opens them (lua_call with the library's name).
class LuaLibsState {
 public:
  explicit LuaLibsState(lua_State* L = luaL_newstate()) : L_(L) {
    luaL_openlibs(L_);
    open(lawnkv::scripting::open_struct, "struct");
    open(lawnkv::scripting::open_cmsgpack, "cmsgpack");
  }
  ~LuaLibsState() { lua_close(L_); }
  LuaLibsState(const LuaLibsState&) = delete;
  LuaLibsState& operator=(const LuaLibsState&) = delete;

  lua_State* get() const { return L_; }

  // The snippet's first result as redis-server's reply would show it: "$"
  // and the bytes of a string, ":" and the integer of a number (Redis
  // truncates), "nil", or "error: " and the Lua error message.
  std::string run(const std::string& snippet) {
    std::string code = std::string(kLuaLibsPrelude) + " " + snippet;
    std::string out;
    if (luaL_loadbuffer(L_, code.data(), code.size(), "@user_script") != 0 || lua_pcall(L_, 0, 1, 0) != 0) {
      out = std::string("error: ") + lua_tostring(L_, -1);
    } else if (lua_type(L_, -1) == LUA_TSTRING) {
      size_t len;
      const char* s = lua_tolstring(L_, -1, &len);
      out = "$" + std::string(s, len);
    } else if (lua_type(L_, -1) == LUA_TNUMBER) {
      out = ":" + std::to_string(static_cast<long long>(lua_tonumber(L_, -1)));
    } else {
      out = "nil";
    }
    lua_settop(L_, 0);
    return out;
  }

 private:
  void open(lua_CFunction f, const char* name) {
    lua_pushcfunction(L_, f);
    lua_pushstring(L_, name);
    lua_call(L_, 1, 0);
  }

  lua_State* L_;
};

// A Lua allocator that counts the bytes in use and refuses to grow past
// `limit`: lua_newstate(MemoryBudget::alloc, &budget) runs a state whose
// allocations can be made to fail (Lua raises "not enough memory").
struct MemoryBudget {
  size_t used = 0;
  size_t limit = SIZE_MAX;

  static void* alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
    auto* b = static_cast<MemoryBudget*>(ud);
    if (nsize == 0) {
      std::free(ptr);
      b->used -= osize;
      return nullptr;
    }
    if (nsize > osize && b->used - osize + nsize > b->limit) return nullptr;
    void* grown = std::realloc(ptr, nsize);
    if (grown == nullptr) return nullptr;
    b->used = b->used - osize + nsize;
    return grown;
  }
};

// One snippet and redis-server 7.0.15's answer to it.
struct LuaCase {
  const char* snippet;
  const char* expected;
};

}  // namespace lawnkv::test
