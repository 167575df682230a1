#pragma once
// The store halves of the expiry commands (expire_family.cpp holds the command
// halves): setting a deadline under NX / XX / GT / LT, and removing one.

#include <cstdint>
#include <span>
#include <string_view>

#include "engine/context.hpp"
#include "engine/op_status.hpp"

namespace lawnkv {

// EXPIRE's condition options; NX excludes the others, GT excludes LT.
enum ExpireCondition : unsigned {
  kExpireNx = 1u << 0,  // only if the key has no TTL
  kExpireXx = 1u << 1,  // only if the key has a TTL
  kExpireGt = 1u << 2,  // only if the new deadline is later (no TTL = infinite)
  kExpireLt = 1u << 3,  // only if the new deadline is earlier (no TTL = infinite)
};

// Parses the [NX | XX | GT | LT] words of opts into *conditions, or replies
// Redis's error ("ERR Unsupported option x", the incompatibility texts).
bool expire_conditions_or_reply(Call& call, std::span<const std::string_view> opts,
                                unsigned* conditions);

// EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT on key in the selected db.
// deadline_ms is absolute Unix ms; ttl_ms is the relative TTL it came from
// (EXPIRE, PEXPIRE) or 0 (the *AT forms), which lets the expiry index queue
// keys of the same TTL together. As Redis: a deadline <= now deletes the key.
// kOk with value false: the deadline was set (`expire` emitted); with value
// true: deadline_ms was not in the future and the key was deleted (`del`).
// kNoKey; kSkipped when a condition did not hold.
OpResult<bool> op_expire(DbContext& call, std::string_view key, int64_t deadline_ms, int64_t ttl_ms,
                       unsigned conditions);

// PERSIST: removes key's TTL (`persist` emitted). kOk, kNoKey, kSkipped
// (the key has no TTL).
OpStatus op_persist(DbContext& call, std::string_view key);

}  // namespace lawnkv
