#include "resp_encode.hpp"

namespace lawnkv::test {

namespace {

template <class Range>
std::string encode(const Range& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (std::string_view arg : argv) {
    out += "$";
    out += std::to_string(arg.size());
    out += "\r\n";
    out += arg;
    out += "\r\n";
  }
  return out;
}

}  // namespace

std::string encode_command(std::span<const std::string> argv) { return encode(argv); }

std::string encode_command(std::initializer_list<std::string_view> argv) { return encode(argv); }

}  // namespace lawnkv::test
