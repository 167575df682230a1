#include "engine/args.hpp"

#include <climits>

#include "core/numbers.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kIntRange = "ERR value is out of range, value must between -2147483648 and 2147483647";

}  // namespace

bool integer_or_reply(Call& call, std::string_view arg, long long* out, std::string_view msg) {
  if (string_to_ll(arg, out)) return true;
  call.error(msg.empty() ? err::kNotInteger : msg);
  return false;
}

bool long_double_or_reply(Call& call, std::string_view arg, long double* out) {
  if (string_to_ld(arg, out)) return true;
  call.error(err::kNotFloat);
  return false;
}

bool int_or_reply(Call& call, std::string_view arg, int* out, std::string_view msg) {
  long long v;
  if (!integer_or_reply(call, arg, &v, msg)) return false;
  if (v < INT_MIN || v > INT_MAX) {
    call.error(msg.empty() ? kIntRange : msg);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool db_index_or_reply(Call& call, std::string_view arg, int* out) {
  if (!int_or_reply(call, arg, out)) return false;
  if (*out >= 0 && *out < call.data.keyspace.databases()) return true;
  call.error(err::kDbIndex);
  return false;
}

}  // namespace lawnkv
