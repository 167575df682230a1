#include "scripting/lua_libs.hpp"

namespace lawnkv::scripting {

// The hook for struct and cmsgpack: they land from their own branch as
// open_struct / open_cmsgpack (lib_struct.hpp, lib_cmsgpack.hpp).
void open_extra_libraries(lua_State*) {}

}  // namespace lawnkv::scripting
