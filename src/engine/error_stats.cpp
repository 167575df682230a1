#include "engine/error_stats.hpp"

namespace lawnkv {

void ErrorStats::on_error_reply(std::string_view text) {
  ++total_;
  // Redis looks for the space in the first 32 bytes of "-CODE ...".
  const size_t space = text.substr(0, 31).find(' ');
  const std::string_view code = space == std::string_view::npos ? std::string_view("ERR") : text.substr(0, space);
  auto it = by_code_.find(code);
  if (it == by_code_.end()) it = by_code_.emplace(std::string(code), 0).first;
  ++it->second;
}

}  // namespace lawnkv
