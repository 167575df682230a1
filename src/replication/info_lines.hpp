#pragma once
// One "name:value\r\n" line of INFO replication, as the primary's and the
// replica's halves both write them.

#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::replication {

inline void info_line(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out += ':';
  out.append(value);
  out += "\r\n";
}

inline void info_line(std::string& out, std::string_view name, int64_t value) {
  info_line(out, name, std::to_string(value));
}

}  // namespace lawnkv::replication
