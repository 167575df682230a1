#pragma once
// The store halves of the list commands (lists_family.cpp holds the command
// halves: arguments, replies, and the keyspace events, which it interleaves
// with the replies in Redis 7.0's order). Lookups are Redis's lookupKeyRead
// / lookupKeyWrite followed by checkType.

#include <string_view>

#include "engine/context.hpp"
#include "types/list.hpp"

namespace lawnkv {

// A key looked up as a list: list is null when the key is missing or holds
// another type (then wrong_type).
struct ListRef {
  types::List* list = nullptr;
  bool wrong_type = false;
};
// For commands that read the list (hits, misses, `keymiss`).
ListRef list_for_read(DbContext& call, std::string_view key);
// For commands that change it.
ListRef list_for_write(DbContext& call, std::string_view key);

// How lists grow under the server's configuration (list-max-listpack-size).
types::ListOptions list_options(const Call& call);

// Adds an empty list at key, which must be missing.
types::List& create_list(DbContext& call, std::string_view key);

}  // namespace lawnkv
