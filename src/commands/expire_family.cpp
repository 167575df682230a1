// Expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST. The store work is in expire_ops.cpp;
// here are the argument parsing, the time arithmetic and the replies.

#include <optional>
#include <string>

#include "commands/expire_ops.hpp"
#include "commands/families.hpp"
#include "commands/time_args.hpp"
#include "core/deadline.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

enum class Unit { kSeconds, kMilliseconds };

// The four EXPIRE forms: `key time [NX | XX | GT | LT]`, time in unit, counted
// from base_ms (now for EXPIRE and PEXPIRE, 0 for the *AT forms). As Redis,
// the options are checked before the time, and a time whose conversion to
// absolute ms overflows is refused.
void expire_generic(Call& call, int64_t base_ms, Unit unit) {
  unsigned conditions;
  if (!expire_conditions_or_reply(call, call.argv.subspan(3), &conditions)) return;
  long long when;
  if (!integer_or_reply(call, call.argv[2], &when)) return;
  const std::optional<int64_t> ms = unit == Unit::kSeconds ? seconds_to_ms(when) : when;
  const std::optional<int64_t> deadline = ms ? checked_add(*ms, base_ms) : std::nullopt;
  if (!deadline) return reply_invalid_expire_time(call);
  const int64_t ttl_ms = base_ms == 0 ? 0 : *ms;  // relative forms only

  const OpResult<bool> r = op_expire(call, call.argv[1], *deadline, ttl_ms, conditions);
  if (!r.ok()) return call.reply.integer(0);  // no key, or a condition did not hold
  if (r.value) {
    call.data.effects.replace_own({"DEL", call.argv[1]});
  } else if (call.data.effects.active()) {
    call.data.effects.replace_own({"PEXPIREAT", call.argv[1], ll_to_string(*deadline)});
  }
  call.reply.integer(1);
}

/* EXPIRE key seconds [NX | XX | GT | LT] */
void expire_command(Call& call) { expire_generic(call, call.now_ms, Unit::kSeconds); }

/* PEXPIRE key milliseconds [NX | XX | GT | LT] */
void pexpire_command(Call& call) { expire_generic(call, call.now_ms, Unit::kMilliseconds); }

/* EXPIREAT key unix-time-seconds [NX | XX | GT | LT] */
void expireat_command(Call& call) { expire_generic(call, 0, Unit::kSeconds); }

/* PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT] */
void pexpireat_command(Call& call) { expire_generic(call, 0, Unit::kMilliseconds); }

// TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for no key, -1 for no TTL, else the
// remaining time (or the deadline when absolute), never below 0. Seconds
// are rounded to the nearest: (ms + 500) / 1000, as Redis, in unsigned
// arithmetic: a deadline within 500 ms of INT64_MAX (PEXPIREAT k
// 9223372036854775807) overflows int64, and Redis 7.0 replies the unsigned
// result, 9223372036854776.
void ttl_generic(Call& call, Unit unit, bool absolute) {
  // No access counted, as Redis.
  const store::Entry* e = lookup_read_untouched(call, call.argv[1]);
  if (e == nullptr) return call.reply.integer(-2);
  if (!e->has_ttl()) return call.reply.integer(-1);
  int64_t ms = absolute ? e->deadline() : e->deadline() - call.now_ms;
  if (ms < 0) ms = 0;
  call.reply.integer(unit == Unit::kMilliseconds ? ms : rounded_seconds(ms));
}

/* TTL key */
void ttl_command(Call& call) { ttl_generic(call, Unit::kSeconds, false); }

/* PTTL key */
void pttl_command(Call& call) { ttl_generic(call, Unit::kMilliseconds, false); }

/* EXPIRETIME key */
void expiretime_command(Call& call) { ttl_generic(call, Unit::kSeconds, true); }

/* PEXPIRETIME key */
void pexpiretime_command(Call& call) { ttl_generic(call, Unit::kMilliseconds, true); }

/* PERSIST key */
void persist_command(Call& call) {
  call.reply.integer(op_persist(call, call.argv[1]) == OpStatus::kOk ? 1 : 0);
}

}  // namespace

void register_expire_commands(CommandTable& t) {
  t.add({
    {.name = "expire", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Sets a key's time to live in seconds",
     .key_flags = "RW update",
     .handler = expire_command},
    {.name = "expireat", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "1.2.0", .complexity = "O(1)",
     .summary = "Sets the Unix time in seconds at which a key expires",
     .key_flags = "RW update",
     .handler = expireat_command},
    {.name = "expiretime", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "7.0.0", .complexity = "O(1)",
     .summary = "Returns the Unix time in seconds at which a key expires",
     .key_flags = "RO access",
     .handler = expiretime_command},
    {.name = "persist", .arity = 2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "2.2.0", .complexity = "O(1)",
     .summary = "Removes a key's time to live",
     .key_flags = "RW update",
     .handler = persist_command},
    {.name = "pexpire", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Sets a key's time to live in milliseconds",
     .key_flags = "RW update",
     .handler = pexpire_command},
    {.name = "pexpireat", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @write @fast",
     .group = "generic", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Sets the Unix time in milliseconds at which a key expires",
     .key_flags = "RW update",
     .handler = pexpireat_command},
    {.name = "pexpiretime", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "7.0.0", .complexity = "O(1)",
     .summary = "Returns the Unix time in milliseconds at which a key expires",
     .key_flags = "RO access",
     .handler = pexpiretime_command},
    {.name = "pttl", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Returns a key's time to live in milliseconds",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = pttl_command},
    {.name = "ttl", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@keyspace @read @fast",
     .group = "generic", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns a key's time to live in seconds",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = ttl_command},
  });
}

}  // namespace lawnkv
