#include "escape.hpp"

namespace lawnkv::test {

std::string escape_bytes(std::string_view bytes, size_t max_bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size() && i < max_bytes; ++i) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    switch (c) {
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        }
    }
  }
  out += '"';
  if (bytes.size() > max_bytes) out += "...(" + std::to_string(bytes.size()) + " bytes)";
  return out;
}

}  // namespace lawnkv::test
