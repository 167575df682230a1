#pragma once
// Fixes for bugs in the Lua libraries Debian packages (liblua5.1, LuaBitOp)
// that Redis fixed in its own copy of Lua, made from outside the libraries:
// a script must never crash the server.
// - unpack(t, i, j) computes j - i + 1 in int: with i = 0, j = 2^31 - 1 (or
//   any pair whose difference overflows) the check fails and Lua pushes
//   billions of values onto its stack (CVE-2025-46817). Replaced by a
//   version that computes the count in 64 bits; the error text is Lua's,
//   "too many results to unpack".
// - bit.tohex(x, n) negates n to get the digit count: -2^31 stays negative
//   and the digits overrun an 8-byte buffer (CVE-2024-31449). Replaced by a
//   version that reads n = -2^31 as -(2^31 - 1), as Redis's fix does.
// - luaY_parser interns the chunk name and leaves it unreferenced while it
//   parses, so a collection during parsing frees it (CVE-2025-49844). A
//   string Lua already holds is interned once: the chunk names below are
//   kept in the registry for the state's life, so the parser's name is
//   always one the collector cannot free. loadstring's own chunk names are
//   its arguments, on the stack while it compiles.

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

// The chunk names scripts, functions and the sandbox compile under.
inline constexpr char kScriptChunkName[] = "@user_script";
inline constexpr char kFunctionChunkName[] = "@user_function";
inline constexpr char kErrorHandlerChunkName[] = "@err_handler_def";
inline constexpr char kLoadChunkName[] = "=(load)";

// The registry field holding them (an array of the four strings).
inline constexpr char kChunkNamesKey[] = "lawnkv.chunk_names";

// Applies the fixes above to L's globals `unpack` and `bit` (opened
// before) and anchors the chunk names. Call before any chunk is compiled.
void apply_lua_fixes(lua_State* L);

}  // namespace lawnkv::scripting
