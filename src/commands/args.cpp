#include "commands/args.hpp"

#include "commands/errors.hpp"
#include "core/numbers.hpp"

namespace lawnkv {

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

bool db_index_or_reply(Call& call, std::string_view arg, int* out) {
  long long id;
  if (!integer_or_reply(call, arg, &id)) return false;
  if (id < 0 || id >= call.server.keyspace.databases()) {
    call.error(err::kDbIndex);
    return false;
  }
  *out = static_cast<int>(id);
  return true;
}

}  // namespace lawnkv
