// The dehydrator against a plain reference model (a map of id -> deadline,
// push order, value), under random pushes, pulls, acks, updates, polls and
// clock advances: the same elements come out, in deadline order, never early.

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <random>
#include <string>
#include <vector>

#include "dehydrator/dehydrator.hpp"

using lawnkv::dehydrator::Dehydrator;

namespace {

struct Ref {
  int64_t deadline;
  uint64_t seq;
  std::string value;
};

std::vector<std::string> poll_all(Dehydrator& d, int64_t now, size_t max = SIZE_MAX) {
  std::vector<std::string> out;
  d.poll(now, max, [&](std::string_view v) { out.emplace_back(v); });
  return out;
}

}  // namespace

TEST_CASE("dehydrator: an element is due only once its whole TTL has passed") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  CHECK(d.ttn(t0) == -1);
  REQUIRE(d.push("a", "A", 5000, t0));
  CHECK_FALSE(d.push("a", "other", 10, t0));  // already dehydrating: unchanged
  CHECK(d.ttn(t0) == 5001);
  CHECK(poll_all(d, t0 + 5000).empty());      // now == deadline: not yet
  CHECK(d.ttn(t0 + 5000) == 1);
  CHECK(d.due_ids(t0 + 5000).empty());
  CHECK(*d.look("a") == "A");
  CHECK(d.ttn(t0 + 5001) == 0);
  CHECK(poll_all(d, t0 + 5001) == std::vector<std::string>{"A"});
  CHECK(d.ttn(t0 + 5001) == -1);
  CHECK(d.size() == 0);
}

TEST_CASE("dehydrator: POLL returns due elements in expiry order across TTLs") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  d.push("slow", "S", 3000, t0);
  d.push("fast1", "F1", 1000, t0);
  d.push("mid", "M", 2000, t0);
  d.push("fast2", "F2", 1000, t0 + 1);
  d.push("abs", "X", 0, t0 + 500);  // TTL 0: due 1 ms after its push
  CHECK(poll_all(d, t0 + 10000) == std::vector<std::string>{"X", "F1", "F2", "M", "S"});
}

TEST_CASE("dehydrator: elements of one TTL pushed in the same millisecond come out in push order") {
  // The first arrivals of a TTL sit in the wheel (the TTL is not hot yet) and
  // far-off deadlines cascade through several levels: order must survive both.
  for (int64_t ttl : {5, 70, 5000, 400000}) {
    CAPTURE(ttl);
    Dehydrator d;
    const int64_t t0 = 1'700'000'000'000;
    std::vector<std::string> want;
    for (int i = 0; i < 200; ++i) {
      want.push_back("v" + std::to_string(i));
      d.push("id" + std::to_string(i), want.back(), ttl, t0);
      d.ttn(t0);  // as the server does between commands: the wheel's cursor moves to now
    }
    CHECK(poll_all(d, t0 + ttl + 1) == want);
  }
}

TEST_CASE("dehydrator: XPOLL lists due ids without removing; XACK removes only due ones") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  d.push("a", "A", 10, t0);
  d.push("b", "B", 20, t0);
  d.push("c", "C", 1000, t0);
  const auto ids = d.due_ids(t0 + 100);
  REQUIRE(ids.size() == 2);
  CHECK(ids[0] == "a");
  CHECK(ids[1] == "b");
  CHECK(d.due_ids(t0 + 100).size() == 2);  // still there
  CHECK(d.ack("c", t0 + 100) == std::nullopt);  // not due
  CHECK(d.ack("a", t0 + 100) == std::optional<std::string>("A"));
  CHECK(d.ack("a", t0 + 100) == std::nullopt);  // gone
  CHECK(d.size() == 2);
  CHECK(d.update("b", "B2") == std::optional<std::string>("B"));
  CHECK(poll_all(d, t0 + 100) == std::vector<std::string>{"B2"});
  CHECK(d.pull("c") == std::optional<std::string>("C"));
  CHECK(d.ttn(t0 + 100) == -1);
}

TEST_CASE("dehydrator: UPDATE to a value of another length keeps the element's place") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  for (const char* id : {"a", "b", "c", "d"}) d.push(id, id, 1000, t0);
  d.push("later", "L", 5000, t0);
  CHECK(d.due_ids(t0 + 1001) == std::vector<std::string_view>{"a", "b", "c", "d"});
  const std::string long_value(400, 'x');
  CHECK(d.update("a", long_value) == std::optional<std::string>("a"));  // due list head
  CHECK(d.update("c", "cc") == std::optional<std::string>("c"));        // middle
  CHECK(d.update("d", "") == std::optional<std::string>("d"));          // tail
  CHECK(d.update("later", "LL") == std::optional<std::string>("L"));    // in the index
  CHECK(*d.look("a") == long_value);
  CHECK(d.due_ids(t0 + 1001) == std::vector<std::string_view>{"a", "b", "c", "d"});
  CHECK(d.ttn(t0 + 1001) == 0);
  CHECK(poll_all(d, t0 + 1001, 2) == std::vector<std::string>{long_value, "b"});
  CHECK(poll_all(d, t0 + 5001) == std::vector<std::string>{"cc", "", "LL"});
  CHECK(d.size() == 0);
}

TEST_CASE("dehydrator: an emptied dehydrator gives back its id table") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  const size_t empty = d.memory_bytes();
  for (int i = 0; i < 100'000; ++i) d.push("id" + std::to_string(i), "v", 1000 + i % 100, t0);
  CHECK(d.memory_bytes() > empty + 100'000 * 56);
  CHECK(poll_all(d, t0 + 2000).size() == 100'000);
  // The index may keep what it allocated for its TTLs; the id table and the
  // elements are gone.
  CHECK(d.memory_bytes() < empty + 100'000);
}

TEST_CASE("dehydrator: TTLs past 32 bits and binary ids") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  const int64_t big = (int64_t{1} << 33) + 7;
  const std::string id_nul("a\0b", 3);
  REQUIRE(d.push(id_nul, "v", big, t0));
  CHECK(d.push(std::string("a"), "w", 1, t0));  // "a" is not "a\0b"
  CHECK(d.ttn(t0) == 2);
  CHECK(poll_all(d, t0 + 2) == std::vector<std::string>{"w"});
  CHECK(d.ttn(t0 + 2) == big + 1 - 2);
  CHECK(poll_all(d, t0 + big).empty());
  CHECK(poll_all(d, t0 + big + 1) == std::vector<std::string>{"v"});
}

TEST_CASE("dehydrator: deadline_for refuses what the index cannot hold; push clamps, never aborts") {
  const int64_t t0 = 1'700'000'000'000;
  const int64_t max = Dehydrator::kMaxDeadline;
  CHECK(Dehydrator::deadline_for(0, t0) == t0);
  CHECK(Dehydrator::deadline_for(max - t0, t0) == max);
  CHECK(Dehydrator::deadline_for(max - t0 + 1, t0) == std::nullopt);  // kNever: "nothing pending"
  CHECK(Dehydrator::deadline_for(INT64_MAX, t0) == std::nullopt);      // overflows
  CHECK(Dehydrator::deadline_for(INT64_MAX - 1, t0) == std::nullopt);
  CHECK(Dehydrator::deadline_for(-1, 0) == std::nullopt);
  CHECK(Dehydrator::deadline_for(INT64_MIN, t0) == std::nullopt);

  // Each of these used to overflow into a negative deadline: the index's
  // assert aborted the server (REDE.PUSH refuses them before push now).
  Dehydrator d;
  REQUIRE(d.push("max", "M", INT64_MAX, t0));
  REQUIRE(d.push("max-1", "M1", INT64_MAX - 1, t0));
  REQUIRE(d.push("edge", "E", max - t0, t0));
  REQUIRE(d.push("neg", "N", INT64_MIN, t0));  // clamped to deadline 0: due at once
  CHECK(d.ttn(t0) == 0);
  CHECK(poll_all(d, t0) == std::vector<std::string>{"N"});
  // The rest wait until the end of time, and TTN says so without overflow.
  CHECK(d.ttn(t0) == max + 1 - t0);
  CHECK(poll_all(d, max).empty());
  CHECK(d.size() == 3);
  CHECK(d.pull("max-1") == "M1");
  CHECK(d.ttn(t0) == max + 1 - t0);
}

TEST_CASE("dehydrator: a copy hands out the same elements in the same order") {
  Dehydrator d;
  const int64_t t0 = 1'700'000'000'000;
  for (int i = 0; i < 50; ++i) d.push("id" + std::to_string(i), "v" + std::to_string(i), 10 * (i % 7), t0 + i);
  d.due_ids(t0 + 40);  // some are on the due list, some still pending
  auto copy = d.clone();
  auto& c = static_cast<Dehydrator&>(*copy);
  CHECK(c.size() == d.size());
  CHECK(poll_all(c, t0 + 1000) == poll_all(d, t0 + 1000));
}

TEST_CASE("dehydrator: randomized model test against a reference") {
  const uint64_t seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int mix = 0; mix < 3; ++mix) {
    CAPTURE(mix);
    Dehydrator d;
    std::map<std::string, Ref> ref;
    int64_t now = 1'700'000'000'000;
    uint64_t seq = 0;
    auto ttl = [&]() -> int64_t {
      switch (mix) {
        case 0: return 100 * static_cast<int64_t>(rng() % 16);        // 16 TTLs
        case 1: return static_cast<int64_t>(rng() % 1000) * 7;        // 1,000 TTLs
        default: return static_cast<int64_t>(rng() % 3'600'000);      // continuous
      }
    };
    for (int step = 0; step < 200'000; ++step) {
      const std::string id = "e" + std::to_string(rng() % 2000);
      switch (rng() % 10) {
        case 0: case 1: case 2: {
          const int64_t t = ttl();
          const bool fresh = ref.count(id) == 0;
          CHECK(d.push(id, id + "v", t, now) == fresh);
          if (fresh) ref[id] = Ref{now + t, seq++, id + "v"};
          break;
        }
        case 3: {
          auto got = d.pull(id);
          auto it = ref.find(id);
          CHECK(got.has_value() == (it != ref.end()));
          if (it != ref.end()) {
            CHECK(*got == it->second.value);
            ref.erase(it);
          }
          break;
        }
        case 4: {
          auto got = d.ack(id, now);
          auto it = ref.find(id);
          const bool due = it != ref.end() && now > it->second.deadline;
          CHECK(got.has_value() == due);
          if (due) ref.erase(it);
          break;
        }
        case 5: {
          // Values of other lengths (long ones too) move the element to a
          // new block, which must keep its place.
          const std::string value = id + std::string(rng() % 5 == 0 ? 300 : rng() % 4, 'u');
          auto got = d.update(id, value);
          auto it = ref.find(id);
          CHECK(got.has_value() == (it != ref.end()));
          if (it != ref.end()) {
            CHECK(*got == it->second.value);
            it->second.value = value;
          }
          break;
        }
        case 6: {
          // Everything due and nothing early (the order is checked by XPOLL).
          std::multiset<std::string> want;
          for (auto& [k, r] : ref)
            if (now > r.deadline) want.insert(r.value);
          std::multiset<std::string> got;
          d.poll(now, SIZE_MAX, [&](std::string_view v) { got.emplace(v); });
          CHECK(got == want);
          for (auto it = ref.begin(); it != ref.end();)
            it = now > it->second.deadline ? ref.erase(it) : std::next(it);
          break;
        }
        case 7: {
          // XPOLL ids come in non-decreasing deadline order and are exactly the due ones.
          const auto ids = d.due_ids(now);
          size_t due = 0;
          for (auto& [k, r] : ref) due += now > r.deadline;
          CHECK(ids.size() == due);
          int64_t last = INT64_MIN;
          for (auto v : ids) {
            auto it = ref.find(std::string(v));
            REQUIRE(it != ref.end());
            CHECK(it->second.deadline >= last);
            CHECK(now > it->second.deadline);
            last = it->second.deadline;
          }
          break;
        }
        case 8: {
          int64_t want = -1;
          for (auto& [k, r] : ref) {
            const int64_t t = now > r.deadline ? 0 : r.deadline + 1 - now;
            if (want < 0 || t < want) want = t;
          }
          CHECK(d.ttn(now) == want);
          break;
        }
        default:
          now += static_cast<int64_t>(rng() % (mix == 2 ? 200'000 : 300));
      }
      REQUIRE(d.size() == ref.size());
    }
  }
}
