// The list commands (the Cmd of the Op/Cmd split): LPUSH, RPUSH, LPUSHX,
// RPUSHX, LPOP, RPOP, LLEN, LRANGE, LINDEX, LSET, LINSERT, LREM, LTRIM,
// LPOS, LMOVE, RPOPLPUSH, LMPOP and the blocking BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH, BLMPOP. The list itself is types/list.hpp, the keyspace side
// lists_ops.cpp.
//
// Replies and events follow Redis 7.0's t_list.c in order, because a RESP3
// client subscribed to its own keyspace events sees the two interleaved:
// the pushes, pops, LSET and LMOVE reply before they publish; LINSERT,
// LTRIM and LREM publish first. A pop that empties a list deletes the key
// and publishes `del` after the pop's event.
//
// Blocking: a blocking pop that finds nothing calls Call::block; the
// BlockingTable runs it again when one of its keys changes, in the order
// clients blocked. Run again, a key that now holds another type is passed
// over as a missing one (Redis 7.0 serves blocked clients from lists only),
// and the WRONGTYPE of BLMOVE's destination is replied, as Redis replies it
// to the client it serves. Inside MULTI nothing blocks: BLPOP, BRPOP and
// BLMPOP reply a null array, BLMOVE and BRPOPLPUSH a null bulk string.

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/lists_ops.hpp"
#include "commands/time_args.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "expiry/timer.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kCountNegative = "ERR COUNT can't be negative";
constexpr std::string_view kMaxlenNegative = "ERR MAXLEN can't be negative";

using types::List;

constexpr std::string_view kRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
    "or use negative to start from the end of the list";
constexpr std::string_view kIndexRange = "ERR index out of range";

enum class End { kLeft, kRight };

// An integer within [min, max], as Redis's getRangeLongFromObjectOrReply
// reads it: msg (when given) for a non-integer and for one out of range.
bool range_or_reply(Call& call, std::string_view arg, long long min, long long max, std::string_view msg,
                    long long* out) {
  if (!integer_or_reply(call, arg, out, msg)) return false;
  if (*out >= min && *out <= max) return true;
  call.error(msg);
  return false;
}

// LEFT or RIGHT, as strcasecmp compares them; else a syntax error.
bool end_or_reply(Call& call, std::string_view arg, End* end) {
  if (is_option(arg, "left")) {
    *end = End::kLeft;
  } else if (is_option(arg, "right")) {
    *end = End::kRight;
  } else {
    call.error(err::kSyntax);
    return false;
  }
  return true;
}

std::string_view pop_event(End from) { return from == End::kLeft ? "lpop" : "rpop"; }
std::string_view push_event(End to) { return to == End::kLeft ? "lpush" : "rpush"; }

void push(List& l, End to, std::string_view v, const types::ListOptions& opts) {
  if (to == End::kLeft) {
    l.push_front(v, opts);
  } else {
    l.push_back(v, opts);
  }
}

std::string pop(List& l, End from) { return from == End::kLeft ? l.pop_front() : l.pop_back(); }

// Normalises LRANGE/LTRIM's start and stop against a list of len elements,
// as Redis does: negative counts from the end; false if the range is empty.
bool clamp_range(long long len, long long* start, long long* stop) {
  if (*start < 0) *start += len;
  if (*stop < 0) *stop += len;
  if (*start < 0) *start = 0;
  if (*start > *stop || *start >= len) return false;
  if (*stop >= len) *stop = len - 1;
  return true;
}

// Replies the elements [first, first + n) as an array, from the back of the
// range when reverse.
void reply_range(Call& call, const List& l, size_t first, size_t n, bool reverse) {
  call.reply.array(n);
  if (n == 0) return;
  size_t left = n;
  const auto emit = [&](std::string_view v) {
    call.reply.bulk(v);
    return --left > 0;
  };
  if (reverse) {
    l.for_each_back_from(first + n - 1, emit);
  } else {
    l.for_each_from(first, emit);
  }
}

// After elements were popped from key's list: the pop's event, and the key
// deleted (`del`) once the list is empty (Redis's listElementsRemoved).
void popped(Call& call, std::string_view key, List& l, End from) {
  call.notify(pubsub::kList, pop_event(from), key);
  if (l.empty()) {
    call.db().remove(key);
    call.notify(pubsub::kGeneric, "del", key);
  }
  call.modified(key);
}

// Pops up to count elements from one end and replies them as an array, in
// the order they were popped.
void pop_range_reply(Call& call, std::string_view key, List& l, End from, long long count) {
  const size_t n = std::min(static_cast<size_t>(count), l.size());
  reply_range(call, l, from == End::kLeft ? 0 : l.size() - n, n, from == End::kRight);
  if (from == End::kLeft) {
    l.drop_front(n);
  } else {
    l.drop_back(n);
  }
  // LPOP/RPOP of what was taken, whichever form took it (LMPOP, BLMPOP).
  if (call.data.effects.active())
    call.data.effects.replace_own({from == End::kLeft ? "LPOP" : "RPOP", key, std::to_string(n)});
  popped(call, key, l, from);
}

// The [key, [elements]] reply of LMPOP and BLMPOP, popping the elements.
void mpop_reply(Call& call, std::string_view key, List& l, End from, long long count) {
  call.reply.array(2);
  call.reply.bulk(key);
  pop_range_reply(call, key, l, from, count);
}

// The list at key for a blocking command: null when missing or, when the
// command runs again for a blocked client, of another type. Replies
// WRONGTYPE (and *failed is set) when it first runs on another type.
List* blocking_source(Call& call, std::string_view key, bool* failed) {
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  *failed = found.wrong_type && !call.retry;
  if (*failed) call.error(err::kWrongType);
  return found.value;
}

/* LPUSH/RPUSH/LPUSHX/RPUSHX key element [element ...] */
void push_generic(Call& call, End to, bool only_existing) {
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  List* l = found.value;
  if (!l) {
    if (only_existing) return call.reply.integer(0);
    l = &create_list(call, key);
    call.notify(pubsub::kNew, "new", key);
  }
  const types::ListOptions opts = list_options(call);
  for (size_t i = 2; i < call.argv.size(); ++i) push(*l, to, call.argv[i], opts);
  call.reply.integer(static_cast<int64_t>(l->size()));
  call.modified(key, pubsub::kList, push_event(to));
}

void lpush_command(Call& call) { push_generic(call, End::kLeft, false); }
void rpush_command(Call& call) { push_generic(call, End::kRight, false); }
void lpushx_command(Call& call) { push_generic(call, End::kLeft, true); }
void rpushx_command(Call& call) { push_generic(call, End::kRight, true); }

/* LPOP/RPOP key [count] */
void pop_generic(Call& call, End from) {
  if (call.argv.size() > 3) return call.error(err::wrong_arity(call.spec->name));
  const bool has_count = call.argv.size() == 3;
  long long count = 0;
  if (has_count && !range_or_reply(call, call.argv[2], 0, LLONG_MAX, err::kNotPositive, &count)) return;
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  if (!found.value && !found.wrong_type) return has_count ? call.reply.null_array() : call.reply.null();
  if (found.wrong_type) return call.error(err::kWrongType);
  List& l = *found.value;
  if (has_count && count == 0) return call.reply.array(0);
  if (!has_count) {
    call.reply.bulk(pop(l, from));
    return popped(call, key, l, from);
  }
  pop_range_reply(call, key, l, from, count);
}

void lpop_command(Call& call) { pop_generic(call, End::kLeft); }
void rpop_command(Call& call) { pop_generic(call, End::kRight); }

/* LLEN key */
void llen_command(Call& call) {
  const auto found = lookup<types::List>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value ? static_cast<int64_t>(found.value->size()) : 0);
}

/* LRANGE key start stop */
void lrange_command(Call& call) {
  long long start, stop;
  if (!integer_or_reply(call, call.argv[2], &start) || !integer_or_reply(call, call.argv[3], &stop)) return;
  const auto found = lookup<types::List>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.array(0);
  const List& l = *found.value;
  if (!clamp_range(static_cast<long long>(l.size()), &start, &stop)) return call.reply.array(0);
  reply_range(call, l, static_cast<size_t>(start), static_cast<size_t>(stop - start + 1), false);
}

/* LINDEX key index */
void lindex_command(Call& call) {
  const auto found = lookup<types::List>(call, call.argv[1], Intent::kRead);
  if (!found.value && !found.wrong_type) return call.reply.null();
  if (found.wrong_type) return call.error(err::kWrongType);
  long long index;
  if (!integer_or_reply(call, call.argv[2], &index)) return;
  const auto len = static_cast<long long>(found.value->size());
  if (index < 0) index += len;
  if (index < 0 || index >= len) return call.reply.null();
  call.reply.bulk(found.value->at(static_cast<size_t>(index)));
}

/* LSET key index element */
void lset_command(Call& call) {
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  if (!found.value && !found.wrong_type) return call.error(err::kNoSuchKey);
  if (found.wrong_type) return call.error(err::kWrongType);
  long long index;
  if (!integer_or_reply(call, call.argv[2], &index)) return;
  const auto len = static_cast<long long>(found.value->size());
  if (index < 0) index += len;
  if (index < 0 || index >= len) return call.error(kIndexRange);
  found.value->set(static_cast<size_t>(index), call.argv[3], list_options(call));
  call.reply.simple("OK");
  call.modified(key, pubsub::kList, "lset");
}

/* LINSERT key BEFORE|AFTER pivot element */
void linsert_command(Call& call) {
  bool before;
  if (is_option(call.argv[2], "after")) {
    before = false;
  } else if (is_option(call.argv[2], "before")) {
    before = true;
  } else {
    return call.error(err::kSyntax);
  }
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.integer(0);
  if (!found.value->insert_at_pivot(call.argv[3], call.argv[4], before, list_options(call)))
    return call.reply.integer(-1);
  call.modified(key, pubsub::kList, "linsert");
  call.reply.integer(static_cast<int64_t>(found.value->size()));
}

/* LREM key count element */
void lrem_command(Call& call) {
  long long count;
  if (!integer_or_reply(call, call.argv[2], &count)) return;
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.integer(0);
  List& l = *found.value;
  // |LLONG_MIN| does not fit: it asks for more than any list holds anyway.
  const size_t limit = count == LLONG_MIN ? SIZE_MAX : static_cast<size_t>(count < 0 ? -count : count);
  const size_t removed = l.remove_equal(call.argv[3], limit, count < 0);
  if (removed > 0) {
    call.modified(key, pubsub::kList, "lrem");
  }
  if (l.empty()) {
    call.db().remove(key);
    call.notify(pubsub::kGeneric, "del", key);
  }
  call.reply.integer(static_cast<int64_t>(removed));
}

/* LTRIM key start stop */
void ltrim_command(Call& call) {
  long long start, stop;
  if (!integer_or_reply(call, call.argv[2], &start) || !integer_or_reply(call, call.argv[3], &stop)) return;
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::List>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.simple("OK");
  List& l = *found.value;
  const auto len = static_cast<long long>(l.size());
  if (clamp_range(len, &start, &stop)) {
    l.drop_back(static_cast<size_t>(len - stop - 1));
    l.drop_front(static_cast<size_t>(start));
  } else {
    l.drop_front(l.size());
  }
  call.notify(pubsub::kList, "ltrim", key);
  if (l.empty()) {
    call.db().remove(key);
    call.notify(pubsub::kGeneric, "del", key);
  }
  call.modified(key);
  call.reply.simple("OK");
}

/* LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
void lpos_command(Call& call) {
  long long rank = 1, count = -1, maxlen = 0;  // count -1: no COUNT given
  for (size_t j = 3; j < call.argv.size(); ++j) {
    const bool more = j + 1 < call.argv.size();
    if (is_option(call.argv[j], "rank") && more) {
      if (!integer_or_reply(call, call.argv[++j], &rank)) return;
      if (rank == 0) return call.error(kRankZero);
    } else if (is_option(call.argv[j], "count") && more) {
      if (!range_or_reply(call, call.argv[++j], 0, LLONG_MAX, kCountNegative, &count)) return;
    } else if (is_option(call.argv[j], "maxlen") && more) {
      if (!range_or_reply(call, call.argv[++j], 0, LLONG_MAX, kMaxlenNegative, &maxlen)) return;
    } else {
      return call.error(err::kSyntax);
    }
  }
  const bool from_tail = rank < 0;
  // The match to start from. Redis negates LLONG_MIN into itself, which
  // every match count passes: the first match from the tail, as rank -1.
  const unsigned long long skip = !from_tail ? rank : rank == LLONG_MIN ? 1 : -rank;
  const auto found = lookup<types::List>(call, call.argv[1], Intent::kRead);
  if (!found.value && !found.wrong_type) return count != -1 ? call.reply.array(0) : call.reply.null();
  if (found.wrong_type) return call.error(err::kWrongType);
  const List& l = *found.value;
  const std::string_view element = call.argv[2];
  const size_t len = l.size();
  std::vector<int64_t> matches;
  unsigned long long seen = 0, scanned = 0;
  const auto visit = [&](std::string_view v) {
    if (maxlen != 0 && scanned >= static_cast<unsigned long long>(maxlen)) return false;
    const size_t pos = from_tail ? len - 1 - scanned : scanned;
    ++scanned;
    if (v != element || ++seen < skip) return true;
    matches.push_back(static_cast<int64_t>(pos));
    return count == 0 || (count > 0 && matches.size() < static_cast<unsigned long long>(count));
  };
  if (from_tail) {
    if (len > 0) l.for_each_back_from(len - 1, visit);
  } else {
    l.for_each_from(0, visit);
  }
  if (count == -1) return matches.empty() ? call.reply.null() : call.reply.integer(matches.front());
  call.reply.array(matches.size());
  for (int64_t m : matches) call.reply.integer(m);
}

// LMOVE's work once the source is known to hold elements: pops from src,
// pushes on dst (created if missing) and replies the element, with Redis's
// events: the push's, then the pop's, then `del` for an emptied source.
void move_element(Call& call, List& src, End from, End to) {
  const std::string_view src_key = call.argv[1], dst_key = call.argv[2];
  const auto dst = lookup<types::List>(call, dst_key, Intent::kWrite);
  if (dst.wrong_type) return call.error(err::kWrongType);
  const std::string value = pop(src, from);
  // LMOVE, whichever form moved it (RPOPLPUSH, BLMOVE, BRPOPLPUSH).
  call.data.effects.replace_own({"LMOVE", src_key, dst_key, from == End::kLeft ? "LEFT" : "RIGHT",
                                 to == End::kLeft ? "LEFT" : "RIGHT"});
  List* d = dst.value;
  if (!d) {
    // The source itself when src_key == dst_key is never missing here.
    d = &create_list(call, dst_key);
    call.notify(pubsub::kNew, "new", dst_key);
  }
  call.modified(dst_key);
  push(*d, to, value, list_options(call));
  call.notify(pubsub::kList, push_event(to), dst_key);
  call.reply.bulk(value);
  call.notify(pubsub::kList, pop_event(from), src_key);
  // src may be the destination: it is looked up again to know if it is empty.
  const auto again = lookup<types::List>(call, src_key, Intent::kWrite);
  if (again.value && again.value->empty()) {
    call.db().remove(src_key);
    call.notify(pubsub::kGeneric, "del", src_key);
  }
  call.modified(src_key);
}

void lmove_generic(Call& call, End from, End to) {
  const auto src = lookup<types::List>(call, call.argv[1], Intent::kWrite);
  if (!src.value && !src.wrong_type) return call.reply.null();
  if (src.wrong_type) return call.error(err::kWrongType);
  move_element(call, *src.value, from, to);
}

/* LMOVE source destination LEFT|RIGHT LEFT|RIGHT */
void lmove_command(Call& call) {
  End from, to;
  if (!end_or_reply(call, call.argv[3], &from) || !end_or_reply(call, call.argv[4], &to)) return;
  lmove_generic(call, from, to);
}

/* RPOPLPUSH source destination */
void rpoplpush_command(Call& call) { lmove_generic(call, End::kRight, End::kLeft); }

// LMPOP/BLMPOP's arguments from numkeys on: numkeys key [key ...]
// LEFT|RIGHT [COUNT count].
struct MpopArgs {
  std::span<const std::string_view> keys;
  End from = End::kLeft;
  long long count = 1;
};

bool mpop_args_or_reply(Call& call, size_t numkeys_at, MpopArgs* out) {
  long long numkeys;
  if (!range_or_reply(call, call.argv[numkeys_at], 1, LLONG_MAX, err::kNumkeys, &numkeys)) return false;
  const size_t keys_left = call.argv.size() - numkeys_at - 1;
  if (static_cast<unsigned long long>(numkeys) >= keys_left) {
    call.error(err::kSyntax);
    return false;
  }
  const size_t where_at = numkeys_at + 1 + static_cast<size_t>(numkeys);
  out->keys = call.argv.subspan(numkeys_at + 1, static_cast<size_t>(numkeys));
  if (!end_or_reply(call, call.argv[where_at], &out->from)) return false;
  bool counted = false;
  for (size_t j = where_at + 1; j < call.argv.size(); ++j) {
    if (!counted && is_option(call.argv[j], "count") && j + 1 < call.argv.size()) {
      if (!range_or_reply(call, call.argv[++j], 1, LLONG_MAX, err::kCountPositive, &out->count)) return false;
      counted = true;
    } else {
      call.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

/* LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] */
void lmpop_command(Call& call) {
  MpopArgs args;
  if (!mpop_args_or_reply(call, 1, &args)) return;
  for (std::string_view key : args.keys) {
    const auto found = lookup<types::List>(call, key, Intent::kWrite);
    if (found.wrong_type) return call.error(err::kWrongType);
    if (found.value) return mpop_reply(call, key, *found.value, args.from, args.count);
  }
  call.reply.null_array();
}

// BLPOP, BRPOP, BLMPOP once their arguments are read: pops from the first
// key that holds a list, or blocks on all of them. count 0: BLPOP's
// [key, element] reply; else BLMPOP's [key, [elements]].
void blocking_pop(Call& call, std::span<const std::string_view> keys, End from, long long count,
                  int64_t timeout_at) {
  // Run again because one key changed, it tries that key alone: Redis 7.0
  // serves a blocked client from the key that became ready, whatever the
  // order of its keys.
  std::span<const std::string_view> tried = keys;
  if (call.retry && !call.retry->ready_key.empty()) {
    const auto it = std::find(keys.begin(), keys.end(), call.retry->ready_key);
    if (it != keys.end()) tried = keys.subspan(static_cast<size_t>(it - keys.begin()), 1);
  }
  for (std::string_view key : tried) {
    bool failed;
    List* l = blocking_source(call, key, &failed);
    if (failed) return;
    if (!l) continue;
    if (count > 0) return mpop_reply(call, key, *l, from, count);
    call.reply.array(2);
    call.reply.bulk(key);
    call.reply.bulk(pop(*l, from));
    call.data.effects.replace_own({from == End::kLeft ? "LPOP" : "RPOP", key});
    return popped(call, key, *l, from);
  }
  call.block({.keys = keys, .timeout_at_ms = timeout_at, .ready_bound_ms = expiry::kNever});
}

/* BLPOP/BRPOP key [key ...] timeout */
void bpop_generic(Call& call, End from) {
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv.back(), &timeout_at)) return;
  blocking_pop(call, call.argv.subspan(1, call.argv.size() - 2), from, 0, timeout_at);
}

void blpop_command(Call& call) { bpop_generic(call, End::kLeft); }
void brpop_command(Call& call) { bpop_generic(call, End::kRight); }

/* BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] */
void blmpop_command(Call& call) {
  MpopArgs args;
  if (!mpop_args_or_reply(call, 2, &args)) return;
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv[1], &timeout_at)) return;
  blocking_pop(call, args.keys, args.from, args.count, timeout_at);
}

// BLMOVE and BRPOPLPUSH once their arguments are read.
void blmove_generic(Call& call, End from, End to, int64_t timeout_at) {
  bool failed;
  List* src = blocking_source(call, call.argv[1], &failed);
  if (failed) return;
  if (src) return move_element(call, *src, from, to);
  // Not allowed to block (MULTI, scripts): the reply is a null bulk string here.
  if (!call.may_block() && !call.retry) return call.reply.null();
  call.block({.keys = call.argv.subspan(1, 1), .timeout_at_ms = timeout_at, .ready_bound_ms = expiry::kNever});
}

/* BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout */
void blmove_command(Call& call) {
  End from, to;
  if (!end_or_reply(call, call.argv[3], &from) || !end_or_reply(call, call.argv[4], &to)) return;
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv[5], &timeout_at)) return;
  blmove_generic(call, from, to, timeout_at);
}

/* BRPOPLPUSH source destination timeout */
void brpoplpush_command(Call& call) {
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv[3], &timeout_at)) return;
  blmove_generic(call, End::kRight, End::kLeft, timeout_at);
}

}  // namespace

void register_list_commands(CommandTable& t) {
  t.add({
    {.name = "blmove", .arity = 6, .flags = kWrite | kDenyOom | kNoscript | kBlocking, .keys = {1, 2, 1},
     .acl = "@write @list @slow @blocking",
     .group = "list", .since = "6.2.0", .complexity = "O(1)",
     .summary = "Moves an element from one list to another, waiting for one if the source is empty",
     .key_flags = "RW access delete;RW insert",
     .handler = blmove_command},
    {.name = "blmpop", .arity = -5, .flags = kWrite | kBlocking | kMovableKeys, .keynum = {2, 1, 1},
     .acl = "@write @list @slow @blocking",
     .group = "list", .since = "7.0.0",
     .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned",
     .summary = "Pops elements from the first non-empty list, waiting for one if all are empty",
     .key_flags = "RW access delete",
     .handler = blmpop_command},
    {.name = "blpop", .arity = -3, .flags = kWrite | kNoscript | kBlocking, .keys = {1, -2, 1},
     .acl = "@write @list @slow @blocking",
     .group = "list", .since = "2.0.0", .complexity = "O(N) where N is the number of provided keys",
     .summary = "Pops the first element of the first non-empty list, waiting for one if all are empty",
     .key_flags = "RW access delete",
     .handler = blpop_command},
    {.name = "brpop", .arity = -3, .flags = kWrite | kNoscript | kBlocking, .keys = {1, -2, 1},
     .acl = "@write @list @slow @blocking",
     .group = "list", .since = "2.0.0", .complexity = "O(N) where N is the number of provided keys",
     .summary = "Pops the last element of the first non-empty list, waiting for one if all are empty",
     .key_flags = "RW access delete",
     .handler = brpop_command},
    {.name = "brpoplpush", .arity = 4, .flags = kWrite | kDenyOom | kNoscript | kBlocking, .keys = {1, 2, 1},
     .acl = "@write @list @slow @blocking",
     .group = "list", .since = "2.2.0", .complexity = "O(1)",
     .summary = "Moves the last element of a list to the head of another, waiting for one if needed",
     .key_flags = "RW access delete;RW insert",
     .handler = brpoplpush_command},
    {.name = "lindex", .arity = 3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @list @slow",
     .group = "list", .since = "1.0.0",
     .complexity = "O(N) where N is the number of elements to traverse to get to the element at index",
     .summary = "Returns the element at an index of a list",
     .key_flags = "RO access",
     .handler = lindex_command},
    {.name = "linsert", .arity = 5, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "2.2.0",
     .complexity = "O(N) where N is the number of elements to traverse before seeing the value pivot",
     .summary = "Inserts an element before or after the first element equal to a pivot",
     .key_flags = "RW insert",
     .handler = linsert_command},
    {.name = "llen", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @list @fast",
     .group = "list", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns the length of a list",
     .key_flags = "RO",
     .handler = llen_command},
    {.name = "lmove", .arity = 5, .flags = kWrite | kDenyOom, .keys = {1, 2, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "6.2.0", .complexity = "O(1)",
     .summary = "Pops an element from one end of a list and pushes it on an end of another",
     .key_flags = "RW access delete;RW insert",
     .handler = lmove_command},
    {.name = "lmpop", .arity = -4, .flags = kWrite | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "7.0.0",
     .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned",
     .summary = "Pops elements from the first non-empty list",
     .key_flags = "RW access delete",
     .handler = lmpop_command},
    {.name = "lpop", .arity = -2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @list @fast",
     .group = "list", .since = "1.0.0", .complexity = "O(N) where N is the number of elements returned",
     .summary = "Pops elements from the head of a list, deleting it once empty",
     .key_flags = "RW access delete",
     .handler = lpop_command},
    {.name = "lpos", .arity = -3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @list @slow",
     .group = "list", .since = "6.0.6",
     .complexity = "O(N) where N is the number of elements in the list, for the average case",
     .summary = "Returns the indexes of the elements equal to a value",
     .key_flags = "RO access",
     .handler = lpos_command},
    {.name = "lpush", .arity = -3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @list @fast",
     .group = "list", .since = "1.0.0", .complexity = "O(1) for each element added",
     .summary = "Prepends elements to a list, creating it if missing",
     .key_flags = "RW insert",
     .handler = lpush_command},
    {.name = "lpushx", .arity = -3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @list @fast",
     .group = "list", .since = "2.2.0", .complexity = "O(1) for each element added",
     .summary = "Prepends elements to a list that exists",
     .key_flags = "RW insert",
     .handler = lpushx_command},
    {.name = "lrange", .arity = 4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @list @slow",
     .group = "list", .since = "1.0.0",
     .complexity = "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end "
                   "(HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
     .summary = "Returns a range of elements of a list",
     .key_flags = "RO access",
     .handler = lrange_command},
    {.name = "lrem", .arity = 4, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "1.0.0",
     .complexity = "O(N+M) where N is the length of the list and M is the number of elements removed.",
     .summary = "Removes elements equal to a value, deleting the list once empty",
     .key_flags = "RW delete",
     .handler = lrem_command},
    {.name = "lset", .arity = 4, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "1.0.0",
     .complexity = "O(N) where N is the length of the list. Setting either the first or the last element of "
                   "the list is O(1).",
     .summary = "Replaces the element at an index of a list",
     .key_flags = "RW update",
     .handler = lset_command},
    {.name = "ltrim", .arity = 4, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "1.0.0", .complexity = "O(N) where N is the number of elements to be removed",
     .summary = "Keeps only a range of elements of a list, deleting it once empty",
     .key_flags = "RW delete",
     .handler = ltrim_command},
    {.name = "rpop", .arity = -2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @list @fast",
     .group = "list", .since = "1.0.0", .complexity = "O(N) where N is the number of elements returned",
     .summary = "Pops elements from the tail of a list, deleting it once empty",
     .key_flags = "RW access delete",
     .handler = rpop_command},
    {.name = "rpoplpush", .arity = 3, .flags = kWrite | kDenyOom, .keys = {1, 2, 1},
     .acl = "@write @list @slow",
     .group = "list", .since = "1.2.0", .complexity = "O(1)",
     .summary = "Moves the last element of a list to the head of another",
     .key_flags = "RW access delete;RW insert",
     .handler = rpoplpush_command},
    {.name = "rpush", .arity = -3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @list @fast",
     .group = "list", .since = "1.0.0", .complexity = "O(1) for each element added",
     .summary = "Appends elements to a list, creating it if missing",
     .key_flags = "RW insert",
     .handler = rpush_command},
    {.name = "rpushx", .arity = -3, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @list @fast",
     .group = "list", .since = "2.2.0", .complexity = "O(1) for each element added",
     .summary = "Appends elements to a list that exists",
     .key_flags = "RW insert",
     .handler = rpushx_command},
  });
}

}  // namespace lawnkv
