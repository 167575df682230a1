#pragma once
// Argument parsing shared by the command families. Each *_or_reply function
// either stores the parsed value and returns true, or replies Redis's error
// (marking the call failed) and returns false: the handler just returns.

#include <string_view>

#include "commands/context.hpp"

namespace lawnkv {

// A 64-bit integer with Redis's strict rules ("01", "+1", " 1" rejected);
// error: msg, or "ERR value is not an integer or out of range".
bool integer_or_reply(Call& call, std::string_view arg, long long* out,
                      std::string_view msg = {});
// A long double as INCRBYFLOAT reads it; error "ERR value is not a valid float".
bool long_double_or_reply(Call& call, std::string_view arg, long double* out);
// A db number: integer (else kNotInteger), within [0, databases) (else kDbIndex).
bool db_index_or_reply(Call& call, std::string_view arg, int* out);

}  // namespace lawnkv
