#include "core/lcs.hpp"

#include <memory>
#include <new>

namespace lawnkv::lcs {

uint64_t table_bytes(size_t a_len, size_t b_len) {
  return (static_cast<uint64_t>(a_len) + 1) * (static_cast<uint64_t>(b_len) + 1) * sizeof(uint32_t);
}

std::optional<Result> longest_common_subsequence(std::string_view a, std::string_view b, const Want& want) {
  const uint32_t alen = static_cast<uint32_t>(a.size());
  const uint32_t blen = static_cast<uint32_t>(b.size());
  const uint64_t cells = (uint64_t{alen} + 1) * (uint64_t{blen} + 1);
  std::unique_ptr<uint32_t[]> table(new (std::nothrow) uint32_t[cells]);
  if (!table) return std::nullopt;
  // at(i, j): the length of the LCS of a's first i bytes and b's first j.
  auto at = [&](uint32_t i, uint32_t j) -> uint32_t& { return table[j + uint64_t{i} * (blen + 1)]; };

  for (uint32_t j = 0; j <= blen; ++j) at(0, j) = 0;
  for (uint32_t i = 1; i <= alen; ++i) {
    uint32_t* row = &at(i, 0);
    const uint32_t* up = &at(i - 1, 0);
    row[0] = 0;
    const char ai = a[i - 1];
    for (uint32_t j = 1; j <= blen; ++j) {
      if (ai == b[j - 1]) {
        row[j] = up[j - 1] + 1;
      } else {
        row[j] = up[j] > row[j - 1] ? up[j] : row[j - 1];
      }
    }
  }

  Result out;
  out.length = at(alen, blen);
  if (!want.text && !want.matches) return out;

  // The walk back. A range grows backwards while matches are contiguous in
  // both strings; it is closed (and kept if long enough) at the first
  // non-match, or when it reaches the start of either string.
  std::string text(out.length, '\0');
  uint32_t idx = out.length;
  constexpr uint32_t kNone = UINT32_MAX;  // no range open
  uint32_t a_start = kNone, a_end = 0, b_start = 0, b_end = 0;
  uint32_t i = alen, j = blen;
  while (i > 0 && j > 0) {
    bool close = false;
    if (a[i - 1] == b[j - 1]) {
      text[idx - 1] = a[i - 1];
      if (a_start == kNone) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;
        --b_start;
      } else {
        close = true;
      }
      if (a_start == 0 || b_start == 0) close = true;
      --idx;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      if (a_start != kNone) close = true;
    }
    if (close) {
      const uint32_t length = a_end - a_start + 1;
      if (want.matches && (want.min_match_len == 0 || length >= want.min_match_len))
        out.matches.push_back({a_start, a_end, b_start, b_end, length});
      a_start = kNone;
    }
  }
  if (want.text) out.text = std::move(text);
  return out;
}

}  // namespace lawnkv::lcs
