#pragma once
// Key lookups as commands do them (Redis's lookupKeyRead / lookupKeyWrite):
// lazy expiry against the call's time snapshot, and for reads the
// keyspace_hits / keyspace_misses counters and the `keymiss` notification.

#include <string_view>

#include "engine/context.hpp"

namespace lawnkv {

// For commands that read the value (GET, STRLEN, TYPE...).
store::Entry* lookup_read(DbContext& call, std::string_view key);
// For commands that are about to change or replace the key (no hit/miss).
store::Entry* lookup_write(DbContext& call, std::string_view key);

// lookup_read restricted to strings: nullptr for a missing key (*wrong_type
// false) or for another type (*wrong_type true, WRONGTYPE already replied).
store::Entry* lookup_string_or_reply(Call& call, std::string_view key, bool* wrong_type);

}  // namespace lawnkv
