// types::List (src/types/list.hpp): edge cases (empty, one element, long
// elements, node boundaries) and random operations against std::deque
// under several node sizes, with the whole list compared after each step.

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "types/list.hpp"

namespace lawnkv::types {
namespace {

std::vector<std::string> forward(const List& l, size_t first = 0) {
  std::vector<std::string> out;
  l.for_each_from(first, [&](std::string_view v) {
    out.emplace_back(v);
    return true;
  });
  return out;
}

std::vector<std::string> backward(const List& l) {
  std::vector<std::string> out;
  if (!l.empty()) l.for_each_back_from(l.size() - 1, [&](std::string_view v) {
    out.emplace_back(v);
    return true;
  });
  return out;
}

void check_same(const List& l, const std::deque<std::string>& model) {
  REQUIRE(l.size() == model.size());
  const std::vector<std::string> expect(model.begin(), model.end());
  REQUIRE(forward(l) == expect);
  const std::vector<std::string> reversed(model.rbegin(), model.rend());
  REQUIRE(backward(l) == reversed);
  for (size_t i = 0; i < model.size(); i += 1 + model.size() / 7) CHECK(l.at(i) == model[i]);
}

std::string value_of(std::mt19937_64& rng, bool fixed) {
  // fixed: mostly 16 bytes (uniform nodes), now and then another length,
  // which turns a node variable. Else mostly short, sometimes past the
  // one-byte length (127), sometimes empty.
  if (fixed && rng() % 50 != 0) return std::string(15, 'a') + static_cast<char>('a' + rng() % 3);
  const size_t kind = rng() % 20;
  const size_t len = kind == 0 ? 0 : kind == 1 ? 128 + rng() % 300 : kind == 2 ? 127 : rng() % 20;
  std::string s(len, 'a');
  for (char& c : s) c = static_cast<char>('a' + rng() % 4);
  return s;
}

}  // namespace

TEST_CASE("list: empty, one element, encoding name") {
  List l;
  const ListOptions opts;
  CHECK(l.empty());
  CHECK(l.encoding() == "quicklist");
  CHECK(forward(l).empty());
  l.push_back("", opts);
  CHECK(l.size() == 1);
  CHECK(l.at(0).empty());
  CHECK(l.front().empty());
  CHECK(l.pop_front().empty());
  CHECK(l.empty());
  CHECK(l.node_count() == 0);
  l.push_front("x", opts);
  CHECK(l.back() == "x");
  CHECK(l.pop_back() == "x");
  CHECK(l.empty());
}

TEST_CASE("list: elements past one-byte lengths read from both ends") {
  List l;
  const ListOptions opts;
  const std::string big(100000, 'b'), edge(127, 'e'), past(128, 'p');
  l.push_back(edge, opts);
  l.push_back(big, opts);
  l.push_front(past, opts);
  CHECK(forward(l) == std::vector<std::string>{past, edge, big});
  CHECK(backward(l) == std::vector<std::string>{big, edge, past});
  CHECK(l.at(2) == big);
  CHECK(l.pop_back() == big);
  CHECK(l.pop_front() == past);
  CHECK(l.pop_front() == edge);
}

TEST_CASE("list: 8 KiB nodes as Redis fills them, and index walks across them") {
  List l;
  const ListOptions opts;  // -2: 8 KiB blocks
  // 16-byte elements of one length take 16 bytes: 511 and a 16-byte header
  // in 8192 bytes, the 512th opens a node; pushes at the front fill the
  // same way.
  for (int i = 0; i < 511; ++i) l.push_back(std::string(16, 'v'), opts);
  CHECK(l.node_count() == 1);
  CHECK(l.memory_bytes() == sizeof(List) + sizeof(void*) + 8192);
  l.push_back(std::string(16, 'v'), opts);
  CHECK(l.node_count() == 2);
  for (int i = 0; i < 511; ++i) l.push_front(std::string(16, 'v'), opts);
  CHECK(l.node_count() == 3);
  l.push_front(std::string(16, 'v'), opts);
  CHECK(l.node_count() == 4);
  // With lengths (elements of two lengths), 18 bytes: 454 a node. A 15-byte
  // element joining a full uniform node does not fit once its 511 lengths
  // are counted: it opens a node.
  List mixed;
  mixed.push_back(std::string(15, 'v'), opts);
  for (int i = 0; i < 453; ++i) mixed.push_back(std::string(16, 'v'), opts);
  CHECK(mixed.node_count() == 1);  // 16 + 17 + 453 x 18 = 8187 bytes
  mixed.push_back(std::string(16, 'v'), opts);
  CHECK(mixed.node_count() == 2);
  List full;
  for (int i = 0; i < 511; ++i) full.push_back(std::string(16, 'v'), opts);
  full.push_back(std::string(15, 'v'), opts);
  CHECK(full.node_count() == 2);
  full.push_front(std::string(15, 'v'), opts);
  CHECK(full.node_count() == 3);
  full.set(5, "short", opts);  // the full node takes its lengths, then splits
  CHECK(full.at(5) == "short");
  CHECK(full.size() == 513);
  CHECK(full.node_count() == 4);

  List counted;
  const ListOptions five{.fill = 5};
  std::deque<std::string> model;
  for (int i = 0; i < 103; ++i) {
    counted.push_back(std::to_string(i), five);
    model.push_back(std::to_string(i));
  }
  CHECK(counted.node_count() == 21);
  check_same(counted, model);
  for (size_t i = 0; i < model.size(); ++i) REQUIRE(counted.at(i) == model[i]);
  CHECK(forward(counted, 97) == std::vector<std::string>{"97", "98", "99", "100", "101", "102"});
  counted.drop_front(12);
  counted.drop_back(13);
  model.erase(model.begin(), model.begin() + 12);
  model.erase(model.end() - 13, model.end());
  check_same(counted, model);
  CHECK(counted.node_count() == 16);  // 15..89: the nodes [15..19] ... [85..89], and [12..14]
}

TEST_CASE("list: a copy holds the same elements and is independent") {
  List l;
  const ListOptions opts{.fill = 3};
  for (int i = 0; i < 10; ++i) l.push_front(std::to_string(i), opts);
  List copy(l);
  l.set(0, "changed", opts);
  CHECK(copy.at(0) == "9");
  CHECK(forward(copy).size() == 10);
  CHECK(copy.memory_bytes() > sizeof(List));
}

TEST_CASE("list: random operations against std::deque") {
  for (const bool fixed : {false, true})
  for (const int64_t fill : {-2LL, -1LL, 1LL, 4LL, 0LL}) {
    CAPTURE(fixed);
    CAPTURE(fill);
    const ListOptions opts{.fill = fill};
    std::mt19937_64 rng(static_cast<uint64_t>(fill + 100 + fixed));
    List l;
    std::deque<std::string> model;
    for (int step = 0; step < 4000; ++step) {
      const size_t op = rng() % 12;
      const std::string v = value_of(rng, fixed);
      switch (op) {
        case 0:
        case 1:
          l.push_back(v, opts);
          model.push_back(v);
          break;
        case 2:
        case 3:
          l.push_front(v, opts);
          model.push_front(v);
          break;
        case 4:
          if (!model.empty()) {
            REQUIRE(l.pop_front() == model.front());
            model.pop_front();
          }
          break;
        case 5:
          if (!model.empty()) {
            REQUIRE(l.pop_back() == model.back());
            model.pop_back();
          }
          break;
        case 6:
          if (!model.empty()) {
            const size_t i = rng() % model.size();
            l.set(i, v, opts);
            model[i] = v;
          }
          break;
        case 7: {
          const std::string pivot = model.empty() ? v : model[rng() % model.size()];
          const bool before = rng() % 2;
          auto it = std::find(model.begin(), model.end(), pivot);
          REQUIRE(l.insert_at_pivot(pivot, v, before, opts) == (it != model.end()));
          if (it != model.end()) model.insert(before ? it : it + 1, v);
          break;
        }
        case 8: {
          const std::string target = model.empty() ? v : model[rng() % model.size()];
          const size_t limit = rng() % 3;
          const bool from_tail = rng() % 2;
          size_t expect = 0;
          if (!from_tail) {
            for (auto it = model.begin(); it != model.end();) {
              if (*it == target && (limit == 0 || expect < limit)) {
                it = model.erase(it);
                ++expect;
              } else {
                ++it;
              }
            }
          } else {
            for (size_t i = model.size(); i-- > 0;) {
              if (model[i] == target && (limit == 0 || expect < limit)) {
                model.erase(model.begin() + static_cast<ptrdiff_t>(i));
                ++expect;
              }
            }
          }
          REQUIRE(l.remove_equal(target, limit, from_tail) == expect);
          break;
        }
        case 9:
          if (!model.empty()) {
            const size_t k = rng() % (model.size() + 1);
            l.drop_front(k);
            model.erase(model.begin(), model.begin() + static_cast<ptrdiff_t>(k));
          }
          break;
        case 10:
          if (!model.empty()) {
            const size_t k = rng() % (model.size() / 4 + 1);
            l.drop_back(k);
            model.erase(model.end() - static_cast<ptrdiff_t>(k), model.end());
          }
          break;
        default:
          if (!model.empty()) {
            const size_t i = rng() % model.size();
            REQUIRE(l.at(i) == model[i]);
          }
      }
      if (step % 50 == 0 || l.size() < 20) check_same(l, model);
    }
    check_same(l, model);
    check_same(List(l), model);
  }
}

}  // namespace lawnkv::types
