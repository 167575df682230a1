#pragma once
// The store halves of the list commands (lists_family.cpp holds the command
// halves: arguments, replies, and the keyspace events, which it interleaves
// with the replies in Redis 7.0's order). Lookups are Redis's lookupKeyRead
// / lookupKeyWrite followed by checkType.

#include <string_view>

#include "engine/context.hpp"
#include "types/list.hpp"

namespace lawnkv {

// How lists grow under the server's configuration (list-max-listpack-size).
types::ListOptions list_options(const Call& call);

// Adds an empty list at key, which must be missing.
types::List& create_list(DbContext& call, std::string_view key);

}  // namespace lawnkv
