// Expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST. The store work is in expire_ops.cpp;
// here are the argument parsing, the time arithmetic and the replies.

#include <optional>
#include <string>

#include "commands/args.hpp"
#include "commands/errors.hpp"
#include "commands/expire_ops.hpp"
#include "commands/families.hpp"
#include "commands/lookup.hpp"
#include "commands/time_args.hpp"
#include "core/deadline.hpp"

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

  switch (op_expire(call, call.argv[1], *deadline, ttl_ms, conditions)) {
    case ExpireStatus::kSet:
    case ExpireStatus::kDeleted: return call.reply.integer(1);
    case ExpireStatus::kNoKey:
    case ExpireStatus::kSkipped: return call.reply.integer(0);
  }
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
// are rounded to the nearest: (ms + 500) / 1000, as Redis.
void ttl_generic(Call& call, Unit unit, bool absolute) {
  const store::Entry* e = lookup_read(call, call.argv[1]);
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
  call.reply.integer(op_persist(call, call.argv[1]) == PersistStatus::kPersisted ? 1 : 0);
}

CommandSpec row(std::string name, int arity, uint32_t flags, Handler h, std::string acl) {
  return CommandSpec{std::move(name), arity, flags, 1, 1, 1, h, std::move(acl), {}};
}

}  // namespace

void register_expire_commands(CommandTable& t) {
  constexpr uint32_t kWriteFast = kWrite | kFast;
  constexpr uint32_t kReadFast = kReadonly | kFast;
  const std::string write = "@keyspace @write @fast";
  const std::string read = "@keyspace @read @fast";
  t.add(row("expire", -3, kWriteFast, expire_command, write));
  t.add(row("pexpire", -3, kWriteFast, pexpire_command, write));
  t.add(row("expireat", -3, kWriteFast, expireat_command, write));
  t.add(row("pexpireat", -3, kWriteFast, pexpireat_command, write));
  t.add(row("ttl", 2, kReadFast, ttl_command, read));
  t.add(row("pttl", 2, kReadFast, pttl_command, read));
  t.add(row("expiretime", 2, kReadFast, expiretime_command, read));
  t.add(row("pexpiretime", 2, kReadFast, pexpiretime_command, read));
  t.add(row("persist", 2, kWriteFast, persist_command, write));
}

}  // namespace lawnkv
