// The sorted-set commands over several keys: ZUNION, ZINTER, ZDIFF, their
// STORE forms, and ZINTERCARD, as Redis 7.0's zunionInterDiffGenericCommand:
// the keys are looked up (sorted sets, or plain sets whose members score 1)
// before the options are read, so WRONGTYPE wins over a syntax error; the
// options are parsed once into ZSetOpArgs, and the algebra itself is
// types/zset_algebra.hpp's.

#include <memory>
#include <string>
#include <vector>

#include "commands/zsets_ops.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/zset_algebra.hpp"

namespace lawnkv {

namespace {

using types::Aggregate;
using types::ZSet;
using types::ZSetOp;
using types::ZSource;

constexpr std::string_view kWeightNotFloat = "ERR weight value is not a float";

// Which command of the family runs: its operation, whether it stores (dst
// not empty) and whether it only counts (ZINTERCARD).
struct ZSetOpForm {
  ZSetOp op;
  std::string_view dst;  // empty for the forms that reply the result
  bool count_only = false;
};

// The options after the keys, parsed once: [WEIGHTS w ...] [AGGREGATE
// SUM|MIN|MAX] (union, intersection), [WITHSCORES] (the replying forms),
// [LIMIT limit] (ZINTERCARD).
struct ZSetOpArgs {
  std::vector<double> weights;  // one per input, or empty: every weight 1
  Aggregate how = Aggregate::kSum;
  bool with_scores = false;
  long long limit = 0;  // 0: none
};

// Replies err::kSyntax; false, for the option parser to return.
bool syntax_error(Call& call) {
  call.error(err::kSyntax);
  return false;
}

// Parses the options at argv[j..] (after the keys of `inputs` inputs) into
// *args; false after replying the error.
bool zsetop_args_or_reply(Call& call, size_t j, size_t inputs, const ZSetOpForm& form, ZSetOpArgs* args) {
  const bool weighted = form.op != ZSetOp::kDiff && !form.count_only;
  while (j < call.argv.size()) {
    const size_t remaining = call.argv.size() - j;
    const std::string_view opt = call.argv[j];
    if (weighted && remaining >= inputs + 1 && is_option(opt, "weights")) {
      ++j;
      args->weights.resize(inputs);
      for (double& w : args->weights) {
        if (!string_to_double(call.argv[j++], &w)) {
          call.error(kWeightNotFloat);
          return false;
        }
      }
    } else if (weighted && remaining >= 2 && is_option(opt, "aggregate")) {
      const std::string_view how = call.argv[j + 1];
      if (is_option(how, "sum")) args->how = Aggregate::kSum;
      else if (is_option(how, "min")) args->how = Aggregate::kMin;
      else if (is_option(how, "max")) args->how = Aggregate::kMax;
      else return syntax_error(call);
      j += 2;
    } else if (form.dst.empty() && !form.count_only && is_option(opt, "withscores")) {
      args->with_scores = true;
      ++j;
    } else if (form.count_only && remaining >= 2 && is_option(opt, "limit")) {
      if (!integer_or_reply(call, call.argv[j + 1], &args->limit, err::kLimitNegative)) return false;
      if (args->limit < 0) {
        call.error(err::kLimitNegative);
        return false;
      }
      j += 2;
    } else {
      return syntax_error(call);
    }
  }
  return true;
}

/* ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX]
 * [WITHSCORES], ZINTER (the same), ZDIFF numkeys key [key ...]
 * [WITHSCORES], their STORE forms (destination first, no WITHSCORES), and
 * ZINTERCARD numkeys key [key ...] [LIMIT limit] (count_only). numkeys is
 * at argv[at]. */
void zsetop_generic(Call& call, size_t at, const ZSetOpForm& form) {
  long long setnum;
  if (!integer_or_reply(call, call.argv[at], &setnum)) return;
  if (setnum < 1) {
    return call.error("ERR at least 1 input key is needed for '" + std::string(call.spec->name) + "' command");
  }
  if (setnum > static_cast<long long>(call.argv.size() - at - 1)) return call.error(err::kSyntax);
  std::vector<ZSource> src(static_cast<size_t>(setnum));
  size_t j = at + 1;
  for (ZSource& s : src) {
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
  ZSetOpArgs args;
  if (!zsetop_args_or_reply(call, j, src.size(), form, &args)) return;
  for (size_t i = 0; i < args.weights.size(); ++i) src[i].weight = args.weights[i];

  if (form.count_only) {
    return call.reply.integer(static_cast<int64_t>(types::intersection_size(src, static_cast<size_t>(args.limit))));
  }
  const types::ZSetOptions opts = zset_options(call);
  size_t max_len;
  std::unique_ptr<ZSet> result = types::combine(src, form.op, args.how, opts, &max_len);
  if (!form.dst.empty()) {
    result->compact_if_fits(opts, max_len);
    const std::string_view event =
        form.op == ZSetOp::kUnion ? "zunionstore" : (form.op == ZSetOp::kInter ? "zinterstore" : "zdiffstore");
    return store_zset_result(call, form.dst, std::move(result), event);
  }
  reply_ranks_header(call, result->size(), args.with_scores);
  result->walk(0, result->size(), false,
               [&](std::string_view m, double s) { reply_ranked(call, m, s, args.with_scores); });
}

void zunion_command(Call& call) { zsetop_generic(call, 1, {ZSetOp::kUnion, {}}); }
void zinter_command(Call& call) { zsetop_generic(call, 1, {ZSetOp::kInter, {}}); }
void zdiff_command(Call& call) { zsetop_generic(call, 1, {ZSetOp::kDiff, {}}); }
void zunionstore_command(Call& call) { zsetop_generic(call, 2, {ZSetOp::kUnion, call.argv[1]}); }
void zinterstore_command(Call& call) { zsetop_generic(call, 2, {ZSetOp::kInter, call.argv[1]}); }
void zdiffstore_command(Call& call) { zsetop_generic(call, 2, {ZSetOp::kDiff, call.argv[1]}); }
void zintercard_command(Call& call) { zsetop_generic(call, 1, {ZSetOp::kInter, {}, true}); }

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
