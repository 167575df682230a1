// The interpreter and its sandbox (scripting/interpreter.hpp, sandbox.hpp)
// without a server: what a script sees, what it cannot change, that no run
// can leave anything behind for the next, that bytecode never loads, and
// the heap ceiling.

#include <doctest/doctest.h>

#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
}

#include "scripting/environment.hpp"
#include "scripting/interpreter.hpp"
#include "scripting/sandbox.hpp"

namespace lawnkv::scripting {
namespace {

// Runs code as a script (the scripts' environment, or with cached the one
// a cached script gets: the direct environment when it assigns no global;
// Redis's error handler) and returns tostring() of its result, or
// "error: <err field>".
std::string run(Interpreter& in, const std::string& code, bool cached = false) {
  lua_State* L = in.state();
  lua_getfield(L, LUA_REGISTRYINDEX, kErrorHandlerKey);
  if (luaL_loadbuffer(L, code.data(), code.size(), "@user_script") != 0) {
    std::string e = lua_tostring(L, -1);
    lua_pop(L, 2);
    return "compile error: " + e;
  }
  if (cached) {
    set_cached_script_env(L);
  } else {
    set_script_env(L);
  }
  in.limit_active = true;
  const int status = lua_pcall(L, 0, 1, -2);
  in.limit_active = false;
  std::string out;
  if (status != 0) {
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      out = std::string("error: ") + (lua_isstring(L, -1) ? lua_tostring(L, -1) : "?");
      lua_pop(L, 1);
    } else {
      out = std::string("error: ") + (lua_isstring(L, -1) ? lua_tostring(L, -1) : "?");
    }
  } else {
    lua_getglobal(L, "tostring");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
    out = lua_tostring(L, -1);
  }
  lua_pop(L, 2);
  CHECK(lua_gettop(L) == 0);
  return out;
}

TEST_CASE("sandbox: the globals are Redis 7.0's") {
  Interpreter in(build_environment);
  for (const bool cached : {false, true}) {
    CAPTURE(cached);
    CHECK(run(in, "local t = {} for k in pairs(_G) do t[#t + 1] = k end table.sort(t) return table.concat(t, ' ')",
              cached) ==
          "_G _VERSION __redis__err__handler assert bit cjson cmsgpack collectgarbage coroutine error gcinfo "
          "getmetatable ipairs load loadstring math next pairs pcall rawequal rawget rawset redis select "
          "setmetatable string struct table tonumber tostring type unpack xpcall");
    for (const char* name : {"os", "io", "debug", "print", "require", "module", "dofile", "loadfile", "getfenv",
                             "setfenv", "newproxy", "package"}) {
      CAPTURE(name);
      CHECK(run(in, std::string("return ") + name, cached) ==
            std::string("error: ERR user_script:1: Script attempted to access nonexistent global variable '") +
                name + "'");
    }
    // Every global reads as the same value through either environment.
    CHECK(run(in, "return rawequal(redis, _G.redis) and rawequal(string, _G.string) and rawequal(_G, _G._G) and "
                  "rawequal(pcall, _G.pcall) and rawequal(__redis__err__handler, _G.__redis__err__handler)",
              cached) == "true");
  }
}

TEST_CASE("sandbox: no table a script reaches can be changed") {
  Interpreter in(build_environment);
  for (const bool cached : {false, true}) {
    CAPTURE(cached);
    for (const char* code : {"x = 1", "_G.x = 1", "redis.call = nil", "string.upper = nil", "math.pi = 3",
                             "table.insert = nil", "cjson.encode = nil", "bit.band = nil", "struct.pack = nil",
                             "cmsgpack.pack = nil", "coroutine.wrap = nil", "getmetatable('').__index = {}",
                             "getmetatable('').__index.upper = nil", "getmetatable(_G).__index = nil",
                             "coroutine.wrap(function() y = 1 end)()"}) {
      const std::string got = run(in, code, cached);
      CAPTURE(std::string(code));
      CAPTURE(got);
      CHECK(got.find("user_script:1: Attempt to modify a readonly table") != std::string::npos);
    }
    for (const char* code : {"rawset(_G, 'x', 1)", "rawset(redis, 'call', 1)", "setmetatable(_G, nil)",
                             "setmetatable(string, {})"}) {
      CAPTURE(code);
      CHECK(run(in, code, cached) == "error: ERR Attempt to modify a readonly table");
    }
    // Local tables stay ordinary.
    CHECK(run(in, "local t = setmetatable({}, {}) rawset(t, 'a', 1) t.b = 2 return t.a + t.b", cached) == "3");
    // Nothing survived: every library is as it was, no global was added.
    CHECK(run(in, "return type(string.upper) .. type(redis.call) .. tostring(math.pi)", cached) ==
          "functionfunction3.1415926535898");
    CHECK(run(in, "return rawget(_G, 'x') == nil and rawget(_G, 'y') == nil", cached) == "true");
  }
}

TEST_CASE("sandbox: loadstring and load compile in the scripts' environment and never load bytecode") {
  Interpreter in(build_environment);
  CHECK(run(in, "return loadstring('return 1 + 1')()") == "2");
  CHECK(run(in, "loadstring('z = 1')()").rfind("error: ERR [string \"z = 1\"]:1: Attempt to modify", 0) == 0);
  CHECK(run(in, "local f, e = loadstring(string.dump(function() return 1 end)) return e") ==
        "[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'");
  CHECK(run(in, "local s = string.dump(function() return 1 end) local f, e = load(function() local r = s s = nil "
                "return r end) return e") == "(load):1: unexpected symbol near 'char(27)'");
}

TEST_CASE("sandbox: the heap ceiling ends a script, not the process; outside scripts it does not apply") {
  Interpreter in(build_environment);
  in.heap_limit = 8 << 20;
  CHECK(run(in, "return #string.rep('x', 16 * 1024 * 1024)") == "error: not enough memory");
  CHECK(run(in, "local t = {} for i = 1, 1e7 do t[i] = i end return #t") == "error: not enough memory");
  CHECK(run(in, "return #string.rep('x', 1024)") == "1024");
  lua_gc(in.state(), LUA_GCCOLLECT, 0);
  CHECK(in.used_bytes() < (1u << 20));
  // Outside a script (limit_active unset) the same allocation succeeds.
  lua_State* L = in.state();
  std::string big(16 << 20, 'y');
  lua_pushlstring(L, big.data(), big.size());
  CHECK(in.used_bytes() > (16u << 20));
  lua_pop(L, 1);
}

TEST_CASE("interpreter: small blocks Lua frees serve its next ones of their size class, whole") {
  Interpreter in(build_environment);
  lua_State* L = in.state();
  void* ud = nullptr;
  const lua_Alloc alloc = lua_getallocf(L, &ud);
  const size_t before = in.used_bytes();
  void* a = alloc(ud, nullptr, 0, 40);
  CHECK(in.used_bytes() == before + 40);
  CHECK(alloc(ud, a, 40, 0) == nullptr);
  CHECK(in.used_bytes() == before);
  // A request of the same 16-byte class (33..48) gets that block back, and
  // all 48 bytes of it are the caller's (ASan would see a shorter block).
  void* b = alloc(ud, nullptr, 0, 33);
  CHECK(b == a);
  std::memset(b, 'x', 48);
  // Grown within the class and past it, its bytes stay.
  b = alloc(ud, b, 33, 48);
  b = alloc(ud, b, 48, 300);
  REQUIRE(b != nullptr);
  CHECK(static_cast<const char*>(b)[47] == 'x');
  std::memset(b, 'y', 300);
  // Shrunk back to a small class, it is that class's full size again.
  b = alloc(ud, b, 300, 20);
  std::memset(b, 'z', 32);
  alloc(ud, b, 20, 0);
  // Zero-sized frees of nothing (Lua frees new tables' empty arrays so).
  CHECK(alloc(ud, nullptr, 0, 0) == nullptr);
  CHECK(in.used_bytes() == before);
  // Scripts that churn small objects leave the accounting where it was.
  CHECK(run(in, "local n = 0 for i = 1, 20000 do local t = {i, tostring(i)} n = n + #t end return n") == "40000");
  lua_gc(L, LUA_GCCOLLECT, 0);
  CHECK(in.used_bytes() < before + 4096);
}

}  // namespace
}  // namespace lawnkv::scripting
