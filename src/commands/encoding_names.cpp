#include "commands/encoding_names.hpp"

#include "core/numbers.hpp"

namespace lawnkv {

namespace {
constexpr size_t kEmbstrMax = 44;
}  // namespace

bool int_encoded(const store::Entry& e, long long* v) {
  if (e.type() != store::Type::kString || e.raw_encoding() || e.text_encoding()) return false;
  const std::string_view s = e.str();
  return s.size() <= 20 && string_to_ll(s, v);
}

std::string_view encoding_name(const store::Entry& e) {
  long long v;
  if (int_encoded(e, &v)) return "int";
  if (e.type() != store::Type::kString) return e.obj()->encoding();
  return !e.raw_encoding() && e.str().size() <= kEmbstrMax ? "embstr" : "raw";
}

}  // namespace lawnkv
