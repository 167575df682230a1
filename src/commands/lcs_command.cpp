// LCS: the longest common subsequence of two strings, as Redis 7.0's
// t_string.c lcsCommand replies it. The dynamic programme is core/lcs.cpp.
//
// Both keys are looked up (and must be strings, or absent: empty) before the
// options are read; the table's size is checked against proto-max-bulk-len
// before it is allocated.

#include <cstdint>
#include <string_view>

#include "commands/families.hpp"
#include "core/lcs.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kNotStrings = "ERR The specified keys must contain string values";
constexpr std::string_view kLenAndIdx = "ERR If you want both the length and indexes, please just use IDX.";
constexpr std::string_view kTooLong = "ERR String too long for LCS";
constexpr std::string_view kTableTooBig =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
constexpr std::string_view kNoMemory = "ERR Insufficient memory, failed allocating transient memory for LCS";

// IDX's reply: {"matches": [[[a_start, a_end], [b_start, b_end](, length)], ...], "len": n}
// (a map in RESP3, a four-element array in RESP2).
void reply_matches(Call& call, const lcs::Result& r, bool with_length) {
  auto& w = call.reply;
  w.map(2);
  w.bulk("matches");
  w.array(r.matches.size());
  for (const lcs::Match& m : r.matches) {
    w.array(with_length ? 3 : 2);
    w.array(2);
    w.integer(m.a_start);
    w.integer(m.a_end);
    w.array(2);
    w.integer(m.b_start);
    w.integer(m.b_end);
    if (with_length) w.integer(m.length);
  }
  w.bulk("len");
  w.integer(r.length);
}

/* LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN] */
void lcs_command(Call& call) {
  const store::Entry* a = lookup_read(call, call.argv[1]);
  const store::Entry* b = lookup_read(call, call.argv[2]);
  if ((a && a->type() != store::Type::kString) || (b && b->type() != store::Type::kString))
    return call.error(kNotStrings);
  const std::string_view sa = a ? a->str() : std::string_view();
  const std::string_view sb = b ? b->str() : std::string_view();

  bool len = false, idx = false, with_length = false;
  long long min_match_len = 0;
  const auto& argv = call.argv;
  for (size_t j = 3; j < argv.size(); ++j) {
    const bool more = j + 1 < argv.size();
    if (is_option(argv[j], "idx")) {
      idx = true;
    } else if (is_option(argv[j], "len")) {
      len = true;
    } else if (is_option(argv[j], "withmatchlen")) {
      with_length = true;
    } else if (is_option(argv[j], "minmatchlen") && more) {
      if (!integer_or_reply(call, argv[++j], &min_match_len)) return;
      if (min_match_len < 0) min_match_len = 0;
    } else {
      return call.error(err::kSyntax);
    }
  }
  if (len && idx) return call.error(kLenAndIdx);
  if (sa.size() >= UINT32_MAX - 1 || sb.size() >= UINT32_MAX - 1) return call.error(kTooLong);
  if (lcs::table_bytes(sa.size(), sb.size()) > static_cast<uint64_t>(call.cfg().proto_max_bulk_len))
    return call.error(kTableTooBig);

  const auto r = lcs::longest_common_subsequence(sa, sb, {.text = !len && !idx, .matches = idx,
                                                          .min_match_len = min_match_len});
  if (!r) return call.error(kNoMemory);
  if (idx) return reply_matches(call, *r, with_length);
  if (len) return call.reply.integer(r->length);
  call.reply.bulk(r->text);
}

}  // namespace

void register_lcs_command(CommandTable& t) {
  t.add({.name = "lcs", .arity = -3, .flags = kReadonly, .keys = {1, 2, 1},
         .acl = "@read @string @slow",
         .group = "string", .since = "7.0.0",
         .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
         .summary = "Finds the longest common subsequence of two strings",
         .key_flags = "RO access",
         .handler = lcs_command});
}

}  // namespace lawnkv
