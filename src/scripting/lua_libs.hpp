#pragma once
// The libraries Redis scripts expect that Debian does not package: struct
// (pack, unpack, size) and cmsgpack (pack, unpack), written in this room
// (lib_struct.hpp, lib_cmsgpack.hpp). Each opener registers its global
// table; the interpreter calls this after base, table, string, math,
// cjson and bit, before the sandbox seals the globals.

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

void open_extra_libraries(lua_State* L);

}  // namespace lawnkv::scripting
