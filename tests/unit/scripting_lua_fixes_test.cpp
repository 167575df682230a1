// The fixes to Debian's Lua libraries (scripting/lua_fixes.hpp): unpack and
// bit.tohex at the arguments that crashed them, and the chunk names the
// parser interns held by the registry through a full collection.

#include <doctest/doctest.h>

#include <string>

extern "C" {
#include <lauxlib.h>
}

#include "scripting/environment.hpp"
#include "scripting/interpreter.hpp"
#include "scripting/lua_fixes.hpp"

namespace lawnkv::scripting {
namespace {

// Runs code in the interpreter's globals (no sandbox proxy needed for
// these reads) and returns tostring() of its first result or the error.
std::string eval(Interpreter& in, const char* code) {
  lua_State* L = in.state();
  std::string out;
  if (luaL_loadstring(L, code) != 0 || lua_pcall(L, 0, 1, 0) != 0) {
    out = std::string("error: ") + lua_tostring(L, -1);
  } else {
    lua_getglobal(L, "tostring");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
    out = lua_tostring(L, -1);
  }
  lua_pop(L, 1);
  return out;
}

TEST_CASE("lua fixes: unpack counts in 64 bits") {
  Interpreter in(build_environment);
  CHECK(eval(in, "return unpack({}, 0, 2147483647)").find("too many results to unpack") != std::string::npos);
  CHECK(eval(in, "return unpack({}, -2147483648, 2147483647)").find("too many results to unpack") !=
        std::string::npos);
  CHECK(eval(in, "return select('#', unpack({1, 2, 3}, 2147483647, -2147483648))") == "0");
  CHECK(eval(in, "return select('#', unpack({1, 2, 3}, 2147483647, 2147483647))") == "1");
  CHECK(eval(in, "return table.concat({unpack({1, 2, 3})}, ',')") == "1,2,3");
  CHECK(eval(in, "return table.concat({unpack({1, 2, 3}, 2)}, ',')") == "2,3");
  CHECK(eval(in, "return select('#', unpack({}, -1, 1))") == "3");
}

TEST_CASE("lua fixes: bit.tohex reads a count of -2^31 as -(2^31 - 1)") {
  Interpreter in(build_environment);
  CHECK(eval(in, "return bit.tohex(65535, -2147483648)") == "0000FFFF");
  CHECK(eval(in, "return bit.tohex(65535, 2147483648)") == "0000FFFF");
  CHECK(eval(in, "return bit.tohex(65535)") == "0000ffff");
  CHECK(eval(in, "return bit.tohex(-1, -3)") == "FFF");
  CHECK(eval(in, "return bit.tohex(4294967296 + 17, 3)") == "011");
  CHECK(eval(in, "return bit.tohex(1, 0)") == "");
}

TEST_CASE("lua fixes: the chunk names the parser interns outlive a full collection") {
  Interpreter in(build_environment);
  lua_State* L = in.state();
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_getfield(L, LUA_REGISTRYINDEX, kChunkNamesKey);
  REQUIRE(lua_istable(L, -1));
  std::string names;
  for (int i = 1; i <= 4; ++i) {
    lua_rawgeti(L, -1, i);
    if (lua_isstring(L, -1)) names += std::string(lua_tostring(L, -1)) + " ";
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  CHECK(names == std::string(kScriptChunkName) + " " + kFunctionChunkName + " " + kErrorHandlerChunkName + " " +
                     kLoadChunkName + " ");
}

}  // namespace
}  // namespace lawnkv::scripting
