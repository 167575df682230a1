#include "scripting/functions.hpp"

extern "C" {
#include <lauxlib.h>
}

#include "core/ascii.hpp"
#include "core/clock.hpp"
#include "scripting/conversions.hpp"
#include "scripting/environment.hpp"
#include "scripting/function_dump.hpp"
#include "scripting/lua_fixes.hpp"
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
  if (Clock::steady_ns() - started < kLoadTimeoutMs * 1'000'000) return;
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

Functions::Functions() : lua_(std::make_unique<Interpreter>(build_environment, true)) {}

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

bool Functions::compile(std::string_view payload, Library* lib, std::string* error) {
  LibraryMeta meta;
  if (!parse_library_meta(payload, &meta, error)) return false;
  if (!valid_function_name(meta.name)) {
    *error = std::string(kBadNameError);
    return false;
  }
  if (!iequals(meta.engine, "lua")) {
    *error = "Engine '" + meta.engine + "' not found";
    return false;
  }
  *lib = Library{meta.name, std::string(payload), {}};
  lua_State* L = lua_->state();
  const std::string_view code = payload.substr(meta.code_start);
  if (luaL_loadbuffer(L, code.data(), code.size(), kFunctionChunkName) != 0) {
    *error = std::string("Error compiling function: ") + lua_tostring(L, -1);
    lua_pop(L, 1);
    return false;
  }
  set_script_env(L);
  use_library_api(L, true);
  lua_pushnumber(L, static_cast<lua_Number>(Clock::steady_ns()));
  lua_setfield(L, LUA_REGISTRYINDEX, "lawnkv.load_started");
  lua_sethook(L, load_hook, LUA_MASKCOUNT, 100000);
  lua_->loading = lib;
  lua_->limit_active = true;
  const int status = lua_pcall(L, 0, 0, 0);
  lua_->limit_active = false;
  lua_->loading = nullptr;
  lua_sethook(L, nullptr, 0, 0);
  use_library_api(L, false);
  if (status != 0) {
    *error = "Error registering functions: " + error_message(L);
  } else if (lib->functions.empty()) {
    *error = "No functions registered";
  } else {
    return true;
  }
  release(*lib);
  return false;
}

std::string Functions::collision(const Library& lib) const {
  for (const auto& entry : lib.functions) {
    if (by_function_.contains(entry.first)) return "Function " + entry.first + " already exists";
  }
  return {};
}

bool Functions::load(std::string_view payload, bool replace, std::string* name, std::string* error) {
  LibraryMeta meta;
  std::string why;
  if (parse_library_meta(payload, &meta, &why) && valid_function_name(meta.name) && iequals(meta.engine, "lua") &&
      libraries_.contains(meta.name) && !replace) {
    *error = "ERR Library '" + meta.name + "' already exists";
    return false;
  }
  // The old library stays out of the name index while the new one loads,
  // and comes back if it fails.
  auto old = libraries_.end();
  if (why.empty() && replace) old = libraries_.find(meta.name);
  if (old != libraries_.end()) unlink(old->second);
  Library lib;
  if (!compile(payload, &lib, &why) || !(why = collision(lib)).empty()) {
    release(lib);
    if (old != libraries_.end()) link(old->second);
    *error = "ERR " + why;
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

std::string Functions::dump() const {
  std::vector<std::string_view> codes;
  for (const auto& entry : libraries_) codes.push_back(entry.second.code);
  return dump_libraries(codes);
}

bool Functions::restore(std::string_view payload, RestorePolicy policy, std::string* error) {
  std::vector<std::string> codes;
  if (!undump_libraries(payload, &codes, error)) {
    *error = "ERR " + *error;
    return false;
  }
  // Each library compiles as FUNCTION LOAD would into an empty set (so two
  // of one name, or one function twice, fail), then joins the current ones.
  std::map<std::string, Library> restored;
  std::map<std::string, std::string, std::less<>> names;
  auto drop_all = [&] {
    for (auto& entry : restored) release(entry.second);
  };
  for (const std::string& code : codes) {
    Library lib;
    std::string why;
    if (!compile(code, &lib, &why)) {
      drop_all();
      *error = "ERR " + why;
      return false;
    }
    if (restored.contains(lib.name)) why = "Library '" + lib.name + "' already exists";
    for (const auto& entry : lib.functions) {
      if (why.empty() && names.contains(entry.first)) why = "Function " + entry.first + " already exists";
    }
    if (!why.empty()) {
      release(lib);
      drop_all();
      *error = "ERR " + why;
      return false;
    }
    for (const auto& entry : lib.functions) names.emplace(entry.first, lib.name);
    std::string name = lib.name;
    restored.emplace(std::move(name), std::move(lib));
  }
  if (policy == RestorePolicy::kFlush) {
    for (auto& entry : libraries_) release(entry.second);
    libraries_ = std::move(restored);
    by_function_ = std::move(names);
    return true;
  }
  // APPEND refuses a library that exists; REPLACE drops it first (and
  // brings it back if a function name still collides).
  std::vector<std::string> replaced;
  for (const auto& entry : restored) {
    auto it = libraries_.find(entry.first);
    if (it == libraries_.end()) continue;
    if (policy == RestorePolicy::kAppend) {
      for (const std::string& r : replaced) link(libraries_.at(r));
      drop_all();
      *error = "ERR Library " + entry.first + " already exists";
      return false;
    }
    unlink(it->second);
    replaced.push_back(entry.first);
  }
  for (const auto& entry : restored) {
    if (std::string why = collision(entry.second); !why.empty()) {
      for (const std::string& r : replaced) link(libraries_.at(r));
      drop_all();
      *error = "ERR " + why;
      return false;
    }
  }
  for (const std::string& r : replaced) {
    release(libraries_.at(r));
    libraries_.erase(r);
  }
  for (auto& entry : restored) {
    link(entry.second);
    std::string name = entry.first;
    libraries_.emplace(std::move(name), std::move(entry.second));
  }
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
  lua_ = std::make_unique<Interpreter>(build_environment, true);
}

}  // namespace lawnkv::scripting
