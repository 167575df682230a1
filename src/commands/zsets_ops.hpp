#pragma once
// The store halves of the sorted-set commands, shared by zsets_family.cpp
// (single-key commands, pops, blocking pops), zsets_ranges.cpp (ZRANGE and
// its relatives, ZREMRANGEBY*) and zsets_algebra.cpp (ZUNION, ZINTER,
// ZDIFF...): lookups (Redis's lookupKeyRead / lookupKeyWrite followed by
// checkType), the encoding options, storing a result, range arguments as
// Redis parses them, and the reply of a list of members.

#include <cstddef>
#include <memory>
#include <string_view>

#include "engine/context.hpp"
#include "types/zset.hpp"

namespace lawnkv {

class CommandTable;

// zset-max-listpack-entries / -value, and the keyspace's seed generator.
types::ZSetOptions zset_options(Call& call);

// Puts z at key in place of whatever is there, without a TTL (Redis's
// setKey). True if the key was created rather than overwritten.
bool store_zset(DbContext& call, std::string_view key, std::unique_ptr<types::ZSet> z);
// The end of a STORE command once the result is built: the result at dst
// (`new` if created), the reply (its size), then `event`; or, if empty,
// the reply 0 and dst deleted (`del`). Redis's order in both.
void store_zset_result(Call& call, std::string_view dst, std::unique_ptr<types::ZSet> z, std::string_view event);

// A score range: min and max, each inclusive or exclusive ("(1.5").
struct ScoreRange {
  double min = 0, max = 0;
  bool min_ex = false, max_ex = false;
};
// Redis's zslParseRange; false: the caller replies kBadScoreRange.
bool parse_score_range(std::string_view min, std::string_view max, ScoreRange* out);
inline constexpr std::string_view kBadScoreRange = "ERR min or max is not a float";

// A lex range bound: "-", "+", "[value" or "(value" (value views the
// argument).
struct LexBound {
  enum Kind { kMinus, kPlus, kInclusive, kExclusive } kind = kMinus;
  std::string_view value;
};
struct LexRange {
  LexBound min, max;
};
// Redis's zslParseLexRange; false: the caller replies kBadLexRange.
bool parse_lex_range(std::string_view min, std::string_view max, LexRange* out);
inline constexpr std::string_view kBadLexRange = "ERR min or max not valid string range item";

// The ranks [lo, hi) a range covers (empty when hi <= lo).
struct RankSpan {
  size_t lo = 0, hi = 0;
  size_t size() const { return hi > lo ? hi - lo : 0; }
};
RankSpan rank_span(const types::ZSet& z, const ScoreRange& r);
RankSpan rank_span(const types::ZSet& z, const LexRange& r);

// Writes members with their scores as Redis's range replies do: n members
// (then flat member, score pairs in RESP2 with scores, [member, score]
// arrays in RESP3). Call reply_ranks_header once, then reply_ranked for each.
void reply_ranks_header(Call& call, size_t n, bool with_scores);
void reply_ranked(Call& call, std::string_view member, double score, bool with_scores);

// ZADD's handler (zsets_family.cpp), which GEOADD runs on the arguments it
// turns coordinates into, as Redis's geoaddCommand calls zaddCommand.
void zadd_command(Call& call);

// The command rows of zsets_ranges.cpp and zsets_algebra.cpp, which
// register_zset_commands (zsets_family.cpp) adds.
void add_zset_range_commands(CommandTable& t);
void add_zset_algebra_commands(CommandTable& t);

}  // namespace lawnkv
