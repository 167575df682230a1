#pragma once
// The arguments SCAN and the per-key scans (SSCAN, ...) share: the cursor,
// and MATCH / COUNT (/ TYPE for SCAN), parsed as Redis's
// parseScanCursorOrReply and scanGenericCommand parse them.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "commands/context.hpp"
#include "commands/keys_ops.hpp"

namespace lawnkv {

// A cursor as Redis reads it with strtoul(): an optional sign and decimal
// digits up to the end (or a NUL byte), no leading space, no overflow. "-1"
// wraps to 2^64-1 and "" is 0, as strtoul makes them. Error: "ERR invalid
// cursor".
bool scan_cursor_or_reply(Call& call, std::string_view arg, uint64_t* out);

// Parses [MATCH pattern] [COUNT count] (and [TYPE type] when with_type: SCAN
// alone) from argv[first..]; error: "ERR syntax error", or COUNT's integer
// error.
bool scan_options_or_reply(Call& call, size_t first, bool with_type, ScanOptions* opts);

}  // namespace lawnkv
