#pragma once
// The longest common subsequence of two byte strings, as Redis 7.0's LCS
// command computes it (t_string.c lcsCommand): the textbook dynamic
// programme over a table of (|a| + 1) * (|b| + 1) 32-bit lengths, then one
// walk back from the table's last cell that collects the subsequence and its
// matching ranges, last range first. Where two ways back tie, the walk moves
// along b (j - 1), so ties resolve as in Redis and the replies are equal byte
// for byte. Pure: no store, no replies (src/commands/lcs_command.cpp).
//
// Worked example, a = "ohmytext", b = "mynewtext":
//   text "mytext", length 6; matches (a range, b range, length):
//     [4..7] [5..8] 4   "text"
//     [2..3] [0..1] 2   "my"
//   with min_match_len 4 only the first.
//
// Cost: the table is the whole cost, table_bytes(|a|, |b|) of memory and as
// many steps; the command refuses it above proto-max-bulk-len, as Redis does.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lawnkv::lcs {

// One run of consecutive matching bytes: a[a_start..a_end] equals
// b[b_start..b_end] (inclusive), length bytes.
struct Match {
  uint32_t a_start = 0, a_end = 0;
  uint32_t b_start = 0, b_end = 0;
  uint32_t length = 0;
};

struct Result {
  uint32_t length = 0;         // of the longest common subsequence
  std::string text;            // the subsequence itself (when asked for)
  std::vector<Match> matches;  // when asked for: last in a first
};

// What to compute beyond the length.
struct Want {
  bool text = false;
  bool matches = false;
  long long min_match_len = 0;  // matches shorter than this are left out
};

// Bytes of the table for strings of these lengths.
uint64_t table_bytes(size_t a_len, size_t b_len);

// nullopt when the table cannot be allocated. a and b must be shorter than
// UINT32_MAX - 1 bytes (the command checks: "String too long for LCS").
std::optional<Result> longest_common_subsequence(std::string_view a, std::string_view b, const Want& want);

}  // namespace lawnkv::lcs
