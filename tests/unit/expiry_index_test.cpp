// The two-tier index: the worked example of index.hpp, Lawn queues and their
// proxies, bounded drains, clock steps, callbacks that change the index.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "expiry/index.hpp"
#include "expiry_test_timers.hpp"

namespace lawnkv::expiry {
namespace {

TEST_SUITE_BEGIN("expiry");

constexpr int64_t kT = 1'700'000'000'000;

std::vector<Timer*> drain_all(Index& ix, int64_t now, size_t max = SIZE_MAX) {
  std::vector<Timer*> out;
  ix.drain(now, max, [&](Timer* t) {
    CHECK(!Index::scheduled(t));
    CHECK(t->deadline < now);
    out.push_back(t);
  });
  return out;
}

// Makes ttl hot: kHotAfter arrivals, the first ones to the wheel.
void warm(Index& ix, int64_t now, int64_t ttl, Timers& scratch) {
  scratch.resize(TtlTable::kHotAfter);
  for (Timer& t : scratch) ix.add(&t, now + ttl, ttl);
  for (Timer& t : scratch) ix.cancel(&t);
}

TEST_CASE("expiry index: the worked example of index.hpp") {
  Index ix;
  CHECK(drain_all(ix, kT).empty());  // the cursor is at T
  Timers scratch;
  warm(ix, kT, 5000, scratch);
  REQUIRE(ix.queues() == 1);
  NamedTimers<5> box;
  auto& [a, b, c, d, e] = *box;
  ix.add(&a, kT + 5000, 5000);  // q5000 head; proxy at level 2, slot 23
  CHECK(ix.wheel().occupied(2) == (uint64_t{1} << 23));
  ix.add(&b, kT + 5001, 5000);  // q5000 tail, wheel untouched
  CHECK(b.prev == &a);
  ix.add(&c, kT + 1234, 1234);  // cold TTL: wheel level 1, slot 51
  CHECK(ix.wheel().occupied(1) == (uint64_t{1} << 51));
  ix.add(&d, kT + 40, 0);  // PXAT: level 0, slot 40
  CHECK(ix.wheel().occupied(0) == (uint64_t{1} << 40));
  ix.add(&e, kT + 3000, 5000);  // clock stepped back: below the tail, so wheel
  CHECK(ix.wheel().occupied(2) == (uint64_t{1} << 23));
  CHECK(e.prev != &b);
  CHECK(ix.size() == 5);
  CHECK(ix.next_deadline() == kT + 40);

  std::vector<Timer*> got = drain_all(ix, kT + 41);
  CHECK(got == std::vector<Timer*>{&d});
  got = drain_all(ix, kT + 5002);
  CHECK(got == std::vector<Timer*>{&c, &e, &a, &b});
  CHECK(ix.size() == 0);
  CHECK(ix.next_deadline() == kNever);
}

TEST_CASE("expiry index: a hot TTL's timers queue up behind one proxy") {
  Index ix;
  drain_all(ix, kT);
  Timers scratch;
  warm(ix, kT, 60'000, scratch);
  Timers ts(1000);
  for (size_t i = 0; i < ts.size(); ++i) ix.add(&ts[i], kT + static_cast<int64_t>(i) + 60'000, 60'000);
  CHECK(ix.size() == 1000);
  CHECK(ix.queues() == 1);
  // The wheel holds exactly one Timer: the proxy.
  int bits = 0;
  for (int l = 0; l < Wheel::kLevels; ++l) bits += std::popcount(ix.wheel().occupied(l));
  CHECK(bits == 1);
  CHECK(ix.next_deadline() <= kT + 60'000);
  std::vector<Timer*> got = drain_all(ix, kT + 60'500);
  CHECK(got.size() == 500);
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == &ts[i]);
  CHECK(ix.size() == 500);
}

TEST_CASE("expiry index: cancelling a queue's head moves its proxy to the new head") {
  Index ix;
  drain_all(ix, kT);
  Timers scratch;
  warm(ix, kT, 100, scratch);
  NamedTimers<3> box;
  auto& [a, b, c] = *box;
  ix.add(&a, kT + 100, 100);
  ix.add(&b, kT + 130, 100);
  ix.add(&c, kT + 170, 100);
  CHECK(ix.next_deadline() <= kT + 100);
  ix.cancel(&a);
  CHECK(!Index::scheduled(&a));
  CHECK(drain_all(ix, kT + 129).empty());
  CHECK(ix.next_deadline() == kT + 130);  // exact once the wheel is near
  ix.cancel(&b);
  CHECK(ix.next_deadline() <= kT + 170);
  ix.cancel(&c);
  CHECK(ix.next_deadline() == kNever);
  CHECK(ix.size() == 0);
  CHECK(ix.queues() == 1);  // idle, still hot
  ix.cancel(&c);            // cancelling an unscheduled timer is a no-op
  CHECK(ix.size() == 0);
  // The queue takes timers again.
  ix.add(&a, kT + 300, 100);
  CHECK(a.prev != nullptr);
  CHECK(drain_all(ix, kT + 301) == std::vector<Timer*>{&a});
}

TEST_CASE("expiry index: reschedule moves a timer between tiers") {
  Index ix;
  drain_all(ix, kT);
  Timers scratch;
  warm(ix, kT, 1000, scratch);
  NamedTimers<2> box;
  auto& [a, b] = *box;
  ix.add(&a, kT + 1000, 1000);
  ix.add(&b, kT + 2000, 0);
  ix.reschedule(&a, kT + 50'000, 0);       // PEXPIREAT: to the wheel
  ix.reschedule(&b, kT + 1000, 1000);      // EXPIRE with the hot TTL: to the queue
  ix.reschedule(&b, kT + 1001, 1000);      // refreshed: still one entry
  CHECK(ix.size() == 2);
  CHECK(drain_all(ix, kT + 1002) == std::vector<Timer*>{&b});
  CHECK(drain_all(ix, kT + 50'000).empty());
  CHECK(drain_all(ix, kT + 50'001) == std::vector<Timer*>{&a});
}

TEST_CASE("expiry index: bounded work: a drain never yields more than max; the rest carries over") {
  Index ix;
  drain_all(ix, kT);
  Timers ts(10'000);
  for (size_t i = 0; i < ts.size(); ++i) {
    const int64_t ttl = (i % 3 == 0) ? 500 : static_cast<int64_t>(1 + i % 4000);
    ix.add(&ts[i], kT + ttl, ttl);
  }
  const int64_t now = kT + 4002;
  int64_t last = INT64_MIN;
  size_t total = 0;
  int calls = 0;
  for (;;) {
    size_t n = ix.drain(now, 64, [&](Timer* t) {
      CHECK(t->deadline >= last);  // deadline order across calls too
      last = t->deadline;
    });
    CHECK(n <= 64);
    total += n;
    ++calls;
    if (n == 0 && ix.next_deadline() >= now) break;
    REQUIRE(calls < 10'000);
  }
  CHECK(total == ts.size());
  CHECK(ix.size() == 0);
}

TEST_CASE("expiry index: with a budget of 1, a deep cascade still completes over calls") {
  Index ix;
  drain_all(ix, 0);
  Timers ts(5000);
  for (size_t i = 0; i < ts.size(); ++i) ix.add(&ts[i], (int64_t{1} << 30) + static_cast<int64_t>(i), 0);
  size_t total = 0;
  int calls = 0;
  while (ix.next_deadline() < (int64_t{1} << 31)) {
    total += ix.drain(int64_t{1} << 31, 1, [](Timer*) {});
    REQUIRE(++calls < 1'000'000);
  }
  CHECK(total == ts.size());
}

TEST_CASE("expiry index: the clock steps back and forward") {
  Index ix;
  drain_all(ix, kT);
  Timers scratch;
  warm(ix, kT, 10'000, scratch);
  NamedTimers<4> box;
  auto& [a, b, c, d] = *box;
  ix.add(&a, kT + 10'000, 10'000);
  CHECK(drain_all(ix, kT + 5000).empty());  // the cursor moves to kT + 5000
  // The wall clock steps back by one hour; keys are set meanwhile.
  const int64_t back = kT - 3'600'000;
  ix.add(&b, back + 10'000, 10'000);  // below the queue's tail: goes to the wheel
  ix.add(&c, back + 20, 0);           // PXAT below the cursor: the wheel rewinds
  CHECK(ix.next_deadline() <= back + 20);
  CHECK(drain_all(ix, back + 20).empty());  // never early, even far below the cursor
  CHECK(drain_all(ix, back + 21) == std::vector<Timer*>{&c});
  CHECK(drain_all(ix, back + 10'000).empty());
  CHECK(drain_all(ix, back + 10'001) == std::vector<Timer*>{&b});
  // The clock jumps forward by a day: everything due comes out, in order.
  ix.add(&d, kT + 20'000, 0);
  CHECK(drain_all(ix, kT + 86'400'000) == std::vector<Timer*>{&a, &d});
  CHECK(ix.size() == 0);
}

TEST_CASE("expiry index: on_due may cancel, add and re-add") {
  Index ix;
  drain_all(ix, kT);
  Timers scratch;
  warm(ix, kT, 200, scratch);
  NamedTimers<5> box;
  // References, not a structured binding: the callback captures them (clang
  // before 16 cannot capture bindings).
  Timer &a = (*box)[0], &b = (*box)[1], &c = (*box)[2], &d = (*box)[3], &e = (*box)[4];
  ix.add(&a, kT + 200, 200);
  ix.add(&b, kT + 201, 200);
  ix.add(&c, kT + 202, 200);
  ix.add(&d, kT + 300, 0);
  std::vector<Timer*> seen;
  bool readded = false;
  ix.drain(kT + 400, SIZE_MAX, [&](Timer* t) {
    seen.push_back(t);
    if (t == &a) {
      ix.cancel(&b);                // the queue's new head: its proxy moves
      ix.add(&e, kT + 250, 0);      // due in this same drain
      ix.add(&scratch[0], kT - 10, 0);  // below the cursor: rewinds mid-drain
    }
    if (t == &d && !readded) {
      readded = true;
      ix.add(&d, kT + 1000, 0);     // re-add itself, not due yet
    }
  });
  CHECK(seen == std::vector<Timer*>{&a, &scratch[0], &c, &e, &d});
  CHECK(Index::scheduled(&d));
  CHECK(ix.size() == 1);
  CHECK(drain_all(ix, kT + 1001) == std::vector<Timer*>{&d});
}

TEST_CASE("expiry index: TTLs past 2^32 ms and deadlines years ahead") {
  Index ix;
  drain_all(ix, kT);
  const int64_t big_ttl = (int64_t{1} << 32) + 12345;  // ~50 days
  Timers ts(8);
  for (Timer& t : ts) ix.add(&t, kT + big_ttl, big_ttl);  // turns hot on the 4th
  CHECK(ix.queues() == 1);
  NamedTimers<3> box;
  auto& [far, never, huge] = *box;
  ix.add(&far, kT + 30 * 365 * 86'400'000LL, 0);
  ix.add(&never, kNever - 1, 0);
  ix.add(&huge, detail::kQueueDeadlineLimit + 5, 7);  // too late for a queue: wheel
  CHECK(ix.size() == 11);
  CHECK(drain_all(ix, kT + big_ttl).empty());
  CHECK(drain_all(ix, kT + big_ttl + 1).size() == 8);
  CHECK(drain_all(ix, kT + 30 * 365 * 86'400'000LL + 1) == std::vector<Timer*>{&far});
  CHECK(drain_all(ix, kNever) == std::vector<Timer*>{&huge, &never});
  CHECK(ix.size() == 0);
}

TEST_CASE("expiry index: idle queues are retired, the rest stay bounded") {
  Index ix;
  drain_all(ix, kT);
  Timers ts(4 * 500);
  // 500 TTLs, each hot after 4 arrivals; then all expire.
  for (size_t i = 0; i < ts.size(); ++i) {
    const int64_t ttl = 1000 + static_cast<int64_t>(i / 4);
    ix.add(&ts[i], kT + ttl, ttl);
  }
  CHECK(ix.queues() == 500);
  CHECK(drain_all(ix, kT + 10'000).size() == ts.size());
  CHECK(ix.queues() <= Index::kMinIdleQueues);
}

TEST_CASE("expiry index: an index moves with its timers; clear forgets them") {
  Index ix;
  drain_all(ix, kT);
  Timers scratch;
  warm(ix, kT, 700, scratch);
  NamedTimers<2> box;
  auto& [a, b] = *box;
  ix.add(&a, kT + 700, 700);
  ix.add(&b, kT + 900, 0);
  Index moved(std::move(ix));
  CHECK(moved.size() == 2);
  moved.cancel(&a);
  CHECK(drain_all(moved, kT + 901) == std::vector<Timer*>{&b});
  ix = std::move(moved);
  ix.add(&a, kT + 1000, 700);
  const size_t bytes = ix.memory_bytes();
  CHECK(bytes >= Wheel::kLists * sizeof(Timer) + 64);
  ix.clear();  // a and b are not touched: as after FLUSHALL
  CHECK(ix.size() == 0);
  CHECK(ix.next_deadline() == kNever);
  CHECK(drain_all(ix, kNever).empty());
}

TEST_SUITE_END();

}  // namespace
}  // namespace lawnkv::expiry
