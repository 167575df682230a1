// The sorted-set commands on one key and the pops (the Cmd of the Op/Cmd
// split): ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK,
// ZCOUNT, ZLEXCOUNT, ZRANDMEMBER, ZSCAN, ZPOPMIN, ZPOPMAX, ZMPOP and the
// blocking BZPOPMIN, BZPOPMAX, BZMPOP. The ranges are zsets_ranges.cpp, the
// operations over several sets zsets_algebra.cpp, the sorted set itself
// types/zset.hpp.
//
// Replies and events follow Redis 7.0's t_zset.c in order: ZADD replies,
// then publishes `zadd` / `zincr` (also after a NaN error, for the members
// changed before it); the pops write their reply's header, publish
// `zpopmin` / `zpopmax`, write the members, then publish `del` if the set is
// gone. A blocking pop that cannot be served blocks on all its keys
// (blocking.hpp) and runs again when one changes; while it waits, a key of
// another type counts as empty, as Redis serves only sorted sets to it.

#include <algorithm>
#include <climits>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "commands/families.hpp"
#include "commands/remove_members.hpp"
#include "commands/scan_args.hpp"
#include "commands/time_args.hpp"
#include "commands/zsets_ops.hpp"
#include "core/glob.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "expiry/timer.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kXxAndNx = "ERR XX and NX options at the same time are not compatible";
constexpr std::string_view kGtLtNx = "ERR GT, LT, and/or NX options at the same time are not compatible";
constexpr std::string_view kIncrOnePair = "ERR INCR option supports a single increment-element pair";

using types::ZSet;

constexpr std::string_view kNan = "ERR resulting score is not a number (NaN)";

// A double as getDoubleFromObjectOrReply reads it (string2d).
bool score_or_reply(Call& call, std::string_view arg, double* out) {
  if (string_to_double(arg, out)) return true;
  call.error(err::kNotFloat);
  return false;
}

/* ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...],
 * and ZINCRBY key increment member (the same code with INCR set, as Redis:
 * so ZINCRBY key nx member reads "nx" as an option). */
void zadd_generic(Call& call, unsigned flags) {
  const std::string_view key = call.argv[1];
  size_t at = 2;
  bool ch = false;
  for (; at < call.argv.size(); ++at) {
    const std::string_view opt = call.argv[at];
    if (is_option(opt, "nx")) flags |= types::kZAddNx;
    else if (is_option(opt, "xx")) flags |= types::kZAddXx;
    else if (is_option(opt, "ch")) ch = true;
    else if (is_option(opt, "incr")) flags |= types::kZAddIncr;
    else if (is_option(opt, "gt")) flags |= types::kZAddGt;
    else if (is_option(opt, "lt")) flags |= types::kZAddLt;
    else break;
  }
  const size_t args = call.argv.size() - at;
  if (args == 0 || args % 2 != 0) return call.error(err::kSyntax);
  const bool incr = flags & types::kZAddIncr, nx = flags & types::kZAddNx, xx = flags & types::kZAddXx;
  const bool gt = flags & types::kZAddGt, lt = flags & types::kZAddLt;
  if (nx && xx) return call.error(kXxAndNx);
  if ((gt && nx) || (lt && nx) || (gt && lt))
    return call.error(kGtLtNx);
  if (incr && args > 2) return call.error(kIncrOnePair);
  // Every score is read before any member is added, as Redis does: a bad
  // one refuses the whole command. A few live on the stack.
  const size_t pairs = args / 2;
  double few[8];
  std::vector<double> many(pairs > std::size(few) ? pairs : 0);
  double* const scores = many.empty() ? few : many.data();
  for (size_t i = 0; i < pairs; ++i)
    if (!score_or_reply(call, call.argv[at + 2 * i], &scores[i])) return;

  const auto found = lookup<types::ZSet>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  const types::ZSetOptions opts = zset_options(call);
  ZSet* z = found.value;
  int64_t added = 0, updated = 0, processed = 0;
  double score = 0;
  if (!z && !xx) {
    // The first member decides whether a new set starts as a skiplist.
    const bool big = opts.max_listpack_entries == 0 || call.argv[at + 1].size() > opts.max_listpack_value;
    auto fresh = std::make_unique<ZSet>(big, big ? opts.seed() : 1);
    z = fresh.get();
    call.db().add_object(key, std::move(fresh));
    call.notify(pubsub::kNew, "new", key);
  }
  bool nan = false;
  for (size_t i = 0; z && i < pairs; ++i) {
    double newscore = 0;
    switch (z->add(call.argv[at + 2 * i + 1], scores[i], flags, opts, &newscore)) {
      case types::ZAddResult::kNan: nan = true; break;
      case types::ZAddResult::kAdded: ++added, ++processed; break;
      case types::ZAddResult::kUpdated: ++updated, ++processed; break;
      case types::ZAddResult::kSame: ++processed; break;
      case types::ZAddResult::kNop: break;
    }
    if (nan) break;
    score = newscore;
  }
  if (nan) {
    call.error(kNan);
  } else if (incr) {
    if (processed) {
      call.reply.dbl(score);
    } else {
      call.reply.null();
    }
  } else {
    call.reply.integer(ch ? added + updated : added);
  }
  if (added || updated) {
    call.modified(key, pubsub::kZset, incr ? "zincr" : "zadd");
  }
}

void zincrby_command(Call& call) { zadd_generic(call, types::kZAddIncr); }

/* ZREM key member [member ...] */
void zrem_command(Call& call) {
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  remove_members(call, found.value, pubsub::kZset, "zrem");
}

/* ZCARD key */
void zcard_command(Call& call) {
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value ? static_cast<int64_t>(found.value->size()) : 0);
}

/* ZSCORE key member */
void zscore_command(Call& call) {
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  const std::optional<double> s = found.value ? found.value->score(call.argv[2]) : std::nullopt;
  if (!s) return call.reply.null();
  call.reply.dbl(*s);
}

/* ZMSCORE key member [member ...] */
void zmscore_command(Call& call) {
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    const std::optional<double> s = found.value ? found.value->score(call.argv[i]) : std::nullopt;
    if (s) {
      call.reply.dbl(*s);
    } else {
      call.reply.null();
    }
  }
}

/* ZRANK key member, ZREVRANK key member */
void zrank_generic(Call& call, bool reverse) {
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  const std::optional<size_t> r = found.value ? found.value->rank(call.argv[2]) : std::nullopt;
  if (!r) return call.reply.null();
  call.reply.integer(static_cast<int64_t>(reverse ? found.value->size() - 1 - *r : *r));
}
void zrank_command(Call& call) { zrank_generic(call, false); }
void zrevrank_command(Call& call) { zrank_generic(call, true); }

/* ZCOUNT key min max */
void zcount_command(Call& call) {
  ScoreRange range;
  if (!parse_score_range(call.argv[2], call.argv[3], &range)) return call.error(kBadScoreRange);
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value ? static_cast<int64_t>(rank_span(*found.value, range).size()) : 0);
}

/* ZLEXCOUNT key min max */
void zlexcount_command(Call& call) {
  LexRange range;
  if (!parse_lex_range(call.argv[2], call.argv[3], &range)) return call.error(kBadLexRange);
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  call.reply.integer(found.value ? static_cast<int64_t>(rank_span(*found.value, range).size()) : 0);
}

// One member at rank r, with its score.
std::pair<std::string_view, double> at_rank(const ZSet& z, size_t r) {
  std::pair<std::string_view, double> out;
  z.walk(r, r + 1, false, [&](std::string_view m, double s) { out = {m, s}; });
  return out;
}

/* ZRANDMEMBER key count [WITHSCORES] (count given) */
void zrandmember_count(Call& call) {
  long long count;
  if (!integer_or_reply(call, call.argv[2], &count)) return;
  if (count == LLONG_MIN) return call.error(err::kCountRange);
  bool with_scores = false;
  if (call.argv.size() > 4 || (call.argv.size() == 4 && !is_option(call.argv[3], "withscores")))
    return call.error(err::kSyntax);
  if (call.argv.size() == 4) {
    with_scores = true;
    if (count < -LLONG_MAX / 2 || count > LLONG_MAX / 2) return call.error(err::kOutOfRange);
  }
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value || count == 0) return call.reply.array(0);
  const ZSet& z = *found.value;
  auto& rng = call.data.keyspace.rng();
  // Negative: that many draws, repeats allowed, in draw order.
  if (count < 0 || count == 1) {
    const size_t n = count < 0 ? static_cast<size_t>(-count) : 1;
    reply_ranks_header(call, n, with_scores);
    for (size_t i = 0; i < n; ++i) {
      const auto [m, s] = at_rank(z, rng() % z.size());
      reply_ranked(call, m, s, with_scores);
    }
    return;
  }
  // At least the whole set: the whole set, highest first (Redis walks a
  // sorted set from its tail here).
  if (static_cast<size_t>(count) >= z.size()) {
    reply_ranks_header(call, z.size(), with_scores);
    z.walk(0, z.size(), true, [&](std::string_view m, double s) { reply_ranked(call, m, s, with_scores); });
    return;
  }
  // Distinct ranks, in the order drawn (Floyd's sampling).
  std::vector<size_t> ranks;
  std::unordered_set<size_t> taken;
  const size_t n = static_cast<size_t>(count), size = z.size();
  for (size_t j = size - n; j < size; ++j) {
    const size_t t = rng() % (j + 1);
    const size_t pick = taken.insert(t).second ? t : j;
    if (pick == j) taken.insert(j);
    ranks.push_back(pick);
  }
  std::shuffle(ranks.begin(), ranks.end(), rng);
  reply_ranks_header(call, n, with_scores);
  for (size_t r : ranks) {
    const auto [m, s] = at_rank(z, r);
    reply_ranked(call, m, s, with_scores);
  }
}

/* ZRANDMEMBER key [count [WITHSCORES]] */
void zrandmember_command(Call& call) {
  if (call.argv.size() >= 3) return zrandmember_count(call);
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.null();
  call.reply.bulk(at_rank(*found.value, call.data.keyspace.rng()() % found.value->size()).first);
}

/* ZSCAN key cursor [MATCH pattern] [COUNT count]
 * As SSCAN: a listpack comes whole with cursor 0 and its scores as the
 * listpack stores them (d2string); a skiplist's scores are "%.17Lg". */
void zscan_command(Call& call) {
  uint64_t cursor;
  if (!scan_cursor_or_reply(call, call.argv[2], &cursor)) return;
  const auto found = lookup<types::ZSet>(call, call.argv[1], Intent::kRead);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return reply_empty_scan(call);
  ScanOptions opts;
  if (!scan_options_or_reply(call, 3, false, &opts)) return;
  const ZSet& z = *found.value;
  std::vector<std::pair<std::string, std::string>> items;
  if (z.is_listpack()) {
    z.walk(0, z.size(), false, [&](std::string_view m, double s) { items.emplace_back(m, d_to_string(s)); });
    cursor = 0;
  } else {
    const size_t count = static_cast<size_t>(opts.count);
    long long max_steps = opts.count > std::numeric_limits<long long>::max() / 10
                              ? std::numeric_limits<long long>::max()
                              : opts.count * 10;
    do {
      cursor = z.scan(cursor, [&](std::string_view m, double s) {
        char buf[64];
        const int n = std::snprintf(buf, sizeof(buf), "%.17Lg", static_cast<long double>(s));
        items.emplace_back(m, std::string(buf, static_cast<size_t>(n)));
      });
    } while (cursor != 0 && max_steps-- > 0 && items.size() < count);
  }
  if (opts.use_pattern) {
    std::erase_if(items, [&](const auto& it) { return !glob_match(opts.pattern, it.first); });
  }
  call.reply.array(2);
  call.reply.bulk(std::to_string(cursor));
  call.reply.array(items.size() * 2);
  for (const auto& [m, s] : items) {
    call.reply.bulk(m);
    call.reply.bulk(s);
  }
}

// How a pop's reply is shaped (Redis's genericZpopCommand arguments).
struct PopShape {
  bool max = false;          // ZPOPMAX / BZPOPMAX / MAX
  bool emit_key = false;     // the key first (blocking pops, ZMPOP)
  bool nested = false;       // [member, score] arrays
};

// Pops up to count members (count -1: one, the plain form) of the
// non-empty z at key, replying as shape says.
void pop_and_reply(Call& call, std::string_view key, ZSet& z, long long count, const PopShape& shape) {
  const size_t n = std::min(static_cast<size_t>(count == -1 ? 1 : count), z.size());
  if (!shape.nested && !shape.emit_key) {
    call.reply.array(n * 2);
  } else if (shape.nested && !shape.emit_key) {
    call.reply.array(n);
  } else if (!shape.nested) {
    call.reply.array(n * 2 + 1);
    call.reply.bulk(key);
  } else {
    call.reply.array(2);
    call.reply.bulk(key);
    call.reply.array(n);
  }
  // ZPOPMIN/ZPOPMAX of what is taken, whichever form takes it: a blocking
  // or multi-key pop replays without blocking or choosing.
  if (call.data.effects.active())
    call.data.effects.replace_own({shape.max ? "ZPOPMAX" : "ZPOPMIN", key, std::to_string(n)});
  // The event goes before the members, as Redis publishes it on the first
  // member popped; nothing it reaches reads the set, so the members are
  // written straight from it and only then removed.
  call.notify(pubsub::kZset, shape.max ? "zpopmax" : "zpopmin", key);
  call.modified(key);
  const size_t start = shape.max ? z.size() - n : 0;
  z.walk(start, start + n, shape.max, [&](std::string_view m, double s) {
    if (shape.nested) call.reply.array(2);
    call.reply.bulk(m);
    call.reply.dbl(s);
  });
  z.erase_ranks(start, start + n);
  if (z.empty()) {
    call.db().remove(key);
    call.notify(pubsub::kGeneric, "del", key);
  }
}

/* ZPOPMIN key [count], ZPOPMAX key [count] */
void zpop_generic(Call& call, bool max) {
  if (call.argv.size() > 3) return call.error(err::kSyntax);
  long long count = -1;
  if (call.argv.size() == 3) {
    if (!integer_or_reply(call, call.argv[2], &count, err::kNotPositive)) return;
    if (count < 0) return call.error(err::kNotPositive);
  }
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::ZSet>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value || count == 0) return call.reply.array(0);
  pop_and_reply(call, key, *found.value, count, {.max = max, .nested = call.session.protocol > 2 && count != -1});
}
void zpopmin_command(Call& call) { zpop_generic(call, false); }
void zpopmax_command(Call& call) { zpop_generic(call, true); }

// Pops from the first non-empty sorted set of keys, or blocks on them all
// (block) or replies a null array. A key of another type is WRONGTYPE, but
// only counts as empty for a blocked command run again.
void pop_first_or_block(Call& call, std::span<const std::string_view> keys, long long count, const PopShape& shape,
                        const int64_t* timeout_at) {
  for (std::string_view key : keys) {
    const auto found = lookup<types::ZSet>(call, key, Intent::kWrite);
    if (found.wrong_type) {
      if (call.retry) continue;
      return call.error(err::kWrongType);
    }
    if (!found.value) continue;
    return pop_and_reply(call, key, *found.value, count, shape);
  }
  if (!timeout_at) return call.reply.null_array();
  call.block({.keys = keys, .timeout_at_ms = *timeout_at, .ready_bound_ms = expiry::kNever});
}

/* BZPOPMIN key [key ...] timeout, BZPOPMAX key [key ...] timeout */
void bzpop_generic(Call& call, bool max) {
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv.back(), &timeout_at)) return;
  pop_first_or_block(call, call.argv.subspan(1, call.argv.size() - 2), -1, {.max = max, .emit_key = true},
                     &timeout_at);
}
void bzpopmin_command(Call& call) { bzpop_generic(call, false); }
void bzpopmax_command(Call& call) { bzpop_generic(call, true); }

/* ZMPOP numkeys key [key ...] MIN|MAX [COUNT count], and BZMPOP timeout
 * numkeys ... (numkeys at argv[first]) */
void zmpop_generic(Call& call, size_t first, bool blocking) {
  long long numkeys;
  if (!integer_or_reply(call, call.argv[first], &numkeys, err::kNumkeys)) return;
  if (numkeys < 1) return call.error(err::kNumkeys);
  const size_t where_at = first + 1 + static_cast<size_t>(numkeys);
  if (numkeys >= static_cast<long long>(call.argv.size()) || where_at >= call.argv.size())
    return call.error(err::kSyntax);
  PopShape shape{.emit_key = true, .nested = true};
  if (is_option(call.argv[where_at], "max")) {
    shape.max = true;
  } else if (!is_option(call.argv[where_at], "min")) {
    return call.error(err::kSyntax);
  }
  long long count = -1;
  for (size_t j = where_at + 1; j < call.argv.size(); ++j) {
    if (count == -1 && is_option(call.argv[j], "count") && j + 1 < call.argv.size()) {
      if (!integer_or_reply(call, call.argv[++j], &count, err::kCountPositive)) return;
      if (count < 1) return call.error(err::kCountPositive);
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (count == -1) count = 1;
  const auto keys = call.argv.subspan(first + 1, static_cast<size_t>(numkeys));
  if (!blocking) return pop_first_or_block(call, keys, count, shape, nullptr);
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv[1], &timeout_at)) return;
  pop_first_or_block(call, keys, count, shape, &timeout_at);
}
void zmpop_command(Call& call) { zmpop_generic(call, 1, false); }
void bzmpop_command(Call& call) { zmpop_generic(call, 2, true); }

}  // namespace

void zadd_command(Call& call) { zadd_generic(call, types::kZAddNone); }

void register_zset_commands(CommandTable& t) {
  t.add({
    {.name = "zadd", .arity = -4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @sortedset @fast",
     .group = "sorted_set", .since = "1.2.0", .complexity = "O(log(N)) for each member added or updated",
     .summary = "Adds members with scores to a sorted set, or changes their scores, creating it if needed",
     .key_flags = "RW update",
     .handler = zadd_command},
    {.name = "zincrby", .arity = 4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @sortedset @fast",
     .group = "sorted_set", .since = "1.2.0", .complexity = "O(log(N))",
     .summary = "Adds an increment to a member's score, adding the member if needed",
     .key_flags = "RW access update",
     .handler = zincrby_command},
    {.name = "zrem", .arity = -3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @sortedset @fast",
     .group = "sorted_set", .since = "1.2.0", .complexity = "O(M*log(N)) for M members removed",
     .summary = "Removes members from a sorted set, deleting it once empty",
     .key_flags = "RW delete",
     .handler = zrem_command},
    {.name = "zcard", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "1.2.0", .complexity = "O(1)",
     .summary = "Returns how many members a sorted set has",
     .key_flags = "RO",
     .handler = zcard_command},
    {.name = "zscore", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "1.2.0", .complexity = "O(1)",
     .summary = "Returns a member's score",
     .key_flags = "RO access",
     .handler = zscore_command},
    {.name = "zmscore", .arity = -3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "6.2.0", .complexity = "O(N) where N is the number of members asked about",
     .summary = "Returns the scores of several members",
     .key_flags = "RO access",
     .handler = zmscore_command},
    {.name = "zrank", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "2.0.0", .complexity = "O(log(N))",
     .summary = "Returns a member's position in ascending order of score",
     .key_flags = "RO access",
     .handler = zrank_command},
    {.name = "zrevrank", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "2.0.0", .complexity = "O(log(N))",
     .summary = "Returns a member's position in descending order of score",
     .key_flags = "RO access",
     .handler = zrevrank_command},
    {.name = "zcount", .arity = 4, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "2.0.0", .complexity = "O(log(N))",
     .summary = "Counts the members whose score lies in a range",
     .key_flags = "RO access",
     .handler = zcount_command},
    {.name = "zlexcount", .arity = 4, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @sortedset @fast",
     .group = "sorted_set", .since = "2.8.9", .complexity = "O(log(N))",
     .summary = "Counts the members between two member names, among members of equal score",
     .key_flags = "RO access",
     .handler = zlexcount_command},
    {.name = "zrandmember", .arity = -2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "6.2.0",
     .complexity = "O(N) where N is the number of members returned",
     .summary = "Returns random members of a sorted set, with their scores if asked",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = zrandmember_command},
    {.name = "zscan", .arity = -3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "2.8.0", .complexity = "O(1) per call, O(N) for a whole iteration",
     .summary = "Iterates over the members and scores of a sorted set with a cursor",
     .tips = "nondeterministic_output",
     .key_flags = "RO access",
     .handler = zscan_command},
    {.name = "zpopmin", .arity = -2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @sortedset @fast",
     .group = "sorted_set", .since = "5.0.0", .complexity = "O(log(N)*M) for M members popped",
     .summary = "Removes the members with the lowest scores and returns them",
     .key_flags = "RW access delete",
     .handler = zpopmin_command},
    {.name = "zpopmax", .arity = -2, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@write @sortedset @fast",
     .group = "sorted_set", .since = "5.0.0", .complexity = "O(log(N)*M) for M members popped",
     .summary = "Removes the members with the highest scores and returns them",
     .key_flags = "RW access delete",
     .handler = zpopmax_command},
    {.name = "zmpop", .arity = -4, .flags = kWrite | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "7.0.0", .complexity = "O(K) + O(M*log(N)) for K keys and M members popped",
     .summary = "Pops the lowest or highest scored members of the first non-empty sorted set",
     .key_flags = "RW access delete",
     .handler = zmpop_command},
    {.name = "bzpopmin", .arity = -3, .flags = kWrite | kNoscript | kBlocking | kFast, .keys = {1, -2, 1},
     .acl = "@write @sortedset @fast @blocking",
     .group = "sorted_set", .since = "5.0.0", .complexity = "O(log(N)) with N the size of the sorted set",
     .summary = "Pops the lowest scored member of the first non-empty sorted set, or waits for one",
     .key_flags = "RW access delete",
     .handler = bzpopmin_command},
    {.name = "bzpopmax", .arity = -3, .flags = kWrite | kNoscript | kBlocking | kFast, .keys = {1, -2, 1},
     .acl = "@write @sortedset @fast @blocking",
     .group = "sorted_set", .since = "5.0.0", .complexity = "O(log(N)) with N the size of the sorted set",
     .summary = "Pops the highest scored member of the first non-empty sorted set, or waits for one",
     .key_flags = "RW access delete",
     .handler = bzpopmax_command},
    {.name = "bzmpop", .arity = -5, .flags = kWrite | kBlocking | kMovableKeys, .keynum = {2, 1, 1},
     .acl = "@write @sortedset @slow @blocking",
     .group = "sorted_set", .since = "7.0.0", .complexity = "O(K) + O(M*log(N)) for K keys and M members popped",
     .summary = "Pops members of the first non-empty sorted set, or waits for one",
     .key_flags = "RW access delete",
     .handler = bzmpop_command},
  });
  add_zset_range_commands(t);
  add_zset_algebra_commands(t);
}

}  // namespace lawnkv
