#include "scripting/function_library.hpp"

#include "core/ascii.hpp"
#include "core/split_args.hpp"

namespace lawnkv::scripting {

bool parse_library_meta(std::string_view payload, LibraryMeta* out, std::string* error) {
  if (payload.substr(0, 2) != "#!") {
    *error = "Missing library metadata";
    return false;
  }
  const size_t end = payload.find('\n');
  if (end == std::string_view::npos) {
    *error = "Invalid library metadata";
    return false;
  }
  const auto parts = split_args(payload.substr(0, end));
  if (!parts || parts->empty()) {
    *error = "Invalid library metadata";
    return false;
  }
  *out = LibraryMeta{};
  out->engine = (*parts)[0].substr(2);
  bool named = false;
  for (size_t i = 1; i < parts->size(); ++i) {
    const std::string& part = (*parts)[i];
    if (part.size() >= 5 && iequals(std::string_view(part).substr(0, 5), "name=")) {
      if (named) {
        *error = "Invalid metadata value, name argument was given multiple times";
        return false;
      }
      out->name = part.substr(5);
      named = true;
      continue;
    }
    *error = "Invalid metadata value given: " + part;
    return false;
  }
  if (!named) {
    *error = "Library name was not given";
    return false;
  }
  out->code_start = end;
  return true;
}

bool valid_function_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace lawnkv::scripting
