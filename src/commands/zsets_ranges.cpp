// The sorted-set range commands: ZRANGE (BYSCORE, BYLEX, REV, LIMIT,
// WITHSCORES), ZRANGESTORE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX,
// ZREVRANGEBYLEX, ZREVRANGE, ZREMRANGEBYRANK, ZREMRANGEBYSCORE,
// ZREMRANGEBYLEX. Each range becomes ranks (zsets_ops.hpp rank_span), then
// a walk over them, as Redis 7.0's zrangeGenericCommand reads its arguments:
// options first, then the range, then the key.

#include <algorithm>
#include <memory>
#include <string>

#include "commands/zsets_ops.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kLimitNeedsBy =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
constexpr std::string_view kWithscoresByLex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";

using types::ZSet;

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// The ranks a rank range (start, stop, negatives from the end) covers in a
// set of llen members, as Redis sanitises them.
RankSpan rank_range(long long start, long long end, long long llen) {
  if (start < 0) start += llen;
  if (end < 0) end += llen;
  if (start < 0) start = 0;
  if (start > end || start >= llen) return {};
  if (end >= llen) end = llen - 1;
  return {static_cast<size_t>(start), static_cast<size_t>(end) + 1};
}

// A LIMIT offset count applied to the ranks of a score or lex range, walked
// from its low end or (reverse) its high end: the ranks it keeps. A
// negative offset keeps nothing; a negative count, everything after offset.
RankSpan limit_span(RankSpan span, long long offset, long long limit, bool reverse) {
  if (offset < 0 || static_cast<size_t>(offset) >= span.size()) return {};
  size_t n = span.size() - static_cast<size_t>(offset);
  if (limit >= 0) n = std::min(n, static_cast<size_t>(limit));
  if (!reverse) return {span.lo + static_cast<size_t>(offset), span.lo + static_cast<size_t>(offset) + n};
  return {span.hi - static_cast<size_t>(offset) - n, span.hi - static_cast<size_t>(offset)};
}

/* The body of ZRANGE and its relatives: ZRANGE key min max [BYSCORE|BYLEX]
 * [REV] [LIMIT offset count] [WITHSCORES], with the key at argv[first]
 * (ZRANGESTORE: first 2, dst at 1, no WITHSCORES). type and dir are fixed
 * by the older commands (ZRANGEBYSCORE...) and kAuto for ZRANGE. */
void zrange_generic(Call& call, size_t first, bool store, RangeType type, Direction dir) {
  size_t min_at = first + 1, max_at = first + 2;
  bool with_scores = false;
  long long offset = 0, limit = -1;
  for (size_t j = first + 3; j < call.argv.size(); ++j) {
    const size_t left = call.argv.size() - j - 1;
    const std::string_view opt = call.argv[j];
    if (!store && is_option(opt, "withscores")) {
      with_scores = true;
    } else if (is_option(opt, "limit") && left >= 2) {
      if (!integer_or_reply(call, call.argv[j + 1], &offset) || !integer_or_reply(call, call.argv[j + 2], &limit))
        return;
      j += 2;
    } else if (dir == Direction::kAuto && is_option(opt, "rev")) {
      dir = Direction::kReverse;
    } else if (type == RangeType::kAuto && is_option(opt, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && is_option(opt, "byscore")) {
      type = RangeType::kScore;
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (dir == Direction::kAuto) dir = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  const bool reverse = dir == Direction::kReverse;
  if (limit != -1 && type == RangeType::kRank)
    return call.error(kLimitNeedsBy);
  if (with_scores && type == RangeType::kLex)
    return call.error(kWithscoresByLex);
  if (reverse && type != RangeType::kRank) std::swap(min_at, max_at);

  long long start = 0, end = 0;
  ScoreRange scores;
  LexRange lex;
  switch (type) {
    case RangeType::kScore:
      if (!parse_score_range(call.argv[min_at], call.argv[max_at], &scores)) return call.error(kBadScoreRange);
      break;
    case RangeType::kLex:
      if (!parse_lex_range(call.argv[min_at], call.argv[max_at], &lex)) return call.error(kBadLexRange);
      break;
    default:
      if (!integer_or_reply(call, call.argv[min_at], &start) || !integer_or_reply(call, call.argv[max_at], &end))
        return;
  }

  const auto found = lookup<types::ZSet>(call, call.argv[first], Intent::kRead);
  if (!found.value && !found.wrong_type) {
    if (store) return store_zset_result(call, call.argv[1], std::make_unique<ZSet>(), "zrangestore");
    return call.reply.array(0);
  }
  if (found.wrong_type) return call.error(err::kWrongType);
  const ZSet& z = *found.value;
  RankSpan span;
  switch (type) {
    case RangeType::kScore: span = limit_span(rank_span(z, scores), offset, limit, reverse); break;
    case RangeType::kLex: span = limit_span(rank_span(z, lex), offset, limit, reverse); break;
    default: span = rank_range(start, end, static_cast<long long>(z.size()));
  }
  // Rank ranges count from the end when reversed.
  if (reverse && type == RangeType::kRank && span.size() > 0) span = {z.size() - span.hi, z.size() - span.lo};

  if (store) {
    // As Redis: a listpack unless a rank range is known to be too long,
    // converted as it grows.
    const types::ZSetOptions opts = zset_options(call);
    const bool big = type == RangeType::kRank && span.size() > opts.max_listpack_entries;
    auto result = std::make_unique<ZSet>(big, big ? opts.seed() : 1);
    z.walk(span.lo, span.hi, reverse,
           [&](std::string_view m, double s) { result->add(m, s, types::kZAddNone, opts); });
    return store_zset_result(call, call.argv[1], std::move(result), "zrangestore");
  }
  reply_ranks_header(call, span.size(), with_scores);
  z.walk(span.lo, span.hi, reverse, [&](std::string_view m, double s) { reply_ranked(call, m, s, with_scores); });
}

void zrange_command(Call& call) { zrange_generic(call, 1, false, RangeType::kAuto, Direction::kAuto); }
void zrangestore_command(Call& call) { zrange_generic(call, 2, true, RangeType::kAuto, Direction::kAuto); }
void zrevrange_command(Call& call) { zrange_generic(call, 1, false, RangeType::kRank, Direction::kReverse); }
void zrangebyscore_command(Call& call) { zrange_generic(call, 1, false, RangeType::kScore, Direction::kForward); }
void zrevrangebyscore_command(Call& call) {
  zrange_generic(call, 1, false, RangeType::kScore, Direction::kReverse);
}
void zrangebylex_command(Call& call) { zrange_generic(call, 1, false, RangeType::kLex, Direction::kForward); }
void zrevrangebylex_command(Call& call) { zrange_generic(call, 1, false, RangeType::kLex, Direction::kReverse); }

/* ZREMRANGEBYRANK key start stop, ZREMRANGEBYSCORE key min max,
 * ZREMRANGEBYLEX key min max */
void zremrange_generic(Call& call, RangeType type) {
  long long start = 0, end = 0;
  ScoreRange scores;
  LexRange lex;
  std::string_view event;
  switch (type) {
    case RangeType::kScore:
      event = "zremrangebyscore";
      if (!parse_score_range(call.argv[2], call.argv[3], &scores)) return call.error(kBadScoreRange);
      break;
    case RangeType::kLex:
      event = "zremrangebylex";
      if (!parse_lex_range(call.argv[2], call.argv[3], &lex)) return call.error(kBadLexRange);
      break;
    default:
      event = "zremrangebyrank";
      if (!integer_or_reply(call, call.argv[2], &start) || !integer_or_reply(call, call.argv[3], &end)) return;
  }
  const std::string_view key = call.argv[1];
  const auto found = lookup<types::ZSet>(call, key, Intent::kWrite);
  if (found.wrong_type) return call.error(err::kWrongType);
  if (!found.value) return call.reply.integer(0);
  ZSet& z = *found.value;
  RankSpan span;
  switch (type) {
    case RangeType::kScore: span = rank_span(z, scores); break;
    case RangeType::kLex: span = rank_span(z, lex); break;
    default: span = rank_range(start, end, static_cast<long long>(z.size()));
  }
  const size_t removed = span.size();
  if (removed) {
    z.erase_ranks(span.lo, span.hi);
    const bool key_removed = z.empty();
    if (key_removed) call.db().remove(key);
    call.modified(key, pubsub::kZset, event);
    if (key_removed) call.notify(pubsub::kGeneric, "del", key);
  }
  call.reply.integer(static_cast<int64_t>(removed));
}

void zremrangebyrank_command(Call& call) { zremrange_generic(call, RangeType::kRank); }
void zremrangebyscore_command(Call& call) { zremrange_generic(call, RangeType::kScore); }
void zremrangebylex_command(Call& call) { zremrange_generic(call, RangeType::kLex); }

}  // namespace

void add_zset_range_commands(CommandTable& t) {
  t.add({
    {.name = "zrange", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "1.2.0",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members returned",
     .summary = "Returns members in a range of ranks, scores or member names",
     .key_flags = "RO access",
     .handler = zrange_command},
    {.name = "zrangestore", .arity = -5, .flags = kWrite | kDenyOom, .keys = {1, 2, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "6.2.0",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members stored",
     .summary = "Stores members in a range of ranks, scores or member names in another key",
     .key_flags = "OW update;RO access",
     .handler = zrangestore_command},
    {.name = "zrevrange", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "1.2.0",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members returned",
     .summary = "Returns members in a range of ranks, highest score first",
     .key_flags = "RO access",
     .handler = zrevrange_command},
    {.name = "zrangebyscore", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "1.0.5",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members returned",
     .summary = "Returns members in a range of scores",
     .key_flags = "RO access",
     .handler = zrangebyscore_command},
    {.name = "zrevrangebyscore", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "2.2.0",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members returned",
     .summary = "Returns members in a range of scores, highest first",
     .key_flags = "RO access",
     .handler = zrevrangebyscore_command},
    {.name = "zrangebylex", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "2.8.9",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members returned",
     .summary = "Returns members between two member names, among members of equal score",
     .key_flags = "RO access",
     .handler = zrangebylex_command},
    {.name = "zrevrangebylex", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "2.8.9",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members returned",
     .summary = "Returns members between two member names, in reverse order",
     .key_flags = "RO access",
     .handler = zrevrangebylex_command},
    {.name = "zremrangebyrank", .arity = 4, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "2.0.0",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members removed",
     .summary = "Removes the members in a range of ranks",
     .key_flags = "RW delete",
     .handler = zremrangebyrank_command},
    {.name = "zremrangebyscore", .arity = 4, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "1.2.0",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members removed",
     .summary = "Removes the members in a range of scores",
     .key_flags = "RW delete",
     .handler = zremrangebyscore_command},
    {.name = "zremrangebylex", .arity = 4, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "2.8.9",
     .complexity = "O(log(N)+M) with N the size of the sorted set and M the members removed",
     .summary = "Removes the members between two member names, among members of equal score",
     .key_flags = "RW delete",
     .handler = zremrangebylex_command},
  });
}

}  // namespace lawnkv
