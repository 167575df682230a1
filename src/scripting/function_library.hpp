#pragma once
// FUNCTION libraries as Redis 7.0 keeps them (functions.c): a library is
// code with a `#!lua name=<name>` first line whose top level registers
// functions with redis.register_function; each function has a name unique
// across all libraries, optional description and flags (shebang.hpp's
// ScriptFlag, minus compatibility mode), and its compiled callback (a
// reference in the functions interpreter's registry).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace lawnkv::scripting {

struct FunctionInfo {
  std::string name;
  std::optional<std::string> description;
  uint32_t flags = 0;
  int callback = 0;  // luaL_ref in the functions interpreter
};

struct Library {
  std::string name;
  std::string code;  // the whole payload, metadata line included
  // Redis lists a library's functions in its dict's order; here by name.
  std::map<std::string, FunctionInfo> functions;
};

// The first line of a library: its engine ("lua") and name, and where the
// code the engine compiles starts (the newline, so line numbers stay).
struct LibraryMeta {
  std::string engine;
  std::string name;
  size_t code_start = 0;
};
// false with Redis's error text (without its code) when the metadata is
// missing or malformed.
bool parse_library_meta(std::string_view payload, LibraryMeta* out, std::string* error);

// Library and function names: letters, digits and '_', at least one.
bool valid_function_name(std::string_view name);
inline constexpr std::string_view kBadNameError =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

}  // namespace lawnkv::scripting
