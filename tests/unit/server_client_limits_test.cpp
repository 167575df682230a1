// server/client_limits: when a client is closed for idling or for its
// output, as Redis 7.0 decides it, in whole Unix seconds; and how many
// clients a cron tick looks at.

#include <doctest/doctest.h>

#include <cstdint>

#include "command_fixture.hpp"
#include "server/client_limits.hpp"

namespace lawnkv::server {
namespace {

using test::FakeSession;

constexpr int64_t kT = 1'700'000'000'000;  // Unix ms, on a whole second

TEST_CASE("idle_timed_out: more than timeout whole seconds since the last interaction") {
  struct Row {
    int64_t last_ms;
    int64_t now_ms;
    int64_t timeout_s;
    bool closed;
  };
  const Row rows[] = {
      {kT, kT + 1'999, 1, false},  // 1 whole second: not more than 1
      {kT, kT + 2'000, 1, true},
      {kT + 999, kT + 2'000, 1, true},  // 1.001 s, but 2 whole seconds (Redis's unixtime)
      {kT + 999, kT + 1'999, 1, false},
      {kT, kT + 100'000, 0, false},  // timeout 0: never
      {kT, kT + 300'000, 300, false},
      {kT, kT + 301'000, 300, true},
      {kT + 5'000, kT, 1, false},  // the clock stepped back
  };
  for (const Row& r : rows) {
    INFO("last ", r.last_ms - kT, " now ", r.now_ms - kT, " timeout ", r.timeout_s);
    FakeSession s;
    s.last_interaction_ms = r.last_ms;
    CHECK(idle_timed_out(s, r.now_ms, r.timeout_s) == r.closed);
  }
}

TEST_CASE("idle_timed_out: never a blocked client nor a subscriber") {
  FakeSession s;
  s.last_interaction_ms = kT;
  REQUIRE(idle_timed_out(s, kT + 10'000, 1));
  s.blocked = true;
  CHECK_FALSE(idle_timed_out(s, kT + 10'000, 1));
  s.blocked = false;

  pubsub::Hub hub;
  hub.subscribe(s, "ch");
  CHECK_FALSE(idle_timed_out(s, kT + 10'000, 1));
  hub.unsubscribe_all(s);
  hub.psubscribe(s, "p*");
  CHECK_FALSE(idle_timed_out(s, kT + 10'000, 1));
  hub.unsubscribe_all(s);
  CHECK(idle_timed_out(s, kT + 10'000, 1));
}

TEST_CASE("clients_per_tick: clients / hz, at least 5 or all") {
  CHECK(clients_per_tick(0, 10) == 0);
  CHECK(clients_per_tick(3, 10) == 3);
  CHECK(clients_per_tick(5, 10) == 5);
  CHECK(clients_per_tick(30, 10) == 5);
  CHECK(clients_per_tick(60, 10) == 6);
  CHECK(clients_per_tick(10'000, 10) == 1'000);
  CHECK(clients_per_tick(10'000, 500) == 20);
  CHECK(clients_per_tick(10'000, 1) == 10'000);
}

TEST_CASE("output_limit_reached: the hard limit at once, the soft one after its seconds") {
  const config::OutputLimit lim{.hard_bytes = 64 << 20, .soft_bytes = 16 << 20, .soft_seconds = 10};
  int64_t since = -1;
  CHECK_FALSE(output_limit_reached((16 << 20) - 1, lim, kT, &since));
  CHECK(since == -1);
  CHECK(output_limit_reached(64 << 20, lim, kT, &since));  // hard: at once

  since = -1;
  CHECK_FALSE(output_limit_reached(16 << 20, lim, kT + 500, &since));  // first seen: the clock starts
  CHECK(since == kT + 500);
  CHECK_FALSE(output_limit_reached(20 << 20, lim, kT + 10'999, &since));  // 10 whole seconds
  CHECK(since == kT + 500);
  CHECK(output_limit_reached(20 << 20, lim, kT + 11'000, &since));  // 11: more than 10

  // Back under the soft limit: the clock starts again next time.
  since = kT;
  CHECK_FALSE(output_limit_reached(1 << 20, lim, kT + 20'000, &since));
  CHECK(since == -1);
  CHECK_FALSE(output_limit_reached(16 << 20, lim, kT + 20'000, &since));
  CHECK(since == kT + 20'000);
}

TEST_CASE("output_limit_reached: 0 disables a limit; soft seconds 0 closes a second later") {
  int64_t since = -1;
  const config::OutputLimit none{0, 0, 0};
  CHECK_FALSE(output_limit_reached(INT64_MAX, none, kT, &since));
  CHECK(since == -1);

  const config::OutputLimit soft_only{.hard_bytes = 0, .soft_bytes = 1024, .soft_seconds = 0};
  CHECK_FALSE(output_limit_reached(1 << 30, soft_only, kT, &since));
  CHECK_FALSE(output_limit_reached(1 << 30, soft_only, kT + 999, &since));
  CHECK(output_limit_reached(1 << 30, soft_only, kT + 1'000, &since));
}

TEST_CASE("pause_output_bytes: 4 MB, or the class's limit when that is higher") {
  CHECK(pause_output_bytes({0, 0, 0}) == kPauseOutputBytes);
  CHECK(pause_output_bytes({1 << 20, 512 << 10, 60}) == kPauseOutputBytes);
  CHECK(pause_output_bytes({64 << 20, 16 << 20, 10}) == 64 << 20);
  CHECK(pause_output_bytes({0, 16 << 20, 10}) == 16 << 20);
}

}  // namespace
}  // namespace lawnkv::server
