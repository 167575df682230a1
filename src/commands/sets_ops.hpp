#pragma once
// The store halves of the set commands (sets_family.cpp holds the command
// halves: arguments, replies, and the keyspace events, which it interleaves
// with the replies in Redis 7.0's order). Lookups here are Redis's
// lookupKeyRead / lookupKeyWrite followed by checkType; changes to the
// keyspace (a set created, stored over a key, deleted once empty) happen
// here and publish nothing.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/context.hpp"
#include "types/set.hpp"

namespace lawnkv {

// The sets at keys, read in order as SINTER, SUNION and SDIFF look them up
// (a missing key is a null set). False at the first key of another type: the
// keys after it are not looked up, as in Redis.
bool sets_for_read(DbContext& call, std::span<const std::string_view> keys,
                   std::vector<const types::Set*>* sets);

// How sets grow under the server's configuration (set-max-intset-entries),
// with a fresh hash seed (from the keyspace's generator) for any hash table
// they make.
types::SetOptions set_options(Call& call);

// Adds an empty set at key, which must be missing (`new` is the caller's).
types::Set& create_set(DbContext& call, std::string_view key);

// Puts set at key in place of whatever is there, without a TTL (Redis's
// setKey: a key past its deadline is expired first). True if the key was
// created rather than overwritten.
bool store_set(DbContext& call, std::string_view key, std::unique_ptr<types::Set> set);

}  // namespace lawnkv
