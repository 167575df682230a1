#include "scripting/functions.hpp"

extern "C" {
#include <lauxlib.h>
}

#include "core/ascii.hpp"
#include "core/clock.hpp"
#include "scripting/conversions.hpp"
#include "scripting/sandbox.hpp"

namespace lawnkv::scripting {

namespace {

constexpr int64_t kLoadTimeoutMs = 500;  // Redis's LOAD_TIMEOUT_MS

// FUNCTION LOAD's count hook: a library's top level only registers
// functions, so past 500 ms it is stopped (every line from then on).
void load_hook(lua_State* L, lua_Debug*) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lawnkv.load_started");
  const int64_t started = static_cast<int64_t>(lua_tonumber(L, -1));
  lua_pop(L, 1);
  if (Clock::wall_ns() - started < kLoadTimeoutMs * 1'000'000) return;
  lua_sethook(L, load_hook, LUA_MASKLINE, 0);
  {
    HeapGuard guard(Interpreter::of(L));
    push_error_table(L, "FUNCTION LOAD timeout");
  }
  lua_error(L);
}

// The message of the error on top (a table's err, or a string as "ERR ...").
std::string error_message(lua_State* L) {
  std::string msg;
  if (lua_isstring(L, -1)) {
    msg = std::string("ERR ") + lua_tostring(L, -1);
  } else if (lua_istable(L, -1)) {
    lua_pushliteral(L, "err");
    lua_rawget(L, -2);
    if (lua_isstring(L, -1)) msg = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return msg;
}

}  // namespace

Functions::Functions() : lua_(std::make_unique<Interpreter>(true)) {}

const FunctionInfo* Functions::find(std::string_view function) const {
  auto it = by_function_.find(function);
  if (it == by_function_.end()) return nullptr;
  const Library& lib = libraries_.at(it->second);
  return &lib.functions.at(std::string(function));
}

size_t Functions::libraries_bytes() const {
  size_t n = 0;
  for (const auto& [name, lib] : libraries_) {
    n += name.size() + lib.code.size();
    for (const auto& entry : lib.functions) {
      n += entry.first.size() + (entry.second.description ? entry.second.description->size() : 0);
    }
  }
  return n;
}

void Functions::unlink(const Library& lib) {
  for (const auto& entry : lib.functions) by_function_.erase(entry.first);
}

void Functions::link(const Library& lib) {
  for (const auto& entry : lib.functions) by_function_.emplace(entry.first, lib.name);
}

void Functions::release(Library& lib) {
  for (auto& entry : lib.functions) luaL_unref(lua_->state(), LUA_REGISTRYINDEX, entry.second.callback);
  lib.functions.clear();
}

bool Functions::load(std::string_view payload, bool replace, std::string* name, std::string* error) {
  LibraryMeta meta;
  if (!parse_library_meta(payload, &meta, error)) {
    *error = "ERR " + *error;
    return false;
  }
  if (!valid_function_name(meta.name)) {
    *error = "ERR " + std::string(kBadNameError);
    return false;
  }
  if (!iequals(meta.engine, "lua")) {
    *error = "ERR Engine '" + meta.engine + "' not found";
    return false;
  }
  auto old = libraries_.find(meta.name);
  if (old != libraries_.end() && !replace) {
    *error = "ERR Library '" + meta.name + "' already exists";
    return false;
  }
  // The old library stays out of the name index while the new one loads,
  // and comes back if it fails.
  if (old != libraries_.end()) unlink(old->second);
  Library lib{meta.name, std::string(payload), {}};
  lua_State* L = lua_->state();
  const std::string_view code = payload.substr(meta.code_start);
  std::string failure;
  if (luaL_loadbuffer(L, code.data(), code.size(), "@user_function") != 0) {
    failure = std::string("ERR Error compiling function: ") + lua_tostring(L, -1);
    lua_pop(L, 1);
  } else {
    set_script_env(L);
    use_library_api(L, true);
    lua_pushnumber(L, static_cast<lua_Number>(Clock::wall_ns()));
    lua_setfield(L, LUA_REGISTRYINDEX, "lawnkv.load_started");
    lua_sethook(L, load_hook, LUA_MASKCOUNT, 100000);
    lua_->loading = &lib;
    lua_->limit_active = true;
    const int status = lua_pcall(L, 0, 0, 0);
    lua_->limit_active = false;
    lua_->loading = nullptr;
    lua_sethook(L, nullptr, 0, 0);
    use_library_api(L, false);
    if (status != 0) failure = "ERR Error registering functions: " + error_message(L);
  }
  if (failure.empty() && lib.functions.empty()) failure = "ERR No functions registered";
  if (failure.empty()) {
    for (const auto& entry : lib.functions) {
      if (by_function_.contains(entry.first)) {
        failure = "ERR Function " + entry.first + " already exists";
        break;
      }
    }
  }
  if (!failure.empty()) {
    release(lib);
    if (old != libraries_.end()) link(old->second);
    *error = std::move(failure);
    return false;
  }
  if (old != libraries_.end()) {
    release(old->second);
    libraries_.erase(old);
  }
  *name = lib.name;
  link(lib);
  libraries_.emplace(lib.name, std::move(lib));
  return true;
}

bool Functions::remove(std::string_view library) {
  auto it = libraries_.find(std::string(library));
  if (it == libraries_.end()) return false;
  unlink(it->second);
  release(it->second);
  libraries_.erase(it);
  return true;
}

void Functions::flush() {
  libraries_.clear();
  by_function_.clear();
  lua_.reset();
  lua_ = std::make_unique<Interpreter>(true);
}

}  // namespace lawnkv::scripting
