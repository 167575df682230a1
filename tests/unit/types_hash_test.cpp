// types::Hash against a plain model: random HSET/HDEL over both encodings,
// the switch to hashtable (by count and by length, never back), insertion
// order while listpack, scan coverage, clone independence.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "types/hash.hpp"

namespace lawnkv::types {
namespace {

std::map<std::string, std::string> contents(const Hash& h) {
  std::map<std::string, std::string> out;
  h.for_each([&](std::string_view f, std::string_view v) { out.emplace(f, v); });
  return out;
}

}  // namespace

TEST_CASE("hash: random operations agree with a map in both encodings") {
  for (int64_t max_entries : {int64_t{8}, int64_t{512}}) {
    CAPTURE(max_entries);
    std::mt19937_64 rng(max_entries);
    Hash h;
    const Hash::Limits lim{max_entries, 64};
    std::map<std::string, std::string> model;
    for (int op = 0; op < 20'000; ++op) {
      const std::string f = "f" + std::to_string(rng() % 40);
      if (rng() % 3 == 0) {
        CHECK(h.remove(f) == (model.erase(f) == 1));
      } else {
        const std::string v(rng() % 20, static_cast<char>('a' + rng() % 26));
        CHECK(h.set(f, v, lim) == (model.count(f) == 0));
        model[f] = v;
      }
      REQUIRE(h.size() == model.size());
      const auto got = h.get(f);
      CHECK(got.has_value() == (model.count(f) == 1));
      if (got) CHECK(*got == model[f]);
    }
    CHECK(contents(h) == model);
    CHECK(h.encoding() == (max_entries == 8 ? "hashtable" : "listpack"));
  }
}

TEST_CASE("hash: listpack keeps insertion order, converts for good past its limits") {
  Hash h;
  const Hash::Limits lim{3, 5};
  h.set("b", "1", lim);
  h.set("a", "2", lim);
  h.set("c", "3", lim);
  h.set("a", "22", lim);  // an update keeps the place
  std::vector<std::string> order;
  h.for_each([&](std::string_view f, std::string_view) { order.emplace_back(f); });
  CHECK(order == std::vector<std::string>{"b", "a", "c"});
  CHECK(h.at(1) == std::pair<std::string_view, std::string_view>{"a", "22"});
  CHECK(h.encoding() == "listpack");
  h.set("d", "4", lim);  // a fourth field
  CHECK(h.encoding() == "hashtable");
  h.remove("d");
  CHECK(h.encoding() == "hashtable");
  Hash g;
  g.set("f", "12345", lim);
  CHECK(g.encoding() == "listpack");
  g.set("f", "123456", lim);  // a value past 5 bytes
  CHECK(g.encoding() == "hashtable");
  CHECK(*g.get("f") == "123456");
}

TEST_CASE("hash: a scan returns every field; a clone is independent") {
  Hash h;
  const Hash::Limits lim{4, 64};
  for (int i = 0; i < 1000; ++i) h.set("f" + std::to_string(i), std::to_string(i), lim);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = h.scan(cursor, [&](std::string_view f, std::string_view) { seen.emplace(f); });
  } while (cursor != 0);
  CHECK(seen.size() == 1000);
  auto copy = h.clone();
  auto& c = static_cast<Hash&>(*copy);
  c.remove("f1");
  c.set("f2", "x", lim);
  CHECK(h.size() == 1000);
  CHECK(*h.get("f2") == "2");
  CHECK(c.size() == 999);
  CHECK(h.memory_bytes() > 1000 * 8);
}

}  // namespace lawnkv::types
