#include "resp/peek.hpp"

#include <cstdint>

namespace lawnkv::resp {

namespace {

// Reads "<prefix><digits>\r\n" at pos; false if that is not what is there.
bool read_header(std::string_view buf, size_t* pos, char prefix, uint64_t* value) {
  size_t p = *pos;
  if (p >= buf.size() || buf[p] != prefix) return false;
  ++p;
  uint64_t v = 0;
  const size_t digits_start = p;
  while (p < buf.size() && buf[p] >= '0' && buf[p] <= '9' && p - digits_start < 18) v = v * 10 + uint64_t(buf[p++] - '0');
  if (p == digits_start || p + 1 >= buf.size() || buf[p] != '\r' || buf[p + 1] != '\n') return false;
  *pos = p + 2;
  *value = v;
  return true;
}

}  // namespace

size_t peek_request(std::string_view buf, std::string_view* second_arg) {
  *second_arg = {};
  size_t pos = 0;
  uint64_t argc;
  if (!read_header(buf, &pos, '*', &argc)) return 0;
  for (uint64_t i = 0; i < argc; ++i) {
    uint64_t len;
    if (!read_header(buf, &pos, '$', &len)) return 0;
    if (len > buf.size() || buf.size() - pos < len + 2) return 0;
    if (i == 1) *second_arg = buf.substr(pos, len);
    pos += len + 2;
  }
  return pos;
}

}  // namespace lawnkv::resp
