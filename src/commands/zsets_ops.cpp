#include "commands/zsets_ops.hpp"

#include "core/numbers.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

// One bound of a score range: "(" makes it exclusive; the rest is read as
// strtod reads a C string.
bool parse_score_bound(std::string_view arg, double* v, bool* ex) {
  *ex = !arg.empty() && arg[0] == '(';
  return c_string_to_double(*ex ? arg.substr(1) : arg, v);
}

// One bound of a lex range; its first byte decides, as Redis reads the
// argument as a C string ("" is refused, "+\0x" is "+").
bool parse_lex_bound(std::string_view arg, LexBound* out) {
  if (arg.empty()) return false;
  const bool alone = arg.size() == 1 || arg[1] == '\0';
  switch (arg[0]) {
    case '+':
      out->kind = LexBound::kPlus;
      return alone;
    case '-':
      out->kind = LexBound::kMinus;
      return alone;
    case '[':
      out->kind = LexBound::kInclusive;
      out->value = arg.substr(1);
      return true;
    case '(':
      out->kind = LexBound::kExclusive;
      out->value = arg.substr(1);
      return true;
    default:
      return false;
  }
}

}  // namespace

types::ZSetOptions zset_options(Call& call) {
  return {.max_listpack_entries = static_cast<size_t>(call.cfg().zset_max_listpack_entries),
          .max_listpack_value = static_cast<size_t>(call.cfg().zset_max_listpack_value),
          .seeds = &call.data.keyspace.rng()};
}

bool store_zset(DbContext& call, std::string_view key, std::unique_ptr<types::ZSet> z) {
  store::Db& db = call.db();
  const store::Entry* old = lookup_write(call, key);
  if (old == nullptr) {
    db.add_object(key, std::move(z));
    return true;
  }
  // A new value in the key's place keeps the eviction use counter.
  const uint8_t use = old->use();
  db.remove(key);
  db.set_use(db.add_object(key, std::move(z)), use);
  return false;
}

void store_zset_result(Call& call, std::string_view dst, std::unique_ptr<types::ZSet> z, std::string_view event) {
  if (z->empty()) {
    call.reply.integer(0);
    if (call.db().remove(dst)) {
      call.modified(dst, pubsub::kGeneric, "del");
    }
    return;
  }
  const int64_t size = static_cast<int64_t>(z->size());
  if (store_zset(call, dst, std::move(z))) call.notify(pubsub::kNew, "new", dst);
  call.modified(dst);
  call.reply.integer(size);
  call.notify(pubsub::kZset, event, dst);
}

bool parse_score_range(std::string_view min, std::string_view max, ScoreRange* out) {
  return parse_score_bound(min, &out->min, &out->min_ex) && parse_score_bound(max, &out->max, &out->max_ex);
}

bool parse_lex_range(std::string_view min, std::string_view max, LexRange* out) {
  return parse_lex_bound(min, &out->min) && parse_lex_bound(max, &out->max);
}

RankSpan rank_span(const types::ZSet& z, const ScoreRange& r) {
  const size_t lo = z.count_below([&](double s, std::string_view) { return s < r.min || (r.min_ex && s == r.min); });
  const size_t hi = z.count_below([&](double s, std::string_view) { return s < r.max || (!r.max_ex && s == r.max); });
  return {lo, hi};
}

RankSpan rank_span(const types::ZSet& z, const LexRange& r) {
  using types::compare_member_bytes;
  // Members below the range's start, then members not past its end.
  const size_t lo = z.count_below([&](double, std::string_view m) {
    switch (r.min.kind) {
      case LexBound::kMinus: return false;
      case LexBound::kPlus: return true;
      case LexBound::kInclusive: return compare_member_bytes(m, r.min.value) < 0;
      case LexBound::kExclusive: return compare_member_bytes(m, r.min.value) <= 0;
    }
    return false;
  });
  const size_t hi = z.count_below([&](double, std::string_view m) {
    switch (r.max.kind) {
      case LexBound::kMinus: return false;
      case LexBound::kPlus: return true;
      case LexBound::kInclusive: return compare_member_bytes(m, r.max.value) <= 0;
      case LexBound::kExclusive: return compare_member_bytes(m, r.max.value) < 0;
    }
    return false;
  });
  return {lo, hi};
}

void reply_ranks_header(Call& call, size_t n, bool with_scores) {
  call.reply.array(with_scores && call.session.protocol == 2 ? n * 2 : n);
}

void reply_ranked(Call& call, std::string_view member, double score, bool with_scores) {
  if (with_scores && call.session.protocol != 2) call.reply.array(2);
  call.reply.bulk(member);
  if (with_scores) call.reply.dbl(score);
}

}  // namespace lawnkv
