// server::timer_delay_us: the wait the expiry cycle sets its timer for, from the
// clock's now (us) and the next deadline (ms). A table of edge values: due
// already, due in the next ms, mid-millisecond rounding, and deadlines so far
// away that (deadline + 1) * 1000 overflows int64 (PXAT 1e16 .. kNever - 1).
// And the cycle itself on a real loop: replies waiting to be sent go before
// each cycle reaps, a cycle's deletions reach the effects' sinks (the
// append-only file, the replicas) in one call, and a cycle past
// latency-monitor-threshold is Redis's `expire-cycle` latency event.

#include <doctest/doctest.h>

#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "core/clock.hpp"
#include "store/reap_limit.hpp"
#include "expiry/timer.hpp"
#include "server/expiry_cycle.hpp"

namespace lawnkv::server {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;  // Unix ms
constexpr int64_t kNowUs = kNow * 1000;

TEST_CASE("timer_delay_us: kNever arms no timer") {
  CHECK(timer_delay_us(kNowUs, expiry::kNever) == std::nullopt);
  CHECK(timer_delay_us(0, expiry::kNever) == std::nullopt);
}

TEST_CASE("timer_delay_us: due once now > deadline, never early") {
  struct Row {
    int64_t now_us;
    int64_t deadline_ms;
    uint64_t delay_us;
  };
  const Row rows[] = {
      {kNowUs, kNow - 1'000'000, 0},  // long past
      {kNowUs, kNow - 1, 0},          // due now
      {kNowUs, kNow, 1'000},          // still exists at now == deadline
      {kNowUs, kNow + 1, 2'000},
      {kNowUs + 1, kNow, 999},        // mid-millisecond: to the microsecond
      {kNowUs + 999, kNow, 1},
      {kNowUs + 999, kNow - 1, 0},
      {kNowUs, kNow + 3'600'000, 3'600'001'000},
      {0, 0, 1'000},
      {-1, -1, 1},  // a clock stepped before 1970: due at 0 us
      {-1'500, -2, 500},
      {-1'000, -2, 0},
  };
  for (const Row& r : rows) {
    INFO("now_us ", r.now_us, ", deadline ", r.deadline_ms);
    CHECK(timer_delay_us(r.now_us, r.deadline_ms) == r.delay_us);
  }
}

TEST_CASE("timer_delay_us: a deadline too far to wait for gets the longest timer, not 0") {
  const int64_t far[] = {
      kNow + static_cast<int64_t>(kMaxTimerDelayUs / 1000),
      10'000'000'000'000'000,     // PXAT 1e16: (deadline + 1) * 1000 overflows
      4'600'000'000'000'000'000,  // PXAT 4.6e18
      expiry::kNever - 1,
  };
  for (int64_t deadline : far) {
    INFO("deadline ", deadline);
    CHECK(timer_delay_us(kNowUs, deadline) == kMaxTimerDelayUs);
    CHECK(timer_delay_us(0, deadline) == kMaxTimerDelayUs);
    CHECK(timer_delay_us(INT64_MIN, deadline) == kMaxTimerDelayUs);
  }
  // Just under the cap is exact.
  CHECK(timer_delay_us(kNowUs, kNow + static_cast<int64_t>(kMaxTimerDelayUs / 1000) - 2) ==
        kMaxTimerDelayUs - 1000);
  // A clock moved to the far end of time (DEBUG ADVANCE-TIME).
  CHECK(timer_delay_us(INT64_MAX, 0) == 0);
  CHECK(timer_delay_us(INT64_MAX, INT64_MAX / 1000 - 1) == 0);
  CHECK(timer_delay_us(INT64_MAX, expiry::kNever - 1) == kMaxTimerDelayUs);
}

// A loop with the cycle, armed before each poll as the server arms it (from
// a prepare handle, which also keeps the loop alive: the cycle's own
// handles do not).
struct CycleLoop {
  uv_loop_t loop;
  uv_prepare_t prepare;
  LoopTrace trace;
  std::unique_ptr<ExpiryCycle> cycle;

  CycleLoop(ServerState& state, std::function<void()> flush_first) {
    uv_loop_init(&loop);
    cycle = std::make_unique<ExpiryCycle>(&loop, state, trace, std::move(flush_first));
    uv_prepare_init(&loop, &prepare);
    prepare.data = cycle.get();
    uv_prepare_start(&prepare, [](uv_prepare_t* h) { static_cast<ExpiryCycle*>(h->data)->arm(); });
  }
  // Runs iterations until state's keyspace is empty or `iterations` have run.
  void run_until_empty(ServerState& state, int iterations) {
    for (int i = 0; i < iterations && state.data.keyspace.total_keys() > 0; ++i) uv_run(&loop, UV_RUN_NOWAIT);
  }
  ~CycleLoop() {
    cycle->close();
    uv_close(reinterpret_cast<uv_handle_t*>(&prepare), nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
  }
};

// n keys past their deadline (the fixture's clock is years behind the
// server clock the cycle reads).
void add_due_keys(test::CommandServer& server, int n) {
  for (int i = 0; i < n; ++i) REQUIRE(server.run({"SET", "k" + std::to_string(i), "v", "PX", "1"}) == "+OK\r\n");
}

TEST_CASE("ExpiryCycle: every cycle sends what waits to be sent before it reaps a key") {
  // Replies leave in the prepare phase, after the idle phase the cycle runs
  // in: without flush_first a reply read in the last poll would wait behind
  // a whole cycle. With a 1 us budget each cycle reaps one chunk, which
  // stops at its first look at the clock (store/reap_limit.hpp), or at a
  // later one if the machine is that fast.
  test::CommandServer server;
  server.state.config.mutable_values().expiry_budget_us = 1;
  add_due_keys(server, 300);
  std::vector<size_t> keys_at_flush;
  CycleLoop loop(server.state, [&] { keys_at_flush.push_back(server.state.data.keyspace.total_keys()); });
  loop.run_until_empty(server.state, 100);
  CHECK(server.state.data.keyspace.total_keys() == 0);
  REQUIRE(keys_at_flush.size() >= 3);
  CHECK(keys_at_flush.front() == 300);
  for (size_t i = 1; i < keys_at_flush.size(); ++i) {
    INFO("cycle ", i);
    CHECK(keys_at_flush[i] < keys_at_flush[i - 1]);  // every cycle reaped, after its flush
    CHECK(keys_at_flush[i - 1] - keys_at_flush[i] <= 128);
  }
}

// Counts the calls a sink gets and the records in them.
struct CountingSink : EffectSink {
  size_t appends = 0;
  std::vector<size_t> each_calls;
  void append(std::span<const EffectRecord>) override { ++appends; }
  void append_each(std::span<const EffectRecord> records) override { each_calls.push_back(records.size()); }
};

TEST_CASE("ExpiryCycle: a cycle's deletions reach each sink in one call, before the cycle ends") {
  // One encoding and one write to the file and to each replica per cycle,
  // not per key; and before the loop's prepare phase sends the replies.
  test::CommandServer server;
  server.state.config.mutable_values().expiry_budget_us = 10'000'000;  // one cycle reaps them all
  add_due_keys(server, 300);
  CountingSink sink;
  server.state.data.effects.attach(&sink);
  size_t flushes = 0;
  CycleLoop loop(server.state, [&] { ++flushes; });
  loop.run_until_empty(server.state, 100);
  CHECK(server.state.data.keyspace.total_keys() == 0);
  CHECK(flushes == 1);
  CHECK(sink.appends == 0);
  CHECK(sink.each_calls == std::vector<size_t>{300});
  server.state.data.effects.detach(&sink);
}

TEST_CASE("ExpiryCycle: between chunks, the chunk's deletions are handed over before the server sends them") {
  // The replicas start on a chunk while the next is reaped.
  test::CommandServer server;
  server.state.config.mutable_values().expiry_budget_us = 10'000'000;
  add_due_keys(server, 300);
  CountingSink sink;
  server.state.data.effects.attach(&sink);
  std::vector<size_t> handed_at_send;  // records the sink had at each between_chunks
  uv_loop_t uv;
  uv_loop_init(&uv);
  LoopTrace trace;
  {
    ExpiryCycle cycle(&uv, server.state, trace, nullptr, [&] {
      size_t n = 0;
      for (size_t c : sink.each_calls) n += c;
      handed_at_send.push_back(n);
    });
    uv_prepare_t prepare;
    uv_prepare_init(&uv, &prepare);
    prepare.data = &cycle;
    uv_prepare_start(&prepare, [](uv_prepare_t* h) { static_cast<ExpiryCycle*>(h->data)->arm(); });
    for (int i = 0; i < 100 && server.state.data.keyspace.total_keys() > 0; ++i) uv_run(&uv, UV_RUN_NOWAIT);
    cycle.close();
    uv_close(reinterpret_cast<uv_handle_t*>(&prepare), nullptr);
    uv_run(&uv, UV_RUN_DEFAULT);
  }
  CHECK(uv_loop_close(&uv) == 0);
  CHECK(server.state.data.keyspace.total_keys() == 0);
  // Chunks of 128: sent after the first two, the last one's at the cycle's end.
  CHECK(sink.each_calls == std::vector<size_t>{128, 128, 44});
  CHECK(handed_at_send == std::vector<size_t>{128, 256});
  server.state.data.effects.detach(&sink);
}

TEST_CASE("ExpiryCycle: the flush before a cycle counts in its budget") {
  // A flush that takes the whole 1 ms budget (here a spin on the clock the
  // budget is read on) leaves the cycle one chunk's first clock read: a few
  // keys, never a budget's worth of reaping on top of the flush.
  test::CommandServer server;
  add_due_keys(server, 50'000);
  std::vector<size_t> reaped_by_cycle;
  size_t keys_at_flush = 0;
  CycleLoop loop(server.state, [&] {
    const size_t now = server.state.data.keyspace.total_keys();
    if (keys_at_flush != 0) reaped_by_cycle.push_back(keys_at_flush - now);
    keys_at_flush = now;
    const int64_t until = Clock::steady_ns() + 1'500'000;
    while (Clock::steady_ns() < until) {
    }
  });
  for (int i = 0; i < 100 && reaped_by_cycle.size() < 3; ++i) uv_run(&loop.loop, UV_RUN_NOWAIT);
  REQUIRE(reaped_by_cycle.size() == 3);
  for (size_t n : reaped_by_cycle) CHECK(n <= store::ReapLimit::kKeysPerClockRead);
}

TEST_CASE("ExpiryCycle: a cycle past latency-monitor-threshold is the expire-cycle latency event") {
  test::CommandServer server;
  server.state.config.mutable_values().latency_monitor_threshold = 1;
  // Enough keys that the first cycle runs its whole 1 ms budget.
  add_due_keys(server, 50'000);
  CycleLoop loop(server.state, nullptr);
  loop.run_until_empty(server.state, 10'000);
  CHECK(server.state.data.keyspace.total_keys() == 0);
  REQUIRE(server.state.data.keyspace.stats().expired_time_cap_reached_count > 0);
  const LatencyMonitor::Series* s = server.state.latency.find("expire-cycle");
  REQUIRE(s != nullptr);
  CHECK(s->max_ms >= 1);
  // The cycle's own maxima (INFO expiry): it ran for at least its budget.
  CHECK(server.state.facts.stats.expire_cycle.wall_us >= 1000);
}

TEST_CASE("ExpiryCycle: a cycle that caught up sorts the wheel's next slot ahead of time") {
  // 5,000 keys in the wheel's next level-2 slot (4,096 ms), nothing at level
  // 1, one key due now. The cycle reaps the due key, then stages the slot
  // (one step of 512 timers at least) on top of what the drain's bound left
  // (512): without the staging step at least 4,488 timers would remain to be
  // moved, all at once when the slot is entered.
  test::CommandServer server;
  Clock& clock = server.state.clock;
  // The server clock 1,000 ms into a level-3 span (2^18 ms): the next
  // level-2 slot is in the same span, so its keys sit at level 2.
  constexpr int64_t kSpan = int64_t{1} << 18;
  REQUIRE(clock.advance_ms(((1000 - clock.now_ms() % kSpan) + kSpan) % kSpan));
  store::Keyspace& keyspace = server.state.data.keyspace;
  // The wheel's cursor to now: a key long past (the fixture's command clock
  // is years behind the server's), reaped.
  add_due_keys(server, 1);
  REQUIRE(keyspace.reap(clock.now_ms(), 10) == 1);
  const int64_t now = clock.now_ms();
  const int64_t next_slot = now - now % 4096 + 4096;
  constexpr int kFar = 5000;
  for (int i = 0; i < kFar; ++i)
    REQUIRE(server.run({"SET", "f" + std::to_string(i), "v", "PXAT", std::to_string(next_slot + 100 + i % 1000)}) ==
            "+OK\r\n");
  REQUIRE(server.run({"SET", "due", "v", "PXAT", std::to_string(now + 1)}) == "+OK\r\n");
  REQUIRE(clock.advance_ms(5));
  {
    CycleLoop loop(server.state, nullptr);
    for (int i = 0; i < 100 && keyspace.total_keys() > kFar; ++i) uv_run(&loop.loop, UV_RUN_NOWAIT);
  }
  REQUIRE(keyspace.total_keys() == kFar);
  const size_t left = keyspace.stage_ahead(SIZE_MAX);
  CHECK(left <= kFar - 1024);
}

}  // namespace
}  // namespace lawnkv::server
