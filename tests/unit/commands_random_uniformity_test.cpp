// The random commands draw uniformly, in every encoding, with and without a
// count: HRANDFIELD, SRANDMEMBER, SPOP, ZRANDMEMBER, RANDOMKEY (issue 25:
// HRANDFIELD on a hashtable favoured fields alone in their bucket).
//
// Each test counts how often each of k members comes in n draws and takes
// Pearson's chi-square statistic. For a uniform draw it follows a
// chi-square law of k - 1 degrees of freedom (mean k - 1, deviation
// sqrt(2 (k - 1))); the limit is that mean plus 12 deviations, which an
// honest draw passes with a probability beyond 1 - 1e-9, while a draw that
// gives some members a third or half of their share lands in the
// thousands. The draws are seeded, the counts are of replies: nothing
// depends on the machine's speed.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv {
namespace {

constexpr int kMembers = 40;
constexpr int kPerMember = 500;  // expected count of each member
constexpr int kDraws = kMembers * kPerMember;

// The bulk strings of a RESP2 reply: one bulk, or an array of bulks.
std::vector<std::string> bulks(const std::string& reply) {
  std::vector<std::string> out;
  size_t at = 0;
  auto line = [&] {
    const size_t end = reply.find("\r\n", at);
    REQUIRE(end != std::string::npos);
    std::string l = reply.substr(at, end - at);
    at = end + 2;
    return l;
  };
  std::string head = line();
  long long n = 1;
  if (head[0] == '*') {
    n = std::stoll(head.substr(1));
    if (n > 0) head = line();
  }
  for (long long i = 0; i < n; ++i) {
    if (i > 0) head = line();
    REQUIRE(head[0] == '$');
    const size_t len = std::stoul(head.substr(1));
    out.push_back(reply.substr(at, len));
    at += len + 2;
  }
  return out;
}

struct Tally {
  std::map<std::string, long long> counts;
  long long total = 0;
  void add(const std::vector<std::string>& picks) {
    for (const std::string& p : picks) ++counts[p];
    total += static_cast<long long>(picks.size());
  }
};

// Pearson's statistic of the counts against an even share over names;
// checks every count is one of names.
double chi_square(const Tally& t, const std::vector<std::string>& names) {
  CHECK(t.counts.size() <= names.size());
  const double expected = static_cast<double>(t.total) / static_cast<double>(names.size());
  double x = 0;
  for (const std::string& name : names) {
    const auto it = t.counts.find(name);
    const double o = it == t.counts.end() ? 0 : static_cast<double>(it->second);
    x += (o - expected) * (o - expected) / expected;
  }
  for (const auto& [name, count] : t.counts) CHECK(std::find(names.begin(), names.end(), name) != names.end());
  return x;
}

double limit_for(size_t categories) {
  const double df = static_cast<double>(categories - 1);
  return df + 12 * std::sqrt(2 * df);
}

#define CHECK_UNIFORM(tally, names)                     \
  do {                                                  \
    const double x = chi_square(tally, names);          \
    CHECK(x < limit_for((names).size()));               \
  } while (0)

struct Server : test::CommandServer {
  Server() { state.data.keyspace.rng().seed(20261127); }
};

// Member i: a number (intset) or text; `long_one` makes member 0 80 bytes
// (past every listpack's value limit of 64).
std::vector<std::string> names_of(bool numbers, bool long_one) {
  std::vector<std::string> out;
  for (int i = 0; i < kMembers; ++i) out.push_back(numbers ? std::to_string(1000 + i) : "member:" + std::to_string(i));
  if (long_one) out[0] = std::string(80, 'L');
  return out;
}

// HRANDFIELD with no count, a negative count, a positive count (each field
// then comes in count / size of the replies), in listpack and hashtable.
TEST_CASE("HRANDFIELD draws every field alike, listpack and hashtable") {
  for (const bool table : {false, true}) {
    CAPTURE(table);
    Server s;
    const std::vector<std::string> names = names_of(false, table);
    for (const std::string& f : names) s.run({"hset", "h", f, "v"});
    CHECK(s.run({"object", "encoding", "h"}) == (table ? "$9\r\nhashtable\r\n" : "$8\r\nlistpack\r\n"));
    Tally one, negative, positive;
    for (int i = 0; i < kDraws; ++i) one.add(bulks(s.run({"hrandfield", "h"})));
    CHECK_UNIFORM(one, names);
    negative.add(bulks(s.run({"hrandfield", "h", std::to_string(-kDraws)})));
    CHECK(negative.total == kDraws);
    CHECK_UNIFORM(negative, names);
    for (int i = 0; i < kDraws / 10; ++i) positive.add(bulks(s.run({"hrandfield", "h", "10"})));
    CHECK_UNIFORM(positive, names);
  }
}

TEST_CASE("SRANDMEMBER and SPOP draw every member alike, intset and hashtable") {
  for (const bool numbers : {true, false}) {
    CAPTURE(numbers);
    Server s;
    const std::vector<std::string> names = names_of(numbers, false);
    std::vector<std::string> sadd{"sadd", "s"};
    sadd.insert(sadd.end(), names.begin(), names.end());
    s.run(sadd);
    CHECK(s.run({"object", "encoding", "s"}) == (numbers ? "$6\r\nintset\r\n" : "$9\r\nhashtable\r\n"));
    Tally one, negative, positive;
    for (int i = 0; i < kDraws; ++i) one.add(bulks(s.run({"srandmember", "s"})));
    CHECK_UNIFORM(one, names);
    negative.add(bulks(s.run({"srandmember", "s", std::to_string(-kDraws)})));
    CHECK(negative.total == kDraws);
    CHECK_UNIFORM(negative, names);
    for (int i = 0; i < kDraws / 10; ++i) positive.add(bulks(s.run({"srandmember", "s", "10"})));
    CHECK_UNIFORM(positive, names);

    // SPOP from a full set, put back each time.
    Tally pop, pop_many;
    for (int i = 0; i < kDraws; ++i) {
      const std::vector<std::string> p = bulks(s.run({"spop", "s"}));
      pop.add(p);
      s.run({"sadd", "s", p[0]});
    }
    CHECK_UNIFORM(pop, names);
    for (int i = 0; i < kDraws / 10; ++i) {
      const std::vector<std::string> p = bulks(s.run({"spop", "s", "10"}));
      pop_many.add(p);
      std::vector<std::string> back{"sadd", "s"};
      back.insert(back.end(), p.begin(), p.end());
      s.run(back);
    }
    CHECK_UNIFORM(pop_many, names);
    CHECK(s.run({"scard", "s"}) == ":" + std::to_string(kMembers) + "\r\n");
  }
}

TEST_CASE("ZRANDMEMBER draws every member alike, listpack and skiplist") {
  for (const bool skiplist : {false, true}) {
    CAPTURE(skiplist);
    Server s;
    const std::vector<std::string> names = names_of(false, skiplist);
    for (int i = 0; i < kMembers; ++i) s.run({"zadd", "z", std::to_string(i), names[i]});
    CHECK(s.run({"object", "encoding", "z"}) == (skiplist ? "$8\r\nskiplist\r\n" : "$8\r\nlistpack\r\n"));
    Tally one, negative, positive;
    for (int i = 0; i < kDraws; ++i) one.add(bulks(s.run({"zrandmember", "z"})));
    CHECK_UNIFORM(one, names);
    negative.add(bulks(s.run({"zrandmember", "z", std::to_string(-kDraws)})));
    CHECK(negative.total == kDraws);
    CHECK_UNIFORM(negative, names);
    for (int i = 0; i < kDraws / 10; ++i) positive.add(bulks(s.run({"zrandmember", "z", "10"})));
    CHECK_UNIFORM(positive, names);
  }
}

TEST_CASE("RANDOMKEY draws every key alike") {
  Server s;
  const std::vector<std::string> names = names_of(false, false);
  for (const std::string& k : names) s.run({"set", k, "v"});
  Tally one;
  for (int i = 0; i < kDraws; ++i) one.add(bulks(s.run({"randomkey"})));
  CHECK_UNIFORM(one, names);
}

}  // namespace
}  // namespace lawnkv
