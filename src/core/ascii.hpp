#pragma once
// ASCII case rules for protocol words (command names, options, config
// directives): Redis compares them as strcasecmp does, byte by byte.

#include <string>
#include <string_view>

namespace lawnkv {

std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);

}  // namespace lawnkv
