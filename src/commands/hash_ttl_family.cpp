// The TTLs of hash fields: Redis 7.4's HEXPIRE, HPEXPIRE, HEXPIREAT,
// HPEXPIREAT, HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME and HPERSIST, and Redis
// 8.0's HSETEX and HGETEX, with their per-field reply codes, errors and
// keyspace events (hexpire, hpersist, hdel when a deadline given is not in
// the future, hexpired when a due field is found, del when the hash empties).
//
// A field's deadline sits in the keyspace's expiry index beside the keys'
// (types/hash.hpp): the engine reaps it on time, never early.

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands/families.hpp"
#include "commands/hashes_ops.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "types/hash.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kNumFieldsParameter = "ERR Parameter `numFields` should be greater than 0";
constexpr std::string_view kInvalidFieldCount = "ERR invalid number of fields";
constexpr std::string_view kMissingExpireTime = "ERR missing expire time";
constexpr std::string_view kFxxAndFnx = "ERR Only one of FXX or FNX arguments can be specified";
constexpr std::string_view kUnknownArgument = "ERR unknown argument: ";

using types::Hash;

// A field-TTL command's record: the fields whose TTL it set (HPEXPIREAT
// key t FIELDS n ..., the deadline absolute), whose TTL it removed
// (HPERSIST), or that it deleted by a time not in the future (HDEL).
enum class FieldChange { kExpireAt, kPersist, kDelete };
void record_fields(Call& call, FieldChange change, int64_t deadline_ms, const std::vector<std::string_view>& fields) {
  if (!call.data.effects.active() || fields.empty()) return;
  std::vector<std::string> argv;
  switch (change) {
    case FieldChange::kDelete: argv = {"HDEL", std::string(call.argv[1])}; break;
    case FieldChange::kPersist: argv = {"HPERSIST", std::string(call.argv[1]), "FIELDS"}; break;
    case FieldChange::kExpireAt:
      argv = {"HPEXPIREAT", std::string(call.argv[1]), ll_to_string(deadline_ms), "FIELDS"};
      break;
  }
  if (change != FieldChange::kDelete) argv.push_back(std::to_string(fields.size()));
  argv.insert(argv.end(), fields.begin(), fields.end());
  call.data.effects.replace_own(std::move(argv));
}

/* HEXPIRE key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
 * HPEXPIRE, HEXPIREAT, HPEXPIREAT: the same in ms, or absolute.
 * Per field: -2 no such field, 0 condition not met, 1 set, 2 deleted (the
 * time is not in the future). */
void hexpire_generic(Call& call, bool absolute, bool seconds) {
  bool wrong_type;
  Hash* h = hash_for_write(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  int64_t deadline, ttl;
  if (!field_deadline_or_reply(call, call.argv[2], absolute, seconds, &deadline, &ttl)) return;
  Hash::Condition cond = Hash::Condition::kNone;
  size_t at = 3;
  static constexpr std::pair<std::string_view, Hash::Condition> kConds[] = {
      {"nx", Hash::Condition::kNx}, {"xx", Hash::Condition::kXx}, {"gt", Hash::Condition::kGt},
      {"lt", Hash::Condition::kLt}};
  for (const auto& [word, c] : kConds)
    if (is_option(call.argv[3], word)) {
      cond = c;
      at = 4;
    }
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, at, kNumFieldsParameter, &fields)) return;
  call.reply.array(fields.size());
  if (!h) {
    for (size_t i = 0; i < fields.size(); ++i) call.reply.integer(Hash::kNoField);
    return;
  }
  size_t updated = 0, deleted = 0;
  std::vector<std::string_view> changed;
  for (std::string_view f : fields) {
    const int r = h->set_ttl(call.argv[1], f, deadline, ttl, cond, call.now_ms);
    updated += r == Hash::kSet;
    deleted += r == Hash::kDeleted;
    if (r == Hash::kSet || r == Hash::kDeleted) changed.push_back(f);
    call.reply.integer(r);
  }
  if (updated + deleted == 0) return;
  // One deadline for all: every changed field was set, or every one deleted.
  record_fields(call, deleted ? FieldChange::kDelete : FieldChange::kExpireAt, deadline, changed);
  const bool emptied = h->empty();
  if (emptied) call.db().remove(call.argv[1]);
  call.modified(call.argv[1], pubsub::kHash, deleted ? "hdel" : "hexpire");
  if (emptied) call.notify(pubsub::kGeneric, "del", call.argv[1]);
}

void hexpire_command(Call& call) { hexpire_generic(call, false, true); }
void hpexpire_command(Call& call) { hexpire_generic(call, false, false); }
void hexpireat_command(Call& call) { hexpire_generic(call, true, true); }
void hpexpireat_command(Call& call) { hexpire_generic(call, true, false); }

/* HTTL key FIELDS numfields field [field ...]: seconds left (rounded up),
 * -1 no TTL, -2 no such field. HPTTL in ms; HEXPIRETIME and HPEXPIRETIME
 * the deadline. */
void httl_generic(Call& call, bool relative, bool seconds) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, 2, kNumFieldsNotPositive, &fields)) return;
  call.reply.array(fields.size());
  const int64_t base = relative ? call.now_ms : 0;
  for (std::string_view f : fields) {
    const int64_t d = h ? h->deadline_of(f) : Hash::kNoField;
    if (d < 0) {
      call.reply.integer(d);
    } else {
      call.reply.integer(seconds ? (d + 999 - base) / 1000 : d - base);
    }
  }
}

void httl_command(Call& call) { httl_generic(call, true, true); }
void hpttl_command(Call& call) { httl_generic(call, true, false); }
void hexpiretime_command(Call& call) { httl_generic(call, false, true); }
void hpexpiretime_command(Call& call) { httl_generic(call, false, false); }

/* HPERSIST key FIELDS numfields field [field ...] */
void hpersist_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_write(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, 2, kNumFieldsNotPositive, &fields)) return;
  call.reply.array(fields.size());
  bool changed = false;
  for (std::string_view f : fields) {
    const int r = h ? h->persist(f) : Hash::kNoField;
    changed |= r == 1;
    call.reply.integer(r);
  }
  if (!changed) return;
  call.modified(call.argv[1], pubsub::kHash, "hpersist");
}


// The expiry option of HSETEX and HGETEX: none, a deadline (EX, PX, EXAT,
// PXAT), KEEPTTL (HSETEX) or PERSIST (HGETEX).
struct FieldExpiry {
  enum Kind { kNone, kDeadline, kKeep, kPersist } kind = kNone;
  int64_t deadline_ms = 0;
  int64_t ttl_ms = 0;  // relative TTL for the index's queues; 0 when absolute
};

// EX, PX, EXAT or PXAT: its (absolute, seconds) form; false for other words.
bool deadline_option(std::string_view word, bool* absolute, bool* seconds) {
  static constexpr struct { std::string_view name; bool absolute, seconds; } kOptions[] = {
      {"ex", false, true}, {"px", false, false}, {"exat", true, true}, {"pxat", true, false}};
  for (const auto& o : kOptions)
    if (is_option(word, o.name)) {
      *absolute = o.absolute;
      *seconds = o.seconds;
      return true;
    }
  return false;
}

// Applies e to field f of h, which exists: counts the fields whose TTL was
// set or removed, and those deleted by a deadline not in the future; true if
// f changed so.
bool apply_expiry(Call& call, types::Hash* h, std::string_view f, const FieldExpiry& e, size_t* updated,
                  size_t* deleted) {
  if (e.kind == FieldExpiry::kPersist) {
    const bool removed = h->persist(f) == 1;
    *updated += removed;
    return removed;
  }
  if (e.kind != FieldExpiry::kDeadline) return false;
  const int r = h->set_ttl(call.argv[1], f, e.deadline_ms, e.ttl_ms, Hash::Condition::kNone, call.now_ms);
  *updated += r == Hash::kSet;
  *deleted += r == Hash::kDeleted;
  return r == Hash::kSet || r == Hash::kDeleted;
}

/* HSETEX key [FNX | FXX] [EX seconds | PX ms | EXAT unix-s | PXAT unix-ms |
 *   KEEPTTL] FIELDS numfields field value [field value ...]    (Redis 8.0)
 * Sets the fields (dropping their TTLs unless an option gives or keeps one)
 * and replies 1, or 0 when FNX finds one of them or FXX misses one. */
void hsetex_command(Call& call) {
  constexpr std::string_view kOneExpiry = "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified";
  enum { kAny, kFnx, kFxx } cond = kAny;
  FieldExpiry expiry;
  size_t first = 0, count = 0;
  for (size_t i = 2; i < call.argv.size() && first == 0; ++i) {
    const std::string_view a = call.argv[i];
    bool absolute, seconds;
    if (is_option(a, "fields")) {
      long long n;
      if (i + 3 >= call.argv.size()) return call.error(err::wrong_arity(call.spec->name));
      if (!string_to_ll(call.argv[i + 1], &n) || n < 1 || n > std::numeric_limits<int>::max())
        return call.error(kInvalidFieldCount);
      const size_t remaining = call.argv.size() - i - 2;
      if (remaining % 2 != 0 || static_cast<size_t>(n) != remaining / 2)
        return call.error(err::wrong_arity(call.spec->name));
      first = i + 2;
      count = static_cast<size_t>(n);
    } else if (deadline_option(a, &absolute, &seconds)) {
      if (expiry.kind != FieldExpiry::kNone) return call.error(kOneExpiry);
      if (i + 1 >= call.argv.size()) return call.error(kMissingExpireTime);
      if (!field_deadline_or_reply(call, call.argv[++i], absolute, seconds, &expiry.deadline_ms, &expiry.ttl_ms))
        return;
      expiry.kind = FieldExpiry::kDeadline;
    } else if (is_option(a, "keepttl")) {
      if (expiry.kind != FieldExpiry::kNone) return call.error(kOneExpiry);
      expiry.kind = FieldExpiry::kKeep;
    } else if (is_option(a, "fnx") || is_option(a, "fxx")) {
      if (cond != kAny) return call.error(kFxxAndFnx);
      cond = is_option(a, "fnx") ? kFnx : kFxx;
    } else {
      return call.error(std::string(kUnknownArgument).append(c_string(a)));
    }
  }
  // The arity (-6) leaves no way through the options without FIELDS.
  if (first == 0) return call.error(err::wrong_arity(call.spec->name));

  bool wrong_type;
  Hash* h = hash_for_write(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  if (cond != kAny) {
    size_t found = 0;
    for (size_t i = 0; h && i < count; ++i) found += h->get(call.argv[first + 2 * i]).has_value();
    if ((cond == kFnx && found != 0) || (cond == kFxx && found != count)) return call.reply.integer(0);
  }
  if (!h) h = hash_or_create(call, call.argv[1]);
  const Hash::Limits lim = hash_limits(call);
  size_t updated = 0, deleted = 0;
  for (size_t i = 0; i < count; ++i) {
    const std::string_view f = call.argv[first + 2 * i];
    h->set(f, call.argv[first + 2 * i + 1], lim, /*keep_ttl=*/expiry.kind != FieldExpiry::kNone);
    apply_expiry(call, h, f, expiry, &updated, &deleted);
  }
  const bool emptied = delete_hash_if_empty(call, call.argv[1], h);
  call.reply.integer(1);
  call.modified(call.argv[1]);
  if (call.data.effects.active() && expiry.kind == FieldExpiry::kDeadline) {
    // Recorded with the deadline absolute; fields it deleted as HDEL.
    std::vector<std::string> argv{deleted ? "HDEL" : "HSETEX", std::string(call.argv[1])};
    if (!deleted) argv.insert(argv.end(), {"PXAT", ll_to_string(expiry.deadline_ms), "FIELDS", std::to_string(count)});
    for (size_t i = 0; i < count; ++i) {
      argv.emplace_back(call.argv[first + 2 * i]);
      if (!deleted) argv.emplace_back(call.argv[first + 2 * i + 1]);
    }
    call.data.effects.replace_own(std::move(argv));
  }
  call.notify(pubsub::kHash, "hset", call.argv[1]);
  if (deleted || updated) call.notify(pubsub::kHash, deleted ? "hdel" : "hexpire", call.argv[1]);
  if (emptied) call.notify(pubsub::kGeneric, "del", call.argv[1]);
}

/* HGETEX key [EX seconds | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]
 *   FIELDS numfields field [field ...]    (Redis 8.0)
 * The values, as HMGET, and the TTL of each field found set or removed. */
void hgetex_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_write(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  FieldExpiry expiry;
  size_t at = 2;  // where FIELDS must be
  bool absolute, seconds;
  if (deadline_option(call.argv[2], &absolute, &seconds)) {
    if (!field_deadline_or_reply(call, call.argv[3], absolute, seconds, &expiry.deadline_ms, &expiry.ttl_ms))
      return;
    expiry.kind = FieldExpiry::kDeadline;
    at = 4;
  } else if (is_option(call.argv[2], "persist")) {
    expiry.kind = FieldExpiry::kPersist;
    at = 3;
  }
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, at, kNumFieldsNotPositive, &fields)) return;
  call.reply.array(fields.size());
  size_t updated = 0, deleted = 0;
  std::vector<std::string_view> changed;
  for (std::string_view f : fields) {
    const auto v = h ? h->get(f) : std::nullopt;
    if (!v) {
      call.reply.null();
      continue;
    }
    call.reply.bulk(*v);
    if (apply_expiry(call, h, f, expiry, &updated, &deleted)) changed.push_back(f);
  }
  if (updated + deleted == 0) return;
  record_fields(call,
                deleted                                ? FieldChange::kDelete
                : expiry.kind == FieldExpiry::kPersist ? FieldChange::kPersist
                                                       : FieldChange::kExpireAt,
                expiry.deadline_ms, changed);
  const bool emptied = delete_hash_if_empty(call, call.argv[1], h);
  call.modified(call.argv[1]);
  if (updated) {
    call.notify(pubsub::kHash, expiry.kind == FieldExpiry::kPersist ? "hpersist" : "hexpire", call.argv[1]);
  } else {
    call.notify(pubsub::kHash, "hdel", call.argv[1]);
  }
  if (emptied) call.notify(pubsub::kGeneric, "del", call.argv[1]);
}
}  // namespace

void register_hash_ttl_commands(CommandTable& t) {
  t.add({
    {.name = "hexpire", .arity = -6, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Sets the time to live of hash fields in seconds",
     .key_flags = "RW update",
     .handler = hexpire_command},
    {.name = "hpexpire", .arity = -6, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Sets the time to live of hash fields in milliseconds",
     .key_flags = "RW update",
     .handler = hpexpire_command},
    {.name = "hexpireat", .arity = -6, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Sets the Unix time in seconds at which hash fields expire",
     .key_flags = "RW update",
     .handler = hexpireat_command},
    {.name = "hpexpireat", .arity = -6, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Sets the Unix time in milliseconds at which hash fields expire",
     .key_flags = "RW update",
     .handler = hpexpireat_command},
    {.name = "httl", .arity = -5, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the time to live of hash fields in seconds",
     .key_flags = "RO access",
     .handler = httl_command},
    {.name = "hpttl", .arity = -5, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the time to live of hash fields in milliseconds",
     .key_flags = "RO access",
     .handler = hpttl_command},
    {.name = "hexpiretime", .arity = -5, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the Unix time in seconds at which hash fields expire",
     .key_flags = "RO access",
     .handler = hexpiretime_command},
    {.name = "hpexpiretime", .arity = -5, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the Unix time in milliseconds at which hash fields expire",
     .key_flags = "RO access",
     .handler = hpexpiretime_command},
    {.name = "hpersist", .arity = -5, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Removes the time to live of hash fields",
     .key_flags = "RW update",
     .handler = hpersist_command},
    {.name = "hsetex", .arity = -6, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "8.0.0", .complexity = "O(N) where N is the number of fields being set.",
     .summary = "Sets fields of a hash and, optionally, their time to live",
     .key_flags = "RW update",
     .handler = hsetex_command},
    {.name = "hgetex", .arity = -5, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "8.0.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the values of fields and, optionally, sets or removes their time to live",
     .key_flags = "RW access update",
     .handler = hgetex_command},
  });
}

}  // namespace lawnkv
