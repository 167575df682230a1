// types::Stream (src/types/stream.hpp): random appends, deletions, exact
// and approximate trims and ranges against a std::map of IDs, and consumer
// groups' pending lists (deliveries, acks, claims, deleted consumers)
// against plain maps, under several node sizes; the node split rule
// pinned as Redis's stream-node-max-entries counts.

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "types/stream.hpp"

namespace lawnkv::types {
namespace {

using Model = std::map<StreamId, std::vector<std::string>>;

std::vector<std::string> strings(const std::vector<std::string_view>& v) { return {v.begin(), v.end()}; }

void check_range(const Stream& s, const Model& m, StreamId start, StreamId end, bool rev, size_t count) {
  std::vector<std::pair<StreamId, std::vector<std::string>>> got, want;
  s.range(start, end, rev, [&](const StreamEntry& e) {
    got.emplace_back(e.id, strings(e.fields));
    return got.size() < count;
  });
  if (start <= end) {
    if (!rev) {
      for (auto it = m.lower_bound(start); it != m.end() && it->first <= end && want.size() < count; ++it)
        want.emplace_back(it->first, it->second);
    } else {
      for (auto it = m.upper_bound(end); it != m.begin() && want.size() < count;) {
        --it;
        if (it->first < start) break;
        want.emplace_back(it->first, it->second);
      }
    }
  }
  REQUIRE(got == want);
}

struct PelModel {
  std::map<StreamId, std::pair<std::string, uint64_t>> pel;  // owner, count
};

void check_group(const StreamGroup& g, const PelModel& pm) {
  REQUIRE(g.pel.size() == pm.pel.size());
  std::map<std::string, std::set<StreamId>> owned;
  for (const auto& [id, v] : pm.pel) {
    const auto it = g.pel.find(id);
    REQUIRE(it != g.pel.end());
    CHECK(it->second.consumer->name == v.first);
    CHECK(it->second.delivery_count == v.second);
    owned[v.first].insert(id);
  }
  for (const auto& [name, c] : g.consumers) CHECK(c->pel == owned[name]);
}

void run_model(uint64_t seed, StreamLimits lim) {
  std::mt19937_64 rng(seed);
  Stream s;
  Model m;
  StreamId max_deleted;
  PelModel pm;
  StreamGroup* g = s.create_group("g", {}, kEntriesReadUnknown);
  REQUIRE(g);
  CHECK_FALSE(s.create_group("g", {}, 0));
  const char* names[] = {"alice", "bob", "carol"};
  auto random_id = [&]() -> StreamId {
    if (!m.empty() && rng() % 2) {
      auto it = m.begin();
      std::advance(it, rng() % m.size());
      return it->first;
    }
    const StreamId last = s.last_id();
    return {last.ms == 0 ? 0 : rng() % (last.ms + 2), rng() % 4};
  };
  for (int step = 0; step < 6000; step++) {
    const int op = static_cast<int>(rng() % 100);
    if (op < 45) {
      StreamId id = s.last_id();
      if (rng() % 3) {
        id.ms += 1 + rng() % 3;
        id.seq = rng() % 3;
      } else {
        id.seq++;
      }
      std::vector<std::string> f;
      if (rng() % 4) {
        f = {"a", std::to_string(rng() % 1000), "b", std::string(rng() % 40, 'x')};
      } else {
        const size_t n = 1 + rng() % 3;
        for (size_t i = 0; i < n; i++) {
          f.push_back("k" + std::to_string(rng() % 4));
          f.push_back(std::string(rng() % 300, 'v'));
        }
      }
      std::vector<std::string_view> views(f.begin(), f.end());
      s.append(id, views, lim);
      m[id] = f;
    } else if (op < 55) {
      const StreamId id = random_id();
      const bool had = m.erase(id) > 0;
      REQUIRE(s.erase(id) == had);
      if (had && id > max_deleted) max_deleted = id;
    } else if (op < 60) {
      StreamTrim t;
      t.by = StreamTrim::By::kMaxLen;
      t.maxlen = rng() % (m.size() + 3);
      t.approx = rng() % 2;
      const size_t before = m.size();
      const int64_t n = s.trim(t);
      if (!t.approx) {
        while (m.size() > t.maxlen) m.erase(m.begin());
      } else {
        CHECK(s.length() >= std::min<uint64_t>(before, t.maxlen));
        for (int64_t i = 0; i < n; i++) m.erase(m.begin());
      }
      REQUIRE(static_cast<size_t>(n) == before - m.size());
    } else if (op < 63) {
      StreamTrim t;
      t.by = StreamTrim::By::kMinId;
      t.minid = random_id();
      t.approx = rng() % 2;
      const size_t before = m.size();
      const int64_t n = s.trim(t);
      if (!t.approx) {
        m.erase(m.begin(), m.lower_bound(t.minid));
      } else {
        for (int64_t i = 0; i < n; i++) {
          CHECK(m.begin()->first < t.minid);
          m.erase(m.begin());
        }
      }
      REQUIRE(static_cast<size_t>(n) == before - m.size());
    } else if (op < 80) {
      StreamId a = random_id(), b = random_id();
      if (rng() % 4 == 0) std::swap(a, b);
      check_range(s, m, a, b, rng() % 2, 1 + rng() % 12);
      const StreamId id = random_id();
      StreamEntry e;
      const bool found = s.find(id, &e);
      REQUIRE(found == (m.count(id) > 0));
      if (found) CHECK(strings(e.fields) == m[id]);
    } else if (op < 88) {
      if (m.empty()) continue;
      const StreamId id = random_id();
      if (!m.count(id)) continue;
      const std::string who = names[rng() % 3];
      g->deliver(id, g->consumer_or_create(who, step, nullptr), step);
      pm.pel[id] = {who, 1};
    } else if (op < 93) {
      const StreamId id = random_id();
      REQUIRE(g->ack(id) == (pm.pel.erase(id) > 0));
    } else if (op < 98) {
      if (pm.pel.empty()) continue;
      auto it = pm.pel.begin();
      std::advance(it, rng() % pm.pel.size());
      const std::string who = names[rng() % 3];
      StreamNack& n = g->claim(it->first, g->consumer_or_create(who, step, nullptr));
      n.delivery_count++;
      it->second = {who, it->second.second + 1};
    } else {
      const std::string who = names[rng() % 3];
      size_t owned = 0;
      for (auto it = pm.pel.begin(); it != pm.pel.end();) {
        if (it->second.first == who) {
          it = pm.pel.erase(it);
          owned++;
        } else {
          ++it;
        }
      }
      const int64_t got = g->delete_consumer(who);
      CHECK(got == (g->consumer(who) ? -2 : got));
      if (got >= 0) CHECK(static_cast<size_t>(got) == owned);
    }
    REQUIRE(s.length() == m.size());
    if (!m.empty()) REQUIRE(s.first_id() == m.begin()->first);
    check_group(*g, pm);
  }
  check_range(s, m, {}, StreamId::max(), false, SIZE_MAX);
  check_range(s, m, {}, StreamId::max(), true, SIZE_MAX);
  const auto copy = s.clone();
  const auto& c = static_cast<const Stream&>(*copy);
  check_range(c, m, {}, StreamId::max(), false, SIZE_MAX);
  check_group(*c.group("g"), pm);
  CHECK(c.entries_added() == s.entries_added());
}

TEST_CASE("stream: random operations against a std::map, groups and pending lists included") {
  run_model(1, {});
  run_model(2, {.node_max_bytes = 120, .node_max_entries = 0});
  run_model(3, {.node_max_bytes = 0, .node_max_entries = 3});
  run_model(4, {.node_max_bytes = 0, .node_max_entries = 0});
}

TEST_CASE("stream: nodes split at stream-node-max-entries, tombstones counted; ~ trims whole nodes") {
  Stream s;
  const std::vector<std::string_view> f = {"f", "v"};
  for (uint64_t i = 1; i <= 250; i++) s.append({i, 0}, f, {});
  CHECK(s.node_count() == 3);
  CHECK(s.erase({5, 0}));
  CHECK(s.max_deleted_id() == StreamId{5, 0});
  StreamTrim t{.by = StreamTrim::By::kMaxLen, .approx = true, .maxlen = 120, .minid = {}};
  CHECK(s.trim(t) == 99);  // the first node, its tombstone not counted
  CHECK(s.length() == 150);
  CHECK(s.first_id() == StreamId{101, 0});
  t.approx = false;
  CHECK(s.trim(t) == 30);
  CHECK(s.first_id() == StreamId{131, 0});
  CHECK(s.entries_added() == 250);
  CHECK(s.estimate_distance({250, 0}) == 250);
  CHECK(s.estimate_distance({1, 0}) == 130);  // before the first entry, no tombstone ahead
  CHECK(s.erase({200, 0}));
  CHECK(s.estimate_distance({1, 0}) == -1);  // a tombstone (XDEL) lies ahead
}

}  // namespace
}  // namespace lawnkv::types
