#pragma once
// SCAN, HSCAN, SSCAN...: the cursor and the options, parsed as Redis's
// scanGenericCommand does. Each either stores what it parsed and returns
// true, or replies Redis's error and returns false.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "commands/keys_ops.hpp"
#include "engine/context.hpp"

namespace lawnkv {

// A cursor as Redis reads it with strtoul(): an optional sign and decimal
// digits up to the end (or a NUL byte), no leading space, no overflow. "-1"
// wraps to 2^64-1 and "" is 0, as strtoul makes them.
bool scan_cursor_or_reply(Call& call, std::string_view arg, uint64_t* out);

// [MATCH pattern] [COUNT count] from argv[first..], and [TYPE type] when
// allow_type (SCAN only: on a value's scan it is a syntax error, as Redis).
bool scan_options_or_reply(Call& call, size_t first, bool allow_type, ScanOptions* opts);

// HSCAN, SSCAN, ZSCAN of a missing key: cursor 0 and no elements, whatever
// the options (Redis looks the key up before it reads them).
void reply_empty_scan(Call& call);

}  // namespace lawnkv
