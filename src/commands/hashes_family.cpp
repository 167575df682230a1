// Hash commands: HSET, HSETNX, HMSET, HGET, HMGET, HDEL, HEXISTS, HLEN,
// HSTRLEN, HKEYS, HVALS, HGETALL, HINCRBY, HINCRBYFLOAT, HRANDFIELD, HSCAN,
// with Redis 7.0's replies, errors and keyspace events (hset, hdel, hincrby,
// hincrbyfloat; del when a hash empties), and Redis 8.0's HGETDEL. The value
// is types::Hash; the fields' TTLs are hash_ttl_family.cpp's.
//
// A field is gone once now > its deadline. The expiry engine reaps it within
// a millisecond; until then every command here finds due fields of the hash
// it touches and removes them first (hashes_ops.hpp), so no reply ever shows
// an expired field and HLEN is exact (Redis 7.4's HLEN counts expired fields
// not yet reaped).

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/hashes_ops.hpp"
#include "commands/remove_members.hpp"
#include "commands/scan_args.hpp"
#include "core/glob.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/hash.hpp"

namespace lawnkv {

namespace {

using types::Hash;

constexpr std::string_view kHashNotInteger = "ERR hash value is not an integer";
constexpr std::string_view kHashNotFloat = "ERR hash value is not a float";
constexpr std::string_view kIncrNanOrInfinity = "ERR value is NaN or Infinity";

/* HSET key field value [field value ...]
 * HMSET key field value [field value ...] */
void hset_generic(Call& call, bool count_reply) {
  if (call.argv.size() % 2 == 1) return call.error(err::wrong_arity(call.spec->name));
  Hash* h = hash_or_create(call, call.argv[1]);
  if (!h) return;
  int64_t created = 0;
  const Hash::Limits lim = hash_limits(call);
  for (size_t i = 2; i < call.argv.size(); i += 2) created += h->set(call.argv[i], call.argv[i + 1], lim);
  call.modified(call.argv[1], pubsub::kHash, "hset");
  if (count_reply) return call.reply.integer(created);
  call.reply.simple("OK");
}

void hset_command(Call& call) { hset_generic(call, true); }
void hmset_command(Call& call) { hset_generic(call, false); }

/* HSETNX key field value */
void hsetnx_command(Call& call) {
  Hash* h = hash_or_create(call, call.argv[1]);
  if (!h) return;
  if (h->get(call.argv[2])) return call.reply.integer(0);
  h->set(call.argv[2], call.argv[3], hash_limits(call));
  call.modified(call.argv[1], pubsub::kHash, "hset");
  call.reply.integer(1);
}

/* HGET key field */
void hget_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  const auto v = h ? h->get(call.argv[2]) : std::nullopt;
  if (!v) return call.reply.null();
  call.reply.bulk(*v);
}

/* HMGET key field [field ...] */
void hmget_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
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
  Hash* h = hash_for_write(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  remove_members(call, h, pubsub::kHash, "hdel");
}

/* HGETDEL key FIELDS numfields field [field ...] (Redis 8.0): the values,
 * as HMGET, and the fields that had one deleted. */
void hgetdel_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_write(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  std::span<const std::string_view> fields;
  if (!fields_or_reply(call, 2, kNumFieldsNotPositive, &fields)) return;
  call.reply.array(fields.size());
  size_t deleted = 0;
  for (std::string_view f : fields) {
    const auto v = h ? h->get(f) : std::nullopt;
    if (!v) {
      call.reply.null();
      continue;
    }
    call.reply.bulk(*v);
    h->remove(f);
    ++deleted;
  }
  if (deleted == 0) return;
  const bool key_removed = delete_hash_if_empty(call, call.argv[1], h);
  call.modified(call.argv[1], pubsub::kHash, "hdel");
  if (key_removed) call.notify(pubsub::kGeneric, "del", call.argv[1]);
}

/* HEXISTS key field */
void hexists_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  call.reply.integer(h && h->get(call.argv[2]) ? 1 : 0);
}

/* HLEN key */
void hlen_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  call.reply.integer(h ? static_cast<int64_t>(h->size()) : 0);
}

/* HSTRLEN key field */
void hstrlen_command(Call& call) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  const auto v = h ? h->get(call.argv[2]) : std::nullopt;
  call.reply.integer(v ? static_cast<int64_t>(v->size()) : 0);
}

enum Parts { kFields = 1, kValues = 2 };

/* HKEYS key / HVALS key / HGETALL key */
void hgetall_generic(Call& call, int parts) {
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
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
  Hash* h = hash_or_create(call, call.argv[1]);
  if (!h) return;
  long long value = 0;
  if (const auto cur = h->get(call.argv[2]); cur && !string_to_ll(*cur, &value)) return call.error(kHashNotInteger);
  if ((incr < 0 && value < 0 && incr < std::numeric_limits<long long>::min() - value) ||
      (incr > 0 && value > 0 && incr > std::numeric_limits<long long>::max() - value))
    return call.error(err::kOverflow);
  value += incr;
  h->set(call.argv[2], ll_to_string(value), hash_limits(call), /*keep_ttl=*/true);
  call.modified(call.argv[1], pubsub::kHash, "hincrby");
  call.reply.integer(value);
}

/* HINCRBYFLOAT key field increment */
void hincrbyfloat_command(Call& call) {
  long double incr;
  if (!long_double_or_reply(call, call.argv[3], &incr)) return;
  if (std::isnan(incr) || std::isinf(incr)) return call.error(kIncrNanOrInfinity);
  Hash* h = hash_or_create(call, call.argv[1]);
  if (!h) return;
  long double value = 0;
  if (const auto cur = h->get(call.argv[2]); cur && !string_to_ld(*cur, &value)) return call.error(kHashNotFloat);
  value += incr;
  if (std::isnan(value) || std::isinf(value)) return call.error(err::kNanOrInfinity);
  const std::string text = ld_to_string(value);
  h->set(call.argv[2], text, hash_limits(call), /*keep_ttl=*/true);
  call.modified(call.argv[1], pubsub::kHash, "hincrbyfloat");
  call.reply.bulk(text);
  // The value as written: HSET as Redis 7.0 propagates it (a redis-server
  // 7.0 replica knows no HSETEX), or, when the field has a TTL to keep,
  // HSETEX ... KEEPTTL as Redis 8.0 propagates it.
  if (h->ttl_fields() > 0 && h->deadline_of(call.argv[2]) >= 0)
    call.data.effects.replace_own({"HSETEX", call.argv[1], "KEEPTTL", "FIELDS", "1", call.argv[2], text});
  else
    call.data.effects.replace_own({"HSET", call.argv[1], call.argv[2], text});
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
    Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
    if (wrong_type) return;
    if (!h) return call.reply.null();
    return call.reply.bulk(h->random(rng).first);
  }
  long long l;
  if (!integer_or_reply(call, call.argv[2], &l)) return;
  if (l < -std::numeric_limits<long long>::max())
    return call.error(err::kCountRange);
  bool withvalues = false;
  if (call.argv.size() > 4 || (call.argv.size() == 4 && !is_option(call.argv[3], "withvalues")))
    return call.error(err::kSyntax);
  if (call.argv.size() == 4) {
    withvalues = true;
    if (l < -std::numeric_limits<long long>::max() / 2 || l > std::numeric_limits<long long>::max() / 2)
      return call.error(err::kOutOfRange);
  }
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
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

/* HSCAN key cursor [MATCH pattern] [COUNT count]
 * As Redis's scanGenericCommand: the key is looked up before the options
 * are read, so a missing key answers an empty scan whatever they say. */
void hscan_command(Call& call) {
  uint64_t cursor;
  if (!scan_cursor_or_reply(call, call.argv[2], &cursor)) return;
  bool wrong_type;
  Hash* h = hash_for_read(call, call.argv[1], &wrong_type);
  if (wrong_type) return;
  if (!h) return reply_empty_scan(call);
  ScanOptions opts;
  if (!scan_options_or_reply(call, 3, /*allow_type=*/false, &opts)) return;
  std::vector<std::pair<std::string, std::string>> found;
  // Buckets until COUNT pairs, at most 10 x COUNT steps.
  long long steps = opts.count > std::numeric_limits<long long>::max() / 10 ? std::numeric_limits<long long>::max()
                                                                             : opts.count * 10;
  do {
    cursor = h->scan(cursor, [&](std::string_view f, std::string_view v) {
      if (!opts.use_pattern || glob_match(opts.pattern, f)) found.emplace_back(f, v);
    });
  } while (cursor != 0 && steps-- > 0 && static_cast<long long>(found.size()) < opts.count);
  call.reply.array(2);
  call.reply.bulk(std::to_string(cursor));
  call.reply.array(found.size() * 2);
  for (const auto& [f, v] : found) {
    call.reply.bulk(f);
    call.reply.bulk(v);
  }
}

}  // namespace

void register_hash_commands(CommandTable& t) {
  t.add({
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
    {.name = "hgetdel", .arity = -5, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @hash @fast",
     .group = "hash", .since = "8.0.0", .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the values of fields and deletes them",
     .key_flags = "RW access delete",
     .handler = hgetdel_command},
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
