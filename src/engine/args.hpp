#pragma once
// Argument parsing shared by the command families. Each *_or_reply function
// either stores the parsed value and returns true, or replies Redis's error
// (marking the call failed) and returns false: the handler just returns.

#include <string_view>

#include "core/ascii.hpp"
#include "engine/context.hpp"

namespace lawnkv {

// A 64-bit integer with Redis's strict rules ("01", "+1", " 1" rejected);
// error: msg, or "ERR value is not an integer or out of range".
bool integer_or_reply(Call& call, std::string_view arg, long long* out,
                      std::string_view msg = {});
// A long double as INCRBYFLOAT reads it; error "ERR value is not a valid float".
bool long_double_or_reply(Call& call, std::string_view arg, long double* out);
// An int as Redis's getIntFromObjectOrReply reads it: a 64-bit integer
// (else msg, or kNotInteger), then within int range (else msg, or "ERR value
// is out of range, value must between -2147483648 and 2147483647").
bool int_or_reply(Call& call, std::string_view arg, int* out, std::string_view msg = {});
// A db number (SELECT, MOVE, COPY DB): an int, then an existing db (else
// "ERR DB index is out of range").
bool db_index_or_reply(Call& call, std::string_view arg, int* out);

// True if arg is the option word, compared as strcasecmp does ("nx\0junk" is NX).
// word has no NUL, so arg matches when its first word.size() bytes do and
// either nothing or a NUL follows them: an argument of another length is
// turned away without a search for its first NUL.
inline bool is_option(std::string_view arg, std::string_view word) {
  if (arg.size() < word.size() || (arg.size() > word.size() && arg[word.size()] != '\0')) return false;
  return iequals(arg.substr(0, word.size()), word);
}

}  // namespace lawnkv
