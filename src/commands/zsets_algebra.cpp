// The sorted-set commands over several keys: ZUNION, ZINTER, ZDIFF, their
// STORE forms, and ZINTERCARD, as Redis 7.0's zunionInterDiffGenericCommand:
// the keys are looked up (sorted sets, or plain sets whose members score 1)
// before the options are read, so WRONGTYPE wins over a syntax error; the
// inputs are then taken smallest first (stably) for union and intersection,
// which fixes the order in which scores are summed; a sum that is NaN
// (inf + -inf) is 0, and so is a weighted score that is NaN (inf * 0).

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "commands/zsets_ops.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/set.hpp"

namespace lawnkv {

namespace {

using types::ZSet;

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// One input: a sorted set, a set (scores 1), or a missing key (empty).
struct Source {
  const ZSet* zset = nullptr;
  const types::Set* set = nullptr;
  double weight = 1;

  size_t size() const { return zset ? zset->size() : set ? set->size() : 0; }
  const void* subject() const { return zset ? static_cast<const void*>(zset) : set; }
  // fn(std::string_view member, double score) for each member.
  template <class F>
  void for_each(F&& fn) const {
    if (zset) zset->walk(0, zset->size(), false, fn);
    if (set) set->for_each([&](const types::Member& m) {
      char buf[kLongStrSize];
      fn(m.text(buf), 1.0);
    });
  }
  bool find(std::string_view member, double* score) const {
    if (zset) {
      const std::optional<double> s = zset->score(member);
      if (s) *score = *s;
      return s.has_value();
    }
    *score = 1;
    return set && set->contains(member);
  }
};

void aggregate(double* target, double value, Aggregate how) {
  switch (how) {
    case Aggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0;
      break;
    case Aggregate::kMin: *target = value < *target ? value : *target; break;
    case Aggregate::kMax: *target = value > *target ? value : *target; break;
  }
}

/* ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX]
 * [WITHSCORES], ZINTER (the same), ZDIFF numkeys key [key ...]
 * [WITHSCORES], their STORE forms (destination first, no WITHSCORES), and
 * ZINTERCARD numkeys key [key ...] [LIMIT limit] (count_only). numkeys is
 * at argv[at]; dst is empty for the forms that reply the result. */
void zsetop_generic(Call& call, size_t at, std::string_view dst, SetOp op, bool count_only) {
  long long setnum;
  if (!integer_or_reply(call, call.argv[at], &setnum)) return;
  if (setnum < 1) {
    return call.error("ERR at least 1 input key is needed for '" + std::string(call.spec->name) + "' command");
  }
  if (setnum > static_cast<long long>(call.argv.size() - at - 1)) return call.error(err::kSyntax);
  std::vector<Source> src(static_cast<size_t>(setnum));
  size_t j = at + 1;
  for (Source& s : src) {
    const store::Entry* e = lookup_read(call, call.argv[j++]);
    if (!e) continue;
    if (e->type() == store::Type::kZSet) {
      s.zset = static_cast<const ZSet*>(e->obj());
    } else if (e->type() == store::Type::kSet) {
      s.set = static_cast<const types::Set*>(e->obj());
    } else {
      return call.error(err::kWrongType);
    }
  }
  Aggregate how = Aggregate::kSum;
  bool with_scores = false;
  long long limit = 0;
  while (j < call.argv.size()) {
    const size_t remaining = call.argv.size() - j;
    const std::string_view opt = call.argv[j];
    if (op != SetOp::kDiff && !count_only && remaining >= src.size() + 1 && is_option(opt, "weights")) {
      ++j;
      for (Source& s : src) {
        if (!string_to_double(call.argv[j++], &s.weight)) return call.error("ERR weight value is not a float");
      }
    } else if (op != SetOp::kDiff && !count_only && remaining >= 2 && is_option(opt, "aggregate")) {
      const std::string_view how_arg = call.argv[j + 1];
      if (is_option(how_arg, "sum")) how = Aggregate::kSum;
      else if (is_option(how_arg, "min")) how = Aggregate::kMin;
      else if (is_option(how_arg, "max")) how = Aggregate::kMax;
      else return call.error(err::kSyntax);
      j += 2;
    } else if (dst.empty() && !count_only && is_option(opt, "withscores")) {
      with_scores = true;
      ++j;
    } else if (count_only && remaining >= 2 && is_option(opt, "limit")) {
      constexpr std::string_view kLimitNegative = "ERR LIMIT can't be negative";
      if (!integer_or_reply(call, call.argv[j + 1], &limit, kLimitNegative)) return;
      if (limit < 0) return call.error(kLimitNegative);
      j += 2;
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (op != SetOp::kDiff) {
    std::stable_sort(src.begin(), src.end(), [](const Source& a, const Source& b) { return a.size() < b.size(); });
  }

  const types::ZSetOptions opts = zset_options(call);
  auto result = std::make_unique<ZSet>(true, opts.seed());
  size_t max_len = 0;
  auto keep = [&](std::string_view m, double s) {
    result->add(m, s, types::kZAddNone, opts);
    max_len = std::max(max_len, m.size());
  };
  size_t cardinality = 0;
  if (op == SetOp::kInter) {
    if (src[0].size() > 0) {
      bool done = false;
      src[0].for_each([&](std::string_view m, double s0) {
        if (done) return;
        double score = src[0].weight * s0;
        if (std::isnan(score)) score = 0;
        size_t k = 1;
        for (; k < src.size(); ++k) {
          double value;
          if (src[k].subject() == src[0].subject()) {
            value = s0 * src[k].weight;
          } else if (src[k].find(m, &value)) {
            value *= src[k].weight;
          } else {
            break;
          }
          aggregate(&score, value, how);
        }
        if (k < src.size()) return;
        if (!count_only) return keep(m, score);
        ++cardinality;
        if (limit && cardinality >= static_cast<size_t>(limit)) done = true;
      });
    }
  } else if (op == SetOp::kUnion) {
    std::unordered_map<std::string, double> acc;
    for (const Source& s : src) {
      s.for_each([&](std::string_view m, double v) {
        double score = s.weight * v;
        if (std::isnan(score)) score = 0;
        auto [it, fresh] = acc.try_emplace(std::string(m), score);
        if (!fresh) aggregate(&it->second, score, how);
      });
    }
    for (const auto& [m, s] : acc) keep(m, s);
  } else if (src[0].size() > 0) {
    src[0].for_each([&](std::string_view m, double s) {
      double unused;
      for (size_t k = 1; k < src.size(); ++k)
        if (src[k].find(m, &unused)) return;
      keep(m, s);
    });
  }

  if (count_only) return call.reply.integer(static_cast<int64_t>(cardinality));
  if (!dst.empty()) {
    result->compact_if_fits(opts, max_len);
    const std::string_view event =
        op == SetOp::kUnion ? "zunionstore" : (op == SetOp::kInter ? "zinterstore" : "zdiffstore");
    return store_zset_result(call, dst, std::move(result), event);
  }
  reply_ranks_header(call, result->size(), with_scores);
  result->walk(0, result->size(), false,
               [&](std::string_view m, double s) { reply_ranked(call, m, s, with_scores); });
}

void zunion_command(Call& call) { zsetop_generic(call, 1, {}, SetOp::kUnion, false); }
void zinter_command(Call& call) { zsetop_generic(call, 1, {}, SetOp::kInter, false); }
void zdiff_command(Call& call) { zsetop_generic(call, 1, {}, SetOp::kDiff, false); }
void zunionstore_command(Call& call) { zsetop_generic(call, 2, call.argv[1], SetOp::kUnion, false); }
void zinterstore_command(Call& call) { zsetop_generic(call, 2, call.argv[1], SetOp::kInter, false); }
void zdiffstore_command(Call& call) { zsetop_generic(call, 2, call.argv[1], SetOp::kDiff, false); }
void zintercard_command(Call& call) { zsetop_generic(call, 1, {}, SetOp::kInter, true); }

}  // namespace

void add_zset_algebra_commands(CommandTable& t) {
  t.add({
    {.name = "zunion", .arity = -3, .flags = kReadonly | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "6.2.0",
     .complexity = "O(N)+O(M*log(M)) with N the sizes of the inputs and M the size of the result",
     .summary = "Returns the union of sorted sets (and sets)",
     .key_flags = "RO access",
     .handler = zunion_command},
    {.name = "zinter", .arity = -3, .flags = kReadonly | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "6.2.0",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N the smallest input, K the inputs, M the result",
     .summary = "Returns the intersection of sorted sets (and sets)",
     .key_flags = "RO access",
     .handler = zinter_command},
    {.name = "zdiff", .arity = -3, .flags = kReadonly | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "6.2.0",
     .complexity = "O(L + (N-K)log(N)) worst case with L the members of all inputs, N the first's, K the result's",
     .summary = "Returns the members of the first sorted set that no other input holds",
     .key_flags = "RO access",
     .handler = zdiff_command},
    {.name = "zunionstore", .arity = -4, .flags = kWrite | kDenyOom | kMovableKeys, .keys = {1, 1, 1}, .keynum = {2, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "2.0.0",
     .complexity = "O(N)+O(M*log(M)) with N the sizes of the inputs and M the size of the result",
     .summary = "Stores the union of sorted sets (and sets) in a key",
     .key_flags = "OW update;RO access",
     .handler = zunionstore_command},
    {.name = "zinterstore", .arity = -4, .flags = kWrite | kDenyOom | kMovableKeys, .keys = {1, 1, 1}, .keynum = {2, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "2.0.0",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N the smallest input, K the inputs, M the result",
     .summary = "Stores the intersection of sorted sets (and sets) in a key",
     .key_flags = "OW update;RO access",
     .handler = zinterstore_command},
    {.name = "zdiffstore", .arity = -4, .flags = kWrite | kDenyOom | kMovableKeys, .keys = {1, 1, 1}, .keynum = {2, 1, 1},
     .acl = "@write @sortedset @slow",
     .group = "sorted_set", .since = "6.2.0",
     .complexity = "O(L + (N-K)log(N)) worst case with L the members of all inputs, N the first's, K the result's",
     .summary = "Stores the members of the first sorted set that no other input holds",
     .key_flags = "OW update;RO access",
     .handler = zdiffstore_command},
    {.name = "zintercard", .arity = -3, .flags = kReadonly | kMovableKeys, .keynum = {1, 1, 1},
     .acl = "@read @sortedset @slow",
     .group = "sorted_set", .since = "7.0.0",
     .complexity = "O(N*K) worst case with N the smallest input and K the inputs",
     .summary = "Counts the members every input holds, up to a limit",
     .key_flags = "RO access",
     .handler = zintercard_command},
  });
}

}  // namespace lawnkv
