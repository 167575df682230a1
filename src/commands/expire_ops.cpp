#include "commands/expire_ops.hpp"

#include <string>

#include "core/error_format.hpp"
#include "engine/args.hpp"
#include "engine/lookup.hpp"
#include "engine/table.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kUnsupportedOption = "ERR Unsupported option %s";
constexpr std::string_view kNxIncompatible =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
constexpr std::string_view kGtLtIncompatible =
    "ERR GT and LT options at the same time are not compatible";

// True if a key whose deadline is current (-1: none) may get deadline
// under conditions, which expire_conditions_or_reply has validated.
bool conditions_hold(unsigned conditions, int64_t current, int64_t deadline) {
  const bool has_ttl = current != -1;
  if ((conditions & kExpireNx) && has_ttl) return false;
  if ((conditions & kExpireXx) && !has_ttl) return false;
  // No TTL counts as an infinite one: never smaller, always larger.
  if ((conditions & kExpireGt) && (!has_ttl || deadline <= current)) return false;
  if ((conditions & kExpireLt) && has_ttl && deadline >= current) return false;
  return true;
}

}  // namespace

bool expire_conditions_or_reply(Call& call, std::span<const std::string_view> opts,
                                unsigned* conditions) {
  unsigned c = 0;
  for (std::string_view arg : opts) {
    // Redis compares the words as C strings: "nx\0junk" is NX.
    const std::string_view opt = c_string(arg);
    if (iequals(opt, "nx")) {
      c |= kExpireNx;
    } else if (iequals(opt, "xx")) {
      c |= kExpireXx;
    } else if (iequals(opt, "gt")) {
      c |= kExpireGt;
    } else if (iequals(opt, "lt")) {
      c |= kExpireLt;
    } else {
      call.error(format_error(kUnsupportedOption, {arg}));
      return false;
    }
  }
  if ((c & kExpireNx) && (c & (kExpireXx | kExpireGt | kExpireLt))) {
    call.error(kNxIncompatible);
    return false;
  }
  if ((c & kExpireGt) && (c & kExpireLt)) {
    call.error(kGtLtIncompatible);
    return false;
  }
  *conditions = c;
  return true;
}

OpResult<bool> op_expire(DbContext& call, std::string_view key, int64_t deadline_ms, int64_t ttl_ms,
                       unsigned conditions) {
  store::Entry* e = lookup_write(call, key);
  if (e == nullptr) return {OpStatus::kNoKey};
  const int64_t current = e->has_ttl() ? e->deadline() : -1;
  if (!conditions_hold(conditions, current, deadline_ms)) return {OpStatus::kSkipped};
  if (deadline_ms <= call.now_ms) {
    call.db().remove(key);
    call.modified(key, pubsub::kGeneric, "del");
    return {OpStatus::kOk, true};
  }
  call.db().set_deadline(*e, deadline_ms, ttl_ms);
  call.modified(key, pubsub::kGeneric, "expire");
  return {OpStatus::kOk, false};
}

OpStatus op_persist(DbContext& call, std::string_view key) {
  store::Entry* e = lookup_write(call, key);
  if (e == nullptr) return OpStatus::kNoKey;
  if (!e->has_ttl()) return OpStatus::kSkipped;
  call.db().clear_deadline(*e);
  call.modified(key, pubsub::kGeneric, "persist");
  return OpStatus::kOk;
}

}  // namespace lawnkv
