#include "scripting/shebang.hpp"

#include "core/ascii.hpp"
#include "core/split_args.hpp"

namespace lawnkv::scripting {

uint32_t script_flag_named(std::string_view name, bool nocase) {
  for (const FlagName& f : kFlagNames) {
    if (nocase ? iequals(f.name, name) : f.name == name) return f.flag;
  }
  return 0;
}

bool parse_shebang(std::string_view body, Shebang* out, std::string* error) {
  *out = Shebang{};
  if (body.substr(0, 2) != "#!") return true;
  const size_t end = body.find('\n');
  if (end == std::string_view::npos) {
    *error = "Invalid script shebang";
    return false;
  }
  out->length = end;
  const auto parts = split_args(body.substr(0, end));
  if (!parts || parts->empty()) {
    *error = "Invalid engine in script shebang";
    return false;
  }
  if ((*parts)[0] != "#!lua") {
    *error = "Unexpected engine in script shebang: " + (*parts)[0];
    return false;
  }
  out->flags &= ~kCompatMode;
  for (size_t i = 1; i < parts->size(); ++i) {
    std::string_view part = (*parts)[i];
    if (part.substr(0, 6) != "flags=") {
      *error = "Unknown lua shebang option: " + std::string(part);
      return false;
    }
    part.remove_prefix(6);
    // Comma separated; "flags=" alone declares none, an empty item is an
    // unknown flag (as sdssplitlen splits).
    while (!part.empty()) {
      const size_t comma = part.find(',');
      const std::string_view name = part.substr(0, comma);
      const uint32_t flag = script_flag_named(name);
      out->flags |= flag;
      if (flag == 0) {
        *error = "Unexpected flag in script shebang: " + std::string(name);
        return false;
      }
      if (comma == std::string_view::npos) break;
      part.remove_prefix(comma + 1);
      if (part.empty()) {
        *error = "Unexpected flag in script shebang: ";
        return false;
      }
    }
  }
  return true;
}

}  // namespace lawnkv::scripting
