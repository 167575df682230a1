#include "scripting/lua_libs.hpp"

#include "scripting/lib_cmsgpack.hpp"
#include "scripting/lib_struct.hpp"

namespace lawnkv::scripting {

void open_extra_libraries(lua_State* L) {
  lua_pushcfunction(L, open_struct);
  lua_call(L, 0, 0);
  lua_pushcfunction(L, open_cmsgpack);
  lua_call(L, 0, 0);
}

}  // namespace lawnkv::scripting
