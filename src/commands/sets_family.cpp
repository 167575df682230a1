// The set commands (the Cmd of the Op/Cmd split): SADD, SREM, SCARD,
// SISMEMBER, SMISMEMBER, SMEMBERS, SRANDMEMBER, SPOP, SMOVE, SINTER,
// SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE, SSCAN.
// The set itself is types/set.hpp, the operations over several sets
// types/set_algebra.hpp, the keyspace side (lookups, storing a result)
// sets_ops.cpp.
//
// Replies and events follow Redis 7.0's t_set.c in order, because a RESP3
// client subscribed to its own keyspace events sees the two interleaved:
// SADD, SREM, SMOVE publish before they reply; SPOP publishes `spop`, replies,
// then publishes `del`; the STORE commands reply before their `sinterstore`
// (...) or `del` event, except SINTERSTORE's shortcut for a missing source,
// which deletes the destination first. Members come out in the set's order:
// ascending for an intset, which clients observe; sets are RESP3 sets (~)
// where Redis sends them, SRANDMEMBER's and SSCAN's members arrays.

#include <algorithm>
#include <climits>
#include <limits>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/remove_members.hpp"
#include "commands/scan_args.hpp"
#include "commands/sets_ops.hpp"
#include "core/glob.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/set_algebra.hpp"

namespace lawnkv {

namespace {

using types::Member;
using types::Set;


void reply_member(Call& call, const Member& m) {
  char buf[kLongStrSize];
  call.reply.bulk(m.text(buf));
}

// A whole set as a RESP3 set (an array in RESP2), in its order.
void reply_set(Call& call, const Set& s) {
  call.reply.set(s.size());
  s.for_each([&](const Member& m) { reply_member(call, m); });
}

// An integer >= 0, as getPositiveLongFromObjectOrReply reads it: one error
// text for a non-integer and for a negative.
bool positive_or_reply(Call& call, std::string_view arg, long long* out, std::string_view msg = err::kNotPositive) {
  if (!integer_or_reply(call, arg, out, msg)) return false;
  if (*out >= 0) return true;
  call.error(msg);
  return false;
}

// The STORE commands' end, once the result is built: the result at dst
// (`new` if created, then the reply, then `event`), or, if empty, the
// reply 0 and dst deleted (`del`).
void store_result(Call& call, std::string_view dst, std::unique_ptr<Set> result, std::string_view event) {
  if (result->empty()) {
    call.reply.integer(0);
    if (call.db().remove(dst)) {
      call.modified(dst, pubsub::kGeneric, "del");
    }
    return;
  }
  const int64_t size = static_cast<int64_t>(result->size());
  if (store_set(call, dst, std::move(result))) call.notify(pubsub::kNew, "new", dst);
  call.modified(dst);
  call.reply.integer(size);
  call.notify(pubsub::kSet, event, dst);
}

bool any_missing(const std::vector<const Set*>& sets) {
  return std::find(sets.begin(), sets.end(), nullptr) != sets.end();
}

/* SADD key member [member ...] */
void sadd_command(Call& call) {
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::Set>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  const types::SetOptions opts = set_options(call);
  Set* s = found.value;
  if (!s) {
    s = &create_set(call, key);
    call.notify(pubsub::kNew, "new", key);
  }
  int64_t added = 0;
  for (size_t i = 2; i < call.argv.size(); ++i) added += s->add(call.argv[i], opts);
  if (added > 0) {
    call.modified(key, pubsub::kSet, "sadd");
  }
  call.reply.integer(added);
}

/* SREM key member [member ...] */
void srem_command(Call& call) {
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  remove_members(call, found.value, pubsub::kSet, "srem");
}

/* SMOVE source destination member */
void smove_command(Call& call) {
  const std::string_view src_key = call.argv[1], dst_key = call.argv[2], member = call.argv[3];
  const auto src = lookup<types::Set>(call, src_key, Intent::kWrite);
  const auto dst = lookup<types::Set>(call, dst_key, Intent::kWrite);
  // A missing source answers 0 before any type is checked.
  if (!src.value && !src.wrong_type) return call.reply.integer(0);
  if (src.wrong_type || dst.wrong_type) return call.error(err::kWrongType);
  if (src.value == dst.value) return call.reply.integer(src.value->contains(member) ? 1 : 0);
  if (!src.value->remove(member)) return call.reply.integer(0);
  call.notify(pubsub::kSet, "srem", src_key);
  if (src.value->empty()) {
    call.db().remove(src_key);
    call.notify(pubsub::kGeneric, "del", src_key);
  }
  const types::SetOptions opts = set_options(call);
  Set* d = dst.value;
  if (!d) {
    d = &create_set(call, dst_key);
    call.notify(pubsub::kNew, "new", dst_key);
  }
  call.modified(src_key);
  if (d->add(member, opts)) {
    call.modified(dst_key, pubsub::kSet, "sadd");
  }
  call.reply.integer(1);
}

/* SCARD key */
void scard_command(Call& call) {
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value ? static_cast<int64_t>(found.value->size()) : 0);
}

/* SISMEMBER key member */
void sismember_command(Call& call) {
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value && found.value->contains(call.argv[2]) ? 1 : 0);
}

/* SMISMEMBER key member [member ...] */
void smismember_command(Call& call) {
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i)
    call.reply.integer(found.value && found.value->contains(call.argv[i]) ? 1 : 0);
}

/* SPOP key count (count given) */
void spop_count(Call& call) {
  const std::string_view key = call.argv[1];
  long long count;
  if (!positive_or_reply(call, call.argv[2], &count)) return;
  const auto found = lookup<types::Set>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value || count == 0) return call.reply.set(0);
  Set& s = *found.value;
  call.notify(pubsub::kSet, "spop", key);
  if (static_cast<size_t>(count) >= s.size()) {
    // The whole set, listed as SUNION of the one key lists it (Redis runs
    // SUNION here, read lookup included): ascending when every member is
    // an integer and an intset could hold them all.
    const Set* one[] = {lookup<types::Set>(call, key, Intent::kRead).value};
    reply_set(call, *types::union_of(one, set_options(call)));
    call.db().remove(key);
    call.notify(pubsub::kGeneric, "del", key);
    call.modified(key);
    call.data.effects.replace_own({"DEL", key});
    return;
  }
  std::vector<std::string> popped;
  popped.reserve(static_cast<size_t>(count));
  s.pop_many(static_cast<size_t>(count), set_options(call), call.data.keyspace.rng(),
             [&](const Member& m) { popped.push_back(m.to_string()); });
  call.reply.set(popped.size());
  for (const std::string& m : popped) call.reply.bulk(m);
  call.modified(key);
  // What was drawn, not the draw.
  if (call.data.effects.active()) {
    std::vector<std::string> srem{"SREM", std::string(key)};
    srem.insert(srem.end(), popped.begin(), popped.end());
    call.data.effects.replace_own(std::move(srem));
  }
}

/* SPOP key [count] */
void spop_command(Call& call) {
  if (call.argv.size() == 3) return spop_count(call);
  if (call.argv.size() > 3) return call.error(err::kSyntax);
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::Set>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.null();
  Set& s = *found.value;
  // The event first: it names no member, and the reply must follow it.
  call.notify(pubsub::kSet, "spop", key);
  s.pop_random(call.data.keyspace.rng(), [&](const Member& m) {
    char buf[kLongStrSize];
    const std::string_view member = m.text(buf);
    call.data.effects.replace_own({"SREM", key, member});
    call.reply.bulk(member);
  });
  if (s.empty()) {
    call.db().remove(key);
    call.notify(pubsub::kGeneric, "del", key);
  }
  call.modified(key);
}

/* SRANDMEMBER key count (count given) */
void srandmember_count(Call& call) {
  long long count;
  if (!integer_or_reply(call, call.argv[2], &count)) return;
  if (count == LLONG_MIN) return call.error(err::kCountRange);
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value || count == 0) return call.reply.array(0);
  const Set& s = *found.value;
  auto& rng = call.data.keyspace.rng();
  // Negative: that many draws, repeats allowed, in draw order.
  if (count < 0 || count == 1) {
    const size_t n = count < 0 ? static_cast<size_t>(-count) : 1;
    call.reply.array(n);
    for (size_t i = 0; i < n; ++i) reply_member(call, s.random(rng));
    return;
  }
  // At least the whole set: the whole set, in its order.
  if (static_cast<size_t>(count) >= s.size()) {
    call.reply.array(s.size());
    s.for_each([&](const Member& m) { reply_member(call, m); });
    return;
  }
  const std::vector<Member> picked = types::sample_distinct(s, static_cast<size_t>(count), rng);
  call.reply.array(picked.size());
  for (const Member& m : picked) reply_member(call, m);
}

/* SRANDMEMBER key [count] */
void srandmember_command(Call& call) {
  if (call.argv.size() == 3) return srandmember_count(call);
  if (call.argv.size() > 3) return call.error(err::kSyntax);
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.null();
  reply_member(call, found.value->random(call.data.keyspace.rng()));
}

/* SINTER key [key ...], and SMEMBERS key (Redis serves both with one
 * function) */
void sinter_command(Call& call) {
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(1), &sets)) return call.error(err::kWrongType);
  if (any_missing(sets)) return call.reply.set(0);
  std::vector<Member> members;
  types::intersect(sets, 0, [&](const Member& m) { members.push_back(m); });
  call.reply.set(members.size());
  for (const Member& m : members) reply_member(call, m);
}

/* SINTERCARD numkeys key [key ...] [LIMIT limit] */
void sintercard_command(Call& call) {
  long long numkeys;
  if (!integer_or_reply(call, call.argv[1], &numkeys, err::kNumkeys)) return;
  if (numkeys < 1) return call.error(err::kNumkeys);
  if (numkeys > static_cast<long long>(call.argv.size()) - 2) return call.error(err::kTooManyKeys);
  long long limit = 0;
  for (size_t i = 2 + static_cast<size_t>(numkeys); i < call.argv.size(); ++i) {
    const bool has_value = i + 1 < call.argv.size();
    if (!has_value || !is_option(call.argv[i], "limit")) return call.error(err::kSyntax);
    if (!positive_or_reply(call, call.argv[++i], &limit, err::kLimitNegative)) return;
  }
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(2, static_cast<size_t>(numkeys)), &sets))
    return call.error(err::kWrongType);
  if (any_missing(sets)) return call.reply.integer(0);
  call.reply.integer(static_cast<int64_t>(types::intersect(sets, static_cast<size_t>(limit), [](const Member&) {})));
}

/* SINTERSTORE destination key [key ...] */
void sinterstore_command(Call& call) {
  const std::string_view dst = call.argv[1];
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(2), &sets)) return call.error(err::kWrongType);
  if (any_missing(sets)) {
    // Redis's shortcut: the destination goes before the reply.
    if (call.db().remove(dst)) {
      call.modified(dst, pubsub::kGeneric, "del");
    }
    return call.reply.integer(0);
  }
  const types::SetOptions opts = set_options(call);
  auto result = std::make_unique<Set>();
  types::intersect(sets, 0, [&](const Member& m) { result->add(m, opts); });
  store_result(call, dst, std::move(result), "sinterstore");
}

/* SUNION key [key ...] */
void sunion_command(Call& call) {
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(1), &sets)) return call.error(err::kWrongType);
  reply_set(call, *types::union_of(sets, set_options(call)));
}

/* SUNIONSTORE destination key [key ...] */
void sunionstore_command(Call& call) {
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(2), &sets)) return call.error(err::kWrongType);
  store_result(call, call.argv[1], types::union_of(sets, set_options(call)), "sunionstore");
}

/* SDIFF key [key ...] */
void sdiff_command(Call& call) {
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(1), &sets)) return call.error(err::kWrongType);
  reply_set(call, *types::difference_of(sets, set_options(call)));
}

/* SDIFFSTORE destination key [key ...] */
void sdiffstore_command(Call& call) {
  std::vector<const Set*> sets;
  if (!sets_for_read(call, call.argv.subspan(2), &sets)) return call.error(err::kWrongType);
  store_result(call, call.argv[1], types::difference_of(sets, set_options(call)), "sdiffstore");
}

/* SSCAN key cursor [MATCH pattern] [COUNT count]
 * As Redis: the cursor is checked first, options only once the key is
 * found; an intset comes whole in one reply with cursor 0. */
void sscan_command(Call& call) {
  uint64_t cursor;
  if (!scan_cursor_or_reply(call, call.argv[2], &cursor)) return;
  const auto found = lookup<types::Set>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return reply_empty_scan(call);
  ScanOptions opts;
  if (!scan_options_or_reply(call, 3, false, &opts)) return;
  const Set& s = *found.value;
  std::vector<std::string> members;
  if (s.is_intset()) {
    s.for_each([&](const Member& m) { members.push_back(m.to_string()); });
    cursor = 0;
  } else {
    const size_t count = static_cast<size_t>(opts.count);
    long long max_steps = opts.count > std::numeric_limits<long long>::max() / 10
                              ? std::numeric_limits<long long>::max()
                              : opts.count * 10;
    do {
      cursor = s.scan(cursor, [&](std::string_view m) { members.emplace_back(m); });
    } while (cursor != 0 && max_steps-- > 0 && members.size() < count);
  }
  if (opts.use_pattern) {
    std::erase_if(members, [&](const std::string& m) { return !glob_match(opts.pattern, m); });
  }
  call.reply.array(2);
  call.reply.bulk(std::to_string(cursor));
  call.reply.array_of_bulks(members);
}

}  // namespace

void register_set_commands(CommandTable& t) {
  t.add({
    {.name = "sadd", .arity = -3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @set @fast",
     .group = "set", .since = "1.0.0", .complexity = "O(1) for each member added",
     .summary = "Adds members to a set, creating it if needed",
     .key_flags = "RW insert",
     .handler = sadd_command},
    {.name = "scard", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @set @fast",
     .group = "set", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns how many members a set has",
     .key_flags = "RO",
     .handler = scard_command},
    {.name = "sdiff", .arity = -2, .flags = kReadonly, .keys = {1, -1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "1.0.0", .complexity = "O(N) where N is the total number of members of all the sets",
     .summary = "Returns the members of the first set that no other set holds",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = sdiff_command},
    {.name = "sdiffstore", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, -1, 1},
     .acl = "@write @set @slow",
     .group = "set", .since = "1.0.0", .complexity = "O(N) where N is the total number of members of all the sets",
     .summary = "Stores the members of the first set that no other set holds",
     .key_flags = "OW update;RO access",
     .handler = sdiffstore_command},
    {.name = "sinter", .arity = -2, .flags = kReadonly, .keys = {1, -1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "1.0.0",
     .complexity = "O(N*M) worst case where N is the size of the smallest set and M the number of sets",
     .summary = "Returns the members every set holds",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = sinter_command},
    {.name = "sintercard", .arity = -3, .flags = kReadonly | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "7.0.0",
     .complexity = "O(N*M) worst case where N is the size of the smallest set and M the number of sets",
     .summary = "Counts the members every set holds, up to a limit",
     .key_flags = "RO access",
     .handler = sintercard_command},
    {.name = "sinterstore", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, -1, 1},
     .acl = "@write @set @slow",
     .group = "set", .since = "1.0.0",
     .complexity = "O(N*M) worst case where N is the size of the smallest set and M the number of sets",
     .summary = "Stores the members every set holds",
     .key_flags = "RW update;RO access",
     .handler = sinterstore_command},
    {.name = "sismember", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @set @fast",
     .group = "set", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Tells whether a set holds a member",
     .key_flags = "RO",
     .handler = sismember_command},
    {.name = "smembers", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "1.0.0", .complexity = "O(N) where N is the size of the set",
     .summary = "Returns every member of a set",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = sinter_command},
    {.name = "smismember", .arity = -3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @set @fast",
     .group = "set", .since = "6.2.0", .complexity = "O(N) where N is the number of members asked about",
     .summary = "Tells for each member whether a set holds it",
     .key_flags = "RO access",
     .handler = smismember_command},
    {.name = "smove", .arity = 4, .flags = kWrite | kFast, .keys = {1, 2, 1},
     .acl = "@write @set @fast",
     .group = "set", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Moves a member from one set to another",
     .key_flags = "RW access delete;RW insert",
     .handler = smove_command},
    {.name = "spop", .arity = -2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @set @fast",
     .group = "set", .since = "1.0.0",
     .complexity = "O(1) without a count, else O(N) where N is the count",
     .summary = "Removes random members of a set and returns them",
     .tips = "nondeterministic_output",
     .key_flags = "RW access delete",
     .handler = spop_command},
    {.name = "srandmember", .arity = -2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "1.0.0",
     .complexity = "O(1) without a count, else O(N) where N is the count's absolute value",
     .summary = "Returns random members of a set",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = srandmember_command},
    {.name = "srem", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @set @fast",
     .group = "set", .since = "1.0.0", .complexity = "O(N) where N is the number of members to remove",
     .summary = "Removes members from a set, deleting it once empty",
     .key_flags = "RW delete",
     .handler = srem_command},
    {.name = "sscan", .arity = -3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "2.8.0", .complexity = "O(1) per call, O(N) for a whole iteration",
     .summary = "Iterates over the members of a set with a cursor",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = sscan_command},
    {.name = "sunion", .arity = -2, .flags = kReadonly, .keys = {1, -1, 1},
     .acl = "@read @set @slow",
     .group = "set", .since = "1.0.0", .complexity = "O(N) where N is the total number of members of all the sets",
     .summary = "Returns the members any of the sets holds",
     .tips = "nondeterministic_output_order",
     .key_flags = "RO access",
     .handler = sunion_command},
    {.name = "sunionstore", .arity = -3, .flags = kWrite | kDenyOom, .keys = {1, -1, 1},
     .acl = "@write @set @slow",
     .group = "set", .since = "1.0.0", .complexity = "O(N) where N is the total number of members of all the sets",
     .summary = "Stores the members any of the sets holds",
     .key_flags = "OW update;RO access",
     .handler = sunionstore_command},
  });
}

}  // namespace lawnkv
