#pragma once
// Redis's glob-style matcher (util.c stringmatchlen, 7.0 with its security
// fixes) for KEYS, SCAN MATCH and PSUBSCRIBE.
//
//   *        any run of bytes, also empty       h*llo   hllo heeeello
//   ?        exactly one byte                   h?llo   hello hallo
//   [ae]     one byte of the set                h[ae]llo hello hallo
//   [^e]     one byte not in the set            h[^e]llo hallo
//   [a-c]    a range; [c-a] is the same range   h[a-c]llo hallo hcllo
//   \x       the byte x itself, also in a set   h\*llo  h*llo
//
// Quirks kept on purpose, because clients see them:
// - An empty string matches only the empty pattern: "*" does not match "",
//   as the matcher stops before looking at a pattern when the string is
//   empty. KEYS and SCAN test for the pattern "*" before calling it (so
//   KEYS * lists the key ""); PSUBSCRIBE does not (a publish to channel ""
//   reaches no "*" subscriber). A non-empty string may leave trailing '*'s
//   unused: "a*" matches "a".
// - An unterminated set "[abc" behaves as if closed at the end of the
//   pattern; "[]" is an empty set; a trailing '\' is a literal backslash.
// - Range ends compare as signed chars: [a-\xff] is the range -1..97, which
//   holds '0' and \xff but not \xc3.
// - nocase folds ASCII A-Z only, and folds a range after ordering its ends:
//   [Z-a] becomes the empty range z..a.
//
// Cost: once the rest of a pattern after a '*' has failed at every position
// of the string, no earlier '*' retries (skipLongerMatches), so matching is
// polynomial; and a match needing more than 1000 nested '*' fails outright
// (the CVE-2024-31228 nesting limit, present in redis-server 7.0.15 of
// Debian: KEYS with ("*x" x 1001) does not match "x" x 1001).

#include <string_view>

namespace lawnkv {

// True if s matches pattern in full. nocase folds ASCII letters.
bool glob_match(std::string_view pattern, std::string_view s, bool nocase = false);

}  // namespace lawnkv
