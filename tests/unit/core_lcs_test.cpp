// The longest common subsequence (src/core/lcs.hpp): the header's worked
// example and redis-server 7.0.15's replies for ties, then seeded random
// strings against a separate length computation and the properties every
// answer must have (the text is a subsequence of both, the matches are runs
// of equal bytes in descending order that add up to the text).

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "core/lcs.hpp"

namespace lawnkv::lcs {

namespace {

using namespace std::string_literals;

Result run(std::string_view a, std::string_view b, long long min_len = 0) {
  const auto r = longest_common_subsequence(a, b, {.text = true, .matches = true, .min_match_len = min_len});
  REQUIRE(r.has_value());
  return *r;
}

// The length by memoised recursion on suffixes: another route to the same number.
uint32_t model_length(const std::string& a, const std::string& b) {
  std::vector<std::vector<uint32_t>> m(a.size() + 1, std::vector<uint32_t>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;)
    for (size_t j = b.size(); j-- > 0;)
      m[i][j] = a[i] == b[j] ? m[i + 1][j + 1] + 1 : std::max(m[i + 1][j], m[i][j + 1]);
  return m[0][0];
}

bool is_subsequence(std::string_view sub, std::string_view of) {
  size_t at = 0;
  for (char c : of)
    if (at < sub.size() && sub[at] == c) ++at;
  return at == sub.size();
}

}  // namespace

TEST_CASE("lcs: the header's worked example") {
  const Result r = run("ohmytext", "mynewtext");
  CHECK(r.length == 6);
  CHECK(r.text == "mytext");
  REQUIRE(r.matches.size() == 2);
  CHECK(r.matches[0].a_start == 4);
  CHECK(r.matches[0].a_end == 7);
  CHECK(r.matches[0].b_start == 5);
  CHECK(r.matches[0].b_end == 8);
  CHECK(r.matches[0].length == 4);
  CHECK(r.matches[1].a_start == 2);
  CHECK(r.matches[1].a_end == 3);
  CHECK(r.matches[1].b_start == 0);
  CHECK(r.matches[1].b_end == 1);
  CHECK(r.matches[1].length == 2);
  const Result four = run("ohmytext", "mynewtext", 4);
  REQUIRE(four.matches.size() == 1);
  CHECK(four.matches[0].length == 4);
}

TEST_CASE("lcs: ties resolve as in redis-server") {
  // LCS x y for these pairs on redis-server 7.0.15.
  CHECK(run("ABCBDAB", "BDCABA").text == "BDAB");
  CHECK(run("BDCABA", "ABCBDAB").text == "BCBA");
  const Result r = run("aaaa", "aa");
  CHECK(r.text == "aa");
  REQUIRE(r.matches.size() == 1);
  CHECK(r.matches[0].a_start == 2);
  CHECK(r.matches[0].a_end == 3);
  CHECK(r.matches[0].b_start == 0);
  CHECK(r.matches[0].b_end == 1);
  CHECK(run("a\0b\r\nc\xff"s, "\0\xff" "ab\r\n"s).text == "\0b\r\n"s);
}

TEST_CASE("lcs: empty strings and no common byte") {
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"", ""}, {"abc", ""}, {"", "abc"}, {"abc", "xyz"}}) {
    const Result r = run(a, b);
    CHECK(r.length == 0);
    CHECK(r.text.empty());
    CHECK(r.matches.empty());
  }
}

TEST_CASE("lcs: only what is asked for") {
  const auto len_only = longest_common_subsequence("ohmytext", "mynewtext", {});
  REQUIRE(len_only.has_value());
  CHECK(len_only->length == 6);
  CHECK(len_only->text.empty());
  CHECK(len_only->matches.empty());
  const auto idx = longest_common_subsequence("ohmytext", "mynewtext", {.matches = true});
  CHECK(idx->text.empty());
  CHECK(idx->matches.size() == 2);
  CHECK(table_bytes(600, 600) == 601ULL * 601 * 4);
  CHECK(table_bytes(0, 0) == 4);
}

TEST_CASE("lcs: random strings against a separate length and the answer's properties") {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 3000; ++round) {
    const int alphabet = 1 + static_cast<int>(rng() % 4);
    auto make = [&] {
      std::string s(rng() % 30, '\0');
      for (char& c : s) c = static_cast<char>('a' + rng() % alphabet);
      return s;
    };
    const std::string a = make(), b = make();
    CAPTURE(a);
    CAPTURE(b);
    const Result r = run(a, b);
    REQUIRE(r.length == model_length(a, b));
    REQUIRE(r.text.size() == r.length);
    REQUIRE(is_subsequence(r.text, a));
    REQUIRE(is_subsequence(r.text, b));
    // The matches: equal runs, each before the previous one in both strings,
    // together the text read backwards.
    std::string joined;
    for (size_t k = 0; k < r.matches.size(); ++k) {
      const Match& m = r.matches[k];
      REQUIRE(m.a_end - m.a_start == m.b_end - m.b_start);
      REQUIRE(m.length == m.a_end - m.a_start + 1);
      REQUIRE(a.substr(m.a_start, m.length) == b.substr(m.b_start, m.length));
      if (k > 0) {
        REQUIRE(m.a_end < r.matches[k - 1].a_start);
        REQUIRE(m.b_end < r.matches[k - 1].b_start);
      }
      joined.insert(0, a.substr(m.a_start, m.length));
    }
    REQUIRE(joined == r.text);
    // MINMATCHLEN keeps exactly the runs that long.
    const long long min_len = 1 + static_cast<long long>(rng() % 4);
    const Result filtered = run(a, b, min_len);
    size_t kept = 0;
    for (const Match& m : r.matches) kept += m.length >= min_len;
    REQUIRE(filtered.matches.size() == kept);
  }
}

}  // namespace lawnkv::lcs
