#include "resp/peek.hpp"

#include <cstdint>

#include "resp/number_line.hpp"

namespace lawnkv::resp {

size_t peek_request(std::string_view buf, std::string_view* second_arg) {
  *second_arg = {};
  const char* const begin = buf.data();
  const char* const end = begin + buf.size();
  int64_t argc = 0;
  if (buf.empty() || *begin != '*') return 0;
  const char* p = fast_number_line(begin + 1, end, &argc);
  if (p == nullptr) return 0;
  for (int64_t i = 0; i < argc; ++i) {
    int64_t len = 0;
    if (p == end || *p != '$') return 0;
    p = fast_number_line(p + 1, end, &len);
    if (p == nullptr || end - p < len + 2) return 0;
    if (i == 1) *second_arg = std::string_view(p, static_cast<size_t>(len));
    p += len + 2;
  }
  return static_cast<size_t>(p - begin);
}

}  // namespace lawnkv::resp
