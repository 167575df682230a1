// Hash commands: HSET, HSETNX, HMSET, HGET, HMGET, HDEL, HEXISTS, HLEN,
// HSTRLEN, HKEYS, HVALS, HGETALL, HINCRBY, HINCRBYFLOAT, HRANDFIELD, HSCAN,
// with Redis 7.0's replies, errors and keyspace events (hset, hdel, hincrby,
// hincrbyfloat; del when a hash empties); and Redis 7.4's field TTLs:
// HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT, HTTL, HPTTL, HEXPIRETIME,
// HPEXPIRETIME, HPERSIST (hexpire, hpersist, hdel, hexpired events). The
// value is types::Hash.
//
// A field is gone once now > its deadline. The expiry engine reaps it within
// a millisecond; until then every command here finds due fields of the hash
// it touches and removes them first (`hexpired`, and `del` if the hash
// empties), so no reply ever shows an expired field and HLEN is exact
// (Redis 7.4's HLEN counts expired fields not yet reaped).

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "commands/args.hpp"
#include "commands/errors.hpp"
#include "commands/families.hpp"
#include "commands/lookup.hpp"
#include "commands/scan_args.hpp"
#include "core/glob.hpp"
#include "core/numbers.hpp"
#include "types/hash.hpp"

namespace lawnkv {

namespace {

using types::Hash;

constexpr std::string_view kHashNotInteger = "ERR hash value is not an integer";
constexpr std::string_view kHashNotFloat = "ERR hash value is not a float";
constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
constexpr std::string_view kNanOrInfinity = "ERR increment would produce NaN or Infinity";
constexpr std::string_view kIncrNanOrInfinity = "ERR value is NaN or Infinity";

Hash::Limits limits(const Call& call) {
  return {call.cfg().hash_max_listpack_entries, call.cfg().hash_max_listpack_value};
}

Hash* as_hash(store::Entry* e) { return static_cast<Hash*>(e->obj()); }

// Removes the fields of h whose deadline has passed and the reaper has not
// reached yet; returns nullptr if that emptied (and deleted) the hash.
Hash* without_due_fields(Call& call, std::string_view key, Hash* h) {
  // The index's next deadline bounds every field's: nothing can be due
  // before it (the usual case, active expiry being on time).
  if (h->ttl_fields() == 0 || call.db().next_deadline() >= call.now_ms) return h;
  const size_t n = h->expire_due(call.now_ms);
  if (n == 0) return h;
  call.data.keyspace.stats().expired_subkeys += n;
  const bool emptied = h->empty();
  if (emptied) call.db().remove(key);
  call.modified(key);
  call.notify(pubsub::kHash, "hexpired", key);
  if (emptied) call.notify(pubsub::kGeneric, "del", key);
  return emptied ? nullptr : h;
}

// The hash at e, or nullptr; *wrong_type with WRONGTYPE replied if e holds
// another type.
Hash* hash_or_reply(Call& call, std::string_view key, store::Entry* e, bool* wrong_type) {
  *wrong_type = e && e->type() != store::Type::kHash;
  if (*wrong_type) call.error(err::kWrongType);
  if (!e || *wrong_type) return nullptr;
  return without_due_fields(call, key, as_hash(e));
}

// The hash at key for reading (lookup_read: hits, misses, keymiss), nullptr
// if absent; *wrong_type with WRONGTYPE replied if the key holds another type.
Hash* read_or_reply(Call& call, std::string_view key, bool* wrong_type) {
  return hash_or_reply(call, key, lookup_read(call, key), wrong_type);
}

// The same for a command about to change the hash (no hit or miss counted).
Hash* write_or_reply(Call& call, std::string_view key, bool* wrong_type) {
  return hash_or_reply(call, key, lookup_write(call, key), wrong_type);
}

// The hash at key, made empty when absent; nullptr after WRONGTYPE.
Hash* create_or_reply(Call& call, std::string_view key) {
  bool wrong_type;
  if (Hash* h = write_or_reply(call, key, &wrong_type)) return h;
  if (wrong_type) return nullptr;
  return as_hash(&call.db().add_object(key, std::make_unique<Hash>()));
}

// After fields were removed: an emptied hash goes, as Redis's dbDelete.
// Returns whether the key was deleted.
bool delete_if_empty(Call& call, std::string_view key, Hash* h) {
  if (!h->empty()) return false;
  call.db().remove(key);
  return true;
}

/* HSET key field value [field value ...]
 * HMSET key field value [field value ...] */
void hset_generic(Call& call, bool count_reply) {
  if (call.argv.size() % 2 == 1) return call.error("ERR wrong number of arguments for '" + call.spec->name + "' command");
  Hash* h = create_or_reply(call, call.argv[1]);
  if (!h) return;
  int64_t created = 0;
  const Hash::Limits lim = limits(call);
  for (size_t i = 2; i < call.argv.size(); i += 2) created += h->set(call.argv[i], call.argv[i + 1], lim);
  call.modified(call.argv[1]);
  call.notify(pubsub::kHash, "hset", call.argv[1]);
  if (count_reply) return call.reply.integer(created);
  call.reply.simple("OK");
}

void hset_command(Call& call) { hset_generic(call, true); }
void hmset_command(Call& call) { hset_generic(call, false); }

/* HSETNX key field value */
void hsetnx_command(Call& call) {
  Hash* h = create_or_reply(call, call.argv[1]);
  if (!h) return;
  if (h->get(call.argv[2])) return call.reply.integer(0);
  h->set(call.argv[2], call.argv[3], limits(call));
  call.modified(call.argv[1]);
  call.notify(pubsub::kHash, "hset", call.argv[1]);
  call.reply.integer(1);
}

/* HGET key field */
void hget_command(Call& call) {
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  const auto v = h ? h->get(call.argv[2]) : std::nullopt;
  if (!v) return call.reply.null();
  call.reply.bulk(*v);
}

/* HMGET key field [field ...] */
void hmget_command(Call& call) {
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    const auto v = h ? h->get(call.argv[i]) : std::nullopt;
    if (v) {
      call.reply.bulk(*v);
    } else {
      call.reply.null();
    }
  }
}

/* HDEL key field [field ...] */
void hdel_command(Call& call) {
  bool wrong_type;
  Hash* h = write_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  if (!h) return call.reply.integer(0);
  int64_t deleted = 0;
  bool key_removed = false;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    if (!h->remove(call.argv[i])) continue;
    ++deleted;
    if ((key_removed = delete_if_empty(call, call.argv[1], h))) break;
  }
  if (deleted) {
    call.modified(call.argv[1]);
    call.notify(pubsub::kHash, "hdel", call.argv[1]);
    if (key_removed) call.notify(pubsub::kGeneric, "del", call.argv[1]);
  }
  call.reply.integer(deleted);
}

/* HEXISTS key field */
void hexists_command(Call& call) {
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  call.reply.integer(h && h->get(call.argv[2]) ? 1 : 0);
}

/* HLEN key */
void hlen_command(Call& call) {
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  call.reply.integer(h ? static_cast<int64_t>(h->size()) : 0);
}

/* HSTRLEN key field */
void hstrlen_command(Call& call) {
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  const auto v = h ? h->get(call.argv[2]) : std::nullopt;
  call.reply.integer(v ? static_cast<int64_t>(v->size()) : 0);
}

enum Parts { kFields = 1, kValues = 2 };

/* HKEYS key / HVALS key / HGETALL key */
void hgetall_generic(Call& call, int parts) {
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  const size_t n = h ? h->size() : 0;
  if (parts == (kFields | kValues)) {
    call.reply.map(n);
  } else {
    call.reply.array(n);
  }
  if (!h) return;
  h->for_each([&](std::string_view f, std::string_view v) {
    if (parts & kFields) call.reply.bulk(f);
    if (parts & kValues) call.reply.bulk(v);
  });
}

void hkeys_command(Call& call) { hgetall_generic(call, kFields); }
void hvals_command(Call& call) { hgetall_generic(call, kValues); }
void hgetall_command(Call& call) { hgetall_generic(call, kFields | kValues); }

/* HINCRBY key field increment */
void hincrby_command(Call& call) {
  long long incr;
  if (!integer_or_reply(call, call.argv[3], &incr)) return;
  Hash* h = create_or_reply(call, call.argv[1]);
  if (!h) return;
  long long value = 0;
  if (const auto cur = h->get(call.argv[2]); cur && !string_to_ll(*cur, &value)) return call.error(kHashNotInteger);
  if ((incr < 0 && value < 0 && incr < std::numeric_limits<long long>::min() - value) ||
      (incr > 0 && value > 0 && incr > std::numeric_limits<long long>::max() - value))
    return call.error(kOverflow);
  value += incr;
  h->set(call.argv[2], ll_to_string(value), limits(call), /*keep_ttl=*/true);
  call.modified(call.argv[1]);
  call.notify(pubsub::kHash, "hincrby", call.argv[1]);
  call.reply.integer(value);
}

/* HINCRBYFLOAT key field increment */
void hincrbyfloat_command(Call& call) {
  long double incr;
  if (!long_double_or_reply(call, call.argv[3], &incr)) return;
  if (std::isnan(incr) || std::isinf(incr)) return call.error(kIncrNanOrInfinity);
  Hash* h = create_or_reply(call, call.argv[1]);
  if (!h) return;
  long double value = 0;
  if (const auto cur = h->get(call.argv[2]); cur && !string_to_ld(*cur, &value)) return call.error(kHashNotFloat);
  value += incr;
  if (std::isnan(value) || std::isinf(value)) return call.error(kNanOrInfinity);
  const std::string text = ld_to_string(value);
  h->set(call.argv[2], text, limits(call), /*keep_ttl=*/true);
  call.modified(call.argv[1]);
  call.notify(pubsub::kHash, "hincrbyfloat", call.argv[1]);
  call.reply.bulk(text);
}

// One HRANDFIELD pick: the field, and its value in WITHVALUES (a pair in RESP3).
void reply_pick(Call& call, std::pair<std::string_view, std::string_view> fv, bool withvalues) {
  if (withvalues && call.reply.protocol() == 3) call.reply.array(2);
  call.reply.bulk(fv.first);
  if (withvalues) call.reply.bulk(fv.second);
}

/* HRANDFIELD key [count [WITHVALUES]] */
void hrandfield_command(Call& call) {
  std::mt19937_64& rng = call.data.keyspace.rng();
  if (call.argv.size() == 2) {
    bool wrong_type;
    Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
    if (wrong_type) return;
    if (!h) return call.reply.null();
    return call.reply.bulk(h->random(rng).first);
  }
  long long l;
  if (!integer_or_reply(call, call.argv[2], &l)) return;
  if (l < -std::numeric_limits<long long>::max())
    return call.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  bool withvalues = false;
  if (call.argv.size() > 4 || (call.argv.size() == 4 && !is_option(call.argv[3], "withvalues")))
    return call.error(err::kSyntax);
  if (call.argv.size() == 4) {
    withvalues = true;
    if (l < -std::numeric_limits<long long>::max() / 2 || l > std::numeric_limits<long long>::max() / 2)
      return call.error("ERR value is out of range");
  }
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  if (!h || l == 0) return call.reply.array(0);
  const bool unique = l > 0;
  const uint64_t count = unique ? static_cast<uint64_t>(l) : static_cast<uint64_t>(-l);
  const size_t per_pick = withvalues && call.reply.protocol() == 2 ? 2 : 1;
  // Negative count: that many independent draws, repeats allowed.
  if (!unique || count == 1) {
    call.reply.array(count * per_pick);
    for (uint64_t i = 0; i < count; ++i) reply_pick(call, h->random(rng), withvalues);
    return;
  }
  const size_t size = h->size();
  if (count >= size) {
    call.reply.array(size * per_pick);
    h->for_each([&](std::string_view f, std::string_view v) { reply_pick(call, {f, v}, withvalues); });
    return;
  }
  // count distinct fields out of size: draw positions without repeats.
  std::vector<size_t> positions(size);
  for (size_t i = 0; i < size; ++i) positions[i] = i;
  for (size_t i = 0; i < count; ++i) std::swap(positions[i], positions[i + rng() % (size - i)]);
  positions.resize(count);
  std::sort(positions.begin(), positions.end());
  call.reply.array(count * per_pick);
  size_t index = 0, next = 0;
  h->for_each([&](std::string_view f, std::string_view v) {
    if (next < positions.size() && positions[next] == index) {
      reply_pick(call, {f, v}, withvalues);
      ++next;
    }
    ++index;
  });
}

/* HSCAN key cursor [MATCH pattern] [COUNT count] */
void hscan_command(Call& call) {
  uint64_t cursor;
  if (!scan_cursor_or_reply(call, call.argv[2], &cursor)) return;
  ScanOptions opts;
  if (!scan_options_or_reply(call, 3, /*allow_type=*/false, &opts)) return;
  bool wrong_type;
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  std::vector<std::pair<std::string, std::string>> found;
  if (h) {
    // As Redis's scanGenericCommand: buckets until COUNT pairs, at most 10 x COUNT steps.
    long long steps = opts.count * 10;
    do {
      cursor = h->scan(cursor, [&](std::string_view f, std::string_view v) {
        if (!opts.use_pattern || glob_match(opts.pattern, f)) found.emplace_back(f, v);
      });
    } while (cursor != 0 && steps-- > 0 && static_cast<long long>(found.size()) < opts.count);
  } else {
    cursor = 0;
  }
  call.reply.array(2);
  call.reply.bulk(std::to_string(cursor));
  call.reply.array(found.size() * 2);
  for (const auto& [f, v] : found) {
    call.reply.bulk(f);
    call.reply.bulk(v);
  }
}

constexpr std::string_view kFieldsMissing = "ERR Mandatory argument FIELDS is missing or not at the right position";
constexpr std::string_view kNumFieldsMismatch = "ERR The `numfields` parameter must match the number of arguments";
// Redis 7.4's largest field deadline (EB_EXPIRE_TIME_MAX >> 2), in ms.
constexpr int64_t kMaxFieldDeadline = 0xFFFFFFFFFFFFLL >> 2;

// "FIELDS numfields field..." from argv[at]: the fields, or an error replied.
bool fields_or_reply(Call& call, size_t at, std::string_view count_error, std::span<const std::string_view>* fields) {
  if (at + 1 >= call.argv.size() || !is_option(call.argv[at], "fields")) {
    call.error(kFieldsMissing);
    return false;
  }
  long long n;
  if (!string_to_ll(call.argv[at + 1], &n) || n < 1) {
    call.error(count_error);
    return false;
  }
  if (static_cast<size_t>(n) != call.argv.size() - at - 2) {
    call.error(kNumFieldsMismatch);
    return false;
  }
  *fields = call.argv.subspan(at + 2);
  return true;
}

/* HEXPIRE key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
 * HPEXPIRE, HEXPIREAT, HPEXPIREAT: the same in ms, or absolute.
 * Per field: -2 no such field, 0 condition not met, 1 set, 2 deleted (the
 * time is not in the future). */
void hexpire_generic(Call& call, bool absolute, bool seconds) {
  bool wrong_type;
  Hash* h = write_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  long long t;
  if (!integer_or_reply(call, call.argv[2], &t)) return;
  if (t < 0) return call.error("ERR invalid expire time, must be >= 0");
  const std::string invalid = "ERR invalid expire time in '" + call.spec->name + "' command";
  if (seconds) {
    if (t > kMaxFieldDeadline / 1000) return call.error(invalid);
    t *= 1000;
  }
  const int64_t base = absolute ? 0 : call.now_ms;
  if (t > kMaxFieldDeadline - base) return call.error(invalid);
  const int64_t deadline = t + base;
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
  if (!fields_or_reply(call, at, "ERR Parameter `numFields` should be greater than 0", &fields)) return;
  call.reply.array(fields.size());
  if (!h) {
    for (size_t i = 0; i < fields.size(); ++i) call.reply.integer(Hash::kNoField);
    return;
  }
  size_t updated = 0, deleted = 0;
  for (std::string_view f : fields) {
    const int r = h->set_ttl(f, deadline, absolute ? 0 : t, cond, call.now_ms);
    updated += r == Hash::kSet;
    deleted += r == Hash::kDeleted;
    call.reply.integer(r);
  }
  if (updated + deleted == 0) return;
  const bool emptied = h->empty();
  if (emptied) call.db().remove(call.argv[1]);
  call.modified(call.argv[1]);
  call.notify(pubsub::kHash, deleted ? "hdel" : "hexpire", call.argv[1]);
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
  Hash* h = read_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, 2, "ERR Number of fields must be a positive integer", &fields)) return;
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
  Hash* h = write_or_reply(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, 2, "ERR Number of fields must be a positive integer", &fields)) return;
  call.reply.array(fields.size());
  bool changed = false;
  for (std::string_view f : fields) {
    const int r = h ? h->persist(f) : Hash::kNoField;
    changed |= r == 1;
    call.reply.integer(r);
  }
  if (!changed) return;
  call.modified(call.argv[1]);
  call.notify(pubsub::kHash, "hpersist", call.argv[1]);
}

}  // namespace

void register_hash_commands(CommandTable& t) {
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
    {.name = "hset", .arity = -4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
     .summary = "Sets fields of a hash, creating it if needed",
     .key_flags = "RW update",
     .handler = hset_command},
    {.name = "hsetnx", .arity = 4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Sets a field of a hash only if it is absent",
     .key_flags = "RW insert",
     .handler = hsetnx_command},
    {.name = "hmset", .arity = -4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(N) where N is the number of fields being set.",
     .summary = "Sets fields of a hash (older form of HSET)",
     .key_flags = "RW update",
     .handler = hmset_command},
    {.name = "hget", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Returns the value of a field",
     .key_flags = "RO access",
     .handler = hget_command},
    {.name = "hmget", .arity = -3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(N) where N is the number of fields being requested.",
     .summary = "Returns the values of several fields",
     .key_flags = "RO access",
     .handler = hmget_command},
    {.name = "hdel", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(N) where N is the number of fields to be removed.",
     .summary = "Deletes fields of a hash",
     .key_flags = "RW delete",
     .handler = hdel_command},
    {.name = "hexists", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Tells whether a field exists",
     .key_flags = "RO",
     .handler = hexists_command},
    {.name = "hlen", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Returns the number of fields",
     .key_flags = "RO",
     .handler = hlen_command},
    {.name = "hstrlen", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @hash @fast",
     .group = "hash", .since = "3.2.0", .complexity = "O(1)",
     .summary = "Returns the length of a field's value",
     .key_flags = "RO",
     .handler = hstrlen_command},
    {.name = "hkeys", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @hash @slow",
     .group = "hash", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .summary = "Returns every field name",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = hkeys_command},
    {.name = "hvals", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @hash @slow",
     .group = "hash", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .summary = "Returns every field value",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = hvals_command},
    {.name = "hgetall", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @hash @slow",
     .group = "hash", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .summary = "Returns every field and value",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = hgetall_command},
    {.name = "hincrby", .arity = 4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "2.0.0", .complexity = "O(1)",
     .summary = "Adds an integer to a field's value",
     .key_flags = "RW access update",
     .handler = hincrby_command},
    {.name = "hincrbyfloat", .arity = 4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "2.6.0", .complexity = "O(1)",
     .summary = "Adds a decimal number to a field's value",
     .key_flags = "RW access update",
     .handler = hincrbyfloat_command},
    {.name = "hrandfield", .arity = -2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @hash @slow",
     .group = "hash", .since = "6.2.0", .complexity = "O(N) where N is the number of fields returned",
     .summary = "Returns random fields",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = hrandfield_command},
    {.name = "hscan", .arity = -3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @hash @slow",
     .group = "hash", .since = "2.8.0", .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .summary = "Iterates over fields and values with a cursor",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = hscan_command},
  });
}

}  // namespace lawnkv
