#pragma once
// What the hash command families share (hashes_family.cpp: the fields and
// values; hash_ttl_family.cpp: the fields' TTLs): looking a hash up with its
// due fields removed first, creating it, and the "FIELDS numfields field..."
// and field-deadline arguments of Redis 7.4's and 8.0's commands.

#include <cstdint>
#include <span>
#include <string_view>

#include "engine/context.hpp"
#include "types/hash.hpp"

namespace lawnkv {

// A FIELDS count that is not a positive integer (HGETDEL and the field TTL
// commands).
inline constexpr std::string_view kNumFieldsNotPositive = "ERR Number of fields must be a positive integer";

// How hashes grow under the server's configuration (hash-max-listpack-*).
types::Hash::Limits hash_limits(const Call& call);

// The hash at key, or nullptr when absent; *wrong_type, with WRONGTYPE
// replied, when the key holds another type. Fields whose deadline passed
// and that the reaper has not reached yet are removed first (`hexpired`,
// then `del` and nullptr if that emptied the hash), so no reply shows one.
// For reading (hits, misses, keymiss):
types::Hash* hash_for_read(Call& call, std::string_view key, bool* wrong_type);
// For a command about to change the hash:
types::Hash* hash_for_write(Call& call, std::string_view key, bool* wrong_type);
// The hash at key, made empty when absent; nullptr after WRONGTYPE.
types::Hash* hash_or_create(Call& call, std::string_view key);

// After fields were removed: an emptied hash goes, as Redis's dbDelete.
// True if the key was deleted (the caller publishes `del`).
bool delete_hash_if_empty(Call& call, std::string_view key, const types::Hash* h);

// "FIELDS numfields field..." at argv[at], reaching to the last argument:
// the fields, or false with one of Redis's errors replied (count_error when
// numfields is not a positive integer: its text differs between commands).
bool fields_or_reply(Call& call, size_t at, std::string_view count_error,
                     std::span<const std::string_view>* fields);

// A field's deadline from a time argument, as Redis 7.4's HEXPIRE family
// and 8.0's HGETEX/HSETEX read it: an integer >= 0 (else "ERR invalid expire
// time, must be >= 0"), in seconds or ms, relative to now unless absolute,
// at most 2^46 - 1 ms (else "ERR invalid expire time in '<cmd>' command").
// *ttl_ms is the relative TTL (0 for an absolute time), which the expiry
// index uses to queue fields that share a TTL.
bool field_deadline_or_reply(Call& call, std::string_view arg, bool absolute, bool seconds,
                             int64_t* deadline_ms, int64_t* ttl_ms);

}  // namespace lawnkv
