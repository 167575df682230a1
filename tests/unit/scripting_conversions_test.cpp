// The two conversion tables of scripting/conversions.hpp, row by row: a
// reply's bytes -> the Lua value a script sees, and a Lua value -> the
// reply's bytes, in RESP2 and RESP3 for both the script and the client.

#include <doctest/doctest.h>

#include <string>

extern "C" {
#include <lauxlib.h>
#include <lualib.h>
}

#include "scripting/conversions.hpp"

namespace lawnkv::scripting {
namespace {

// A bare Lua state (no sandbox) for the conversion functions alone.
struct Lua {
  lua_State* L = luaL_newstate();
  Lua() { luaL_openlibs(L); }
  ~Lua() { lua_close(L); }

  // The reply's Lua value, described by the Lua function describe() below.
  std::string from_reply(const std::string& reply) {
    const size_t used = push_reply(L, reply);
    CHECK(used == reply.size());
    return describe_top();
  }
  // The reply bytes of a Lua expression, for a client of client_proto and
  // a script of script_proto.
  std::string to_reply(const std::string& expr, int client_proto = 2, int script_proto = 2) {
    REQUIRE(luaL_dostring(L, ("return " + expr).c_str()) == 0);
    std::string out;
    resp::Writer w(out, client_proto);
    write_value(L, w, script_proto);
    CHECK(lua_gettop(L) == 0);
    return out;
  }
  std::string describe_top() {
    static const char kDescribe[] =
        "local function d(v)\n"
        "  if type(v) ~= 'table' then return type(v) .. ':' .. tostring(v) end\n"
        "  local keys = {}\n"
        "  for k in pairs(v) do keys[#keys + 1] = k end\n"
        "  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)\n"
        "  local parts = {}\n"
        "  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. '=' .. d(v[k]) end\n"
        "  return '{' .. table.concat(parts, ',') .. '}'\n"
        "end\n"
        "return d(...)";
    REQUIRE(luaL_loadstring(L, kDescribe) == 0);
    lua_insert(L, -2);
    REQUIRE(lua_pcall(L, 1, 1, 0) == 0);
    size_t len = 0;
    const char* p = lua_tolstring(L, -1, &len);
    std::string s(p, len);
    lua_pop(L, 1);
    CHECK(lua_gettop(L) == 0);
    return s;
  }
};

TEST_CASE("scripting conversions: RESP2 replies -> Lua") {
  Lua lua;
  CHECK(lua.from_reply(":42\r\n") == "number:42");
  CHECK(lua.from_reply(":-7\r\n") == "number:-7");
  CHECK(lua.from_reply("$3\r\nabc\r\n") == "string:abc");
  CHECK(lua.from_reply("$0\r\n\r\n") == "string:");
  CHECK(lua.from_reply(std::string("$3\r\na\0b\r\n", 9)) == std::string("string:a\0b", 10));
  CHECK(lua.from_reply("$-1\r\n") == "boolean:false");
  CHECK(lua.from_reply("*-1\r\n") == "boolean:false");
  CHECK(lua.from_reply("+OK\r\n") == "{ok=string:OK}");
  CHECK(lua.from_reply("-ERR bad thing\r\n") == "{err=string:ERR bad thing}");
  CHECK(lua.from_reply("-WRONGTYPE Operation\r\n") == "{err=string:WRONGTYPE Operation}");
  CHECK(lua.from_reply("-NOSPACE\r\n") == "{err=string:ERR NOSPACE}");
  CHECK(lua.from_reply("*0\r\n") == "{}");
  CHECK(lua.from_reply("*3\r\n:1\r\n$1\r\nx\r\n*1\r\n$-1\r\n") == "{1=number:1,2=string:x,3={1=boolean:false}}");
}

TEST_CASE("scripting conversions: RESP3 replies -> Lua") {
  Lua lua;
  CHECK(lua.from_reply("_\r\n") == "nil:nil");
  CHECK(lua.from_reply("#t\r\n") == "boolean:true");
  CHECK(lua.from_reply("#f\r\n") == "boolean:false");
  CHECK(lua.from_reply(",1.5\r\n") == "{double=number:1.5}");
  CHECK(lua.from_reply(",inf\r\n") == "{double=number:inf}");
  CHECK(lua.from_reply("(12345678901234567890\r\n") == "{big_number=string:12345678901234567890}");
  CHECK(lua.from_reply("=7\r\ntxt:abc\r\n") == "{verbatim_string={format=string:txt,string=string:abc}}");
  CHECK(lua.from_reply("%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n_\r\n") == "{map={a=number:1}}");
  CHECK(lua.from_reply("~2\r\n$1\r\nx\r\n$1\r\ny\r\n") == "{set={x=boolean:true,y=boolean:true}}");
  // A nil key (RESP3 null) is left out rather than raising in C++ code.
  CHECK(lua.from_reply("%1\r\n_\r\n:1\r\n") == "{map={}}");
  CHECK(lua.from_reply("*2\r\n_\r\n:2\r\n") == "{2=number:2}");
}

TEST_CASE("scripting conversions: Lua -> replies") {
  Lua lua;
  CHECK(lua.to_reply("'abc'") == "$3\r\nabc\r\n");
  CHECK(lua.to_reply("3.99") == ":3\r\n");
  CHECK(lua.to_reply("-3.99") == ":-3\r\n");
  CHECK(lua.to_reply("1e20") == ":-9223372036854775808\r\n");
  CHECK(lua.to_reply("0/0") == ":-9223372036854775808\r\n");
  CHECK(lua.to_reply("nil") == "$-1\r\n");
  CHECK(lua.to_reply("nil", 3) == "_\r\n");
  CHECK(lua.to_reply("print") == "$-1\r\n");
  CHECK(lua.to_reply("true") == ":1\r\n");
  CHECK(lua.to_reply("false") == "$-1\r\n");
  CHECK(lua.to_reply("false", 3) == "_\r\n");
  CHECK(lua.to_reply("true", 2, 3) == ":1\r\n");
  CHECK(lua.to_reply("false", 2, 3) == ":0\r\n");
  CHECK(lua.to_reply("true", 3, 3) == "#t\r\n");
  CHECK(lua.to_reply("false", 3, 3) == "#f\r\n");
  CHECK(lua.to_reply("{1, 2, nil, 3}") == "*2\r\n:1\r\n:2\r\n");
  CHECK(lua.to_reply("{}") == "*0\r\n");
  CHECK(lua.to_reply("{{'a'}, {}}") == "*2\r\n*1\r\n$1\r\na\r\n*0\r\n");
  CHECK(lua.to_reply("{err='ERR x'}") == "-ERR x\r\n");
  CHECK(lua.to_reply("{err='a\\r\\nb'}") == "-a  b\r\n");
  CHECK(lua.to_reply("{ok='fine'}") == "+fine\r\n");
  CHECK(lua.to_reply("{err='e', ok='o'}") == "-e\r\n");  // err is checked first
  CHECK(lua.to_reply("{ok=1}") == "*0\r\n");              // not a string: an array
  CHECK(lua.to_reply("{double=1.5}") == "$3\r\n1.5\r\n");
  CHECK(lua.to_reply("{double=1.5}", 3) == ",1.5\r\n");
  CHECK(lua.to_reply("{big_number='123'}", 3) == "(123\r\n");
  CHECK(lua.to_reply("{big_number='123'}") == "$3\r\n123\r\n");
  CHECK(lua.to_reply("{verbatim_string={format='txt', string='hi'}}", 3) == "=6\r\ntxt:hi\r\n");
  CHECK(lua.to_reply("{verbatim_string={format='txt', string='hi'}}") == "$2\r\nhi\r\n");
  CHECK(lua.to_reply("{verbatim_string={format='txt'}}") == "*0\r\n");
  CHECK(lua.to_reply("{map={a=1}}") == "*2\r\n$1\r\na\r\n:1\r\n");
  CHECK(lua.to_reply("{map={a=1}}", 3) == "%1\r\n$1\r\na\r\n:1\r\n");
  CHECK(lua.to_reply("{set={a=true}}", 3) == "~1\r\n$1\r\na\r\n");
  CHECK(lua.to_reply("{set={a=true}}") == "*1\r\n$1\r\na\r\n");
}

TEST_CASE("scripting conversions: a table nested past the Lua stack is an error, not a crash") {
  Lua lua;
  const std::string out = lua.to_reply("(function() local t = {} t[1] = t return t end)()");
  CHECK(out.find("-ERR reached lua stack limit\r\n") != std::string::npos);
}

TEST_CASE("scripting conversions: error tables keep a reply's code") {
  Lua lua;
  push_error_table(lua.L, "-WRONGTYPE Operation against a key\r\n");
  CHECK(lua.describe_top() == "{err=string:WRONGTYPE Operation against a key}");
  push_error_table(lua.L, "Unknown Redis command called from script");
  CHECK(lua.describe_top() == "{err=string:ERR Unknown Redis command called from script}");
}

}  // namespace
}  // namespace lawnkv::scripting
