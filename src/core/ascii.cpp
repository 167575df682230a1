#include "core/ascii.hpp"

namespace lawnkv {

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace lawnkv
