#pragma once
// Whether a compiled chunk may assign a global variable: a scan of its
// bytecode, as lua_dump writes it for Lua 5.1, for the SETGLOBAL
// instruction, in the chunk and in every function nested in it. Assigning
// a global is the one way a function writes its environment, so a chunk
// without SETGLOBAL can run with an environment that holds the globals
// themselves rather than a read-only proxy of them (sandbox.hpp).

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

// For the Lua function on top of the stack (left there): true when its code
// or a nested function's contains SETGLOBAL, and also when its bytecode is
// not in the format this scan reads (a C function, another Lua build).
bool may_assign_globals(lua_State* L);

}  // namespace lawnkv::scripting
