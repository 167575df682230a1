#pragma once
// The store halves of the keyspace commands (keys_family.cpp holds the command
// halves). Each op does what Redis's db.c does to the keyspace for that
// command: lazy expiry through the lookups, the keyspace notifications in
// Redis 7.0's order, WATCH signals. It returns a status and writes no reply.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/context.hpp"
#include "engine/op_status.hpp"

namespace lawnkv {

// TYPE's name for a value ("string", "dehy-type" as the ReDe module names its
// type), or "none" for a missing key.
std::string_view type_name(const store::Entry* e);

// DEL / UNLINK of one key: true if a live key was deleted (`del` emitted).
bool op_delete(DbContext& call, std::string_view key);

// RENAME / RENAMENX within the selected db. The TTL moves with the value.
// kOk; kNoKey ("ERR no such key"); kSkipped when from == to and the key
// exists (nothing to do); kKeyExists (RENAMENX only).
OpStatus op_rename(DbContext& call, std::string_view from, std::string_view to, bool nx);

// COPY from the selected db to dst_db (which may be the same db, with a
// different key). The copy gets the source's TTL. kOk, kNoKey, kKeyExists.
OpStatus op_copy(DbContext& call, std::string_view from, int dst_db, std::string_view to,
                   bool replace);

// MOVE key from the selected db to dst_db (a different db). TTL kept. kOk,
// kNoKey, kKeyExists.
OpStatus op_move(DbContext& call, std::string_view key, int dst_db);

// SWAPDB on valid, distinct indexes: dirties the WATCHes of both dbs as
// Redis does, then swaps their contents.
void op_swap_dbs(DbContext& call, int a, int b);

// KEYS: the live keys matching pattern, in table order.
std::vector<std::string_view> op_keys(DbContext& call, std::string_view pattern);

// A random live key (nullptr when the db is empty). Expired keys drawn on
// the way are deleted, as Redis's dbRandomKey does.
const store::Entry* op_random_key(DbContext& call);

struct ScanOptions {
  long long count = 10;          // buckets are walked until this many keys
  bool use_pattern = false;      // MATCH given, and not "*"
  std::string_view pattern;
  bool has_type = false;
  std::string_view type;         // TYPE, compared case-insensitively
};

// One SCAN step from cursor: fills keys, returns the next cursor (0 = done).
// Walks buckets until count keys were gathered or 10 * count buckets were
// visited, then filters: MATCH, TYPE (a read lookup, which counts hits and
// misses and expires the key it finds expired), then expired keys (deleted).
uint64_t op_scan(DbContext& call, uint64_t cursor, const ScanOptions& opts,
                 std::vector<std::string>* keys);

}  // namespace lawnkv
