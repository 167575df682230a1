#pragma once
// When the server closes a client by itself: Redis 7.0's rules, as pure
// functions of a client's state and the time, so unit tests pin them without
// sockets. The clients cron (clients_cron.hpp) applies the idle timeout.
//
// Times are compared in whole Unix seconds, as Redis compares its cached
// server.unixtime: a client last heard from at 10.999 s is 2 s idle at
// 12.000 s.

#include <cstddef>
#include <cstdint>

#include "commands/session.hpp"

namespace lawnkv::server {

// --- Idle clients (`timeout`, Redis's clientsCronHandleTimeout) ---------

// Whether `timeout_s` (0: never) closes s at now_ms: idle (nothing read from
// or written to it since last_interaction_ms) for more than timeout_s whole
// seconds. Never a subscriber (a channel or a pattern: Redis 7.0 tests its
// pubsub flag) nor a client blocked on keys (its command has its own timeout).
bool idle_timed_out(const Session& s, int64_t now_ms, int64_t timeout_s);

// How many clients one cron tick looks at, as Redis's clientsCron:
// clients / hz, but at least 5 (all of them when fewer), so at hz ticks a
// second every client is seen about once a second.
//   10,000 clients, hz 10 -> 1,000;  30 clients, hz 10 -> 5;  3 -> 3
size_t clients_per_tick(size_t clients, int64_t hz);

}  // namespace lawnkv::server
