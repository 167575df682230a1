#pragma once
// When the server closes a client by itself, and how much output it lets a
// client hold: Redis 7.0's rules, as pure functions of a client's state and
// the time, so unit tests pin them without sockets. The connection applies
// the output rules whenever its output grows; the clients cron
// (clients_cron.hpp) applies the idle timeout, and the soft limit to clients
// whose output stopped growing.
//
// Times are compared in whole Unix seconds, as Redis compares its cached
// server.unixtime: a client last heard from at 10.999 s is 2 s idle at
// 12.000 s.

#include <cstddef>
#include <cstdint>

#include "config/config.hpp"
#include "engine/session.hpp"

namespace lawnkv::server {

// Whole Unix seconds (floor), as Redis's server.unixtime.
inline int64_t unix_seconds(int64_t ms) { return ms / 1000 - (ms % 1000 < 0 ? 1 : 0); }

// --- Idle clients (`timeout`, Redis's clientsCronHandleTimeout) ---------

// Whether `timeout_s` (0: never) closes s at now_ms: idle (nothing read from
// or written to it since last_interaction_ms) for more than timeout_s whole
// seconds. Never a subscriber (a channel or a pattern: Redis 7.0 tests its
// pubsub flag), a client blocked on keys (its command has its own timeout),
// nor a replication link (repl-timeout watches those).
bool idle_timed_out(const Session& s, int64_t now_ms, int64_t timeout_s);

// How many clients one cron tick looks at, as Redis's clientsCron:
// clients / hz, but at least 5 (all of them when fewer), so at hz ticks a
// second every client is seen about once a second.
//   10,000 clients, hz 10 -> 1,000;  30 clients, hz 10 -> 5;  3 -> 3
size_t clients_per_tick(size_t clients, int64_t hz);

// --- Output buffer limits (Redis's checkClientOutputBufferLimits) -------

// Whether `used` pending output bytes break `lim` (a class's
// client-output-buffer-limit): at or over the hard limit, or over the soft
// limit continuously for more than soft_seconds whole seconds. 0 disables a
// limit. soft_since_ms is the client's state for the soft limit: when it was
// first seen at or over it (-1: it is not). The first sighting only starts
// the clock; a sighting under the soft limit resets it.
//
// Redis counts the reply blocks allocated past each client's own 16 KB
// buffer, lawnkv every pending byte: the two differ by at most 16 KB.
bool output_limit_reached(int64_t used, const config::OutputLimit& lim, int64_t now_ms, int64_t* soft_since_ms);

// A client that has not authenticated (requirepass) is closed once more than
// this many bytes of replies wait for it, whatever its class's limit: the
// fix for CVE-2025-21605 (Redis 7.2.8, 7.4.3; Debian's 7.0.15 carries it)
// closes it once more than 1024 bytes wait past its 16 KB reply buffer, and
// that overflow is allocated 16 KB at a time, so the first byte past 16 KB
// closes it. With "GET k" pipelined, 481 NOAUTH replies (34 bytes each) in
// one batch are sent, 482 close the connection without a reply.
inline constexpr int64_t kUnauthOutputBytes = 16 * 1024;

// lawnkv's own backpressure: a client with more than this much output
// pending is not read until it drains, so one that pipelines without reading
// cannot grow the server's memory without bound. A class limit above it
// raises it to that limit (lim's larger value), so the limit is reached and
// acts as in Redis: the hard limit closes the client before any pause; a
// client paused over its soft limit is closed by the cron once the soft
// seconds pass.
inline constexpr int64_t kPauseOutputBytes = 4 * 1024 * 1024;
int64_t pause_output_bytes(const config::OutputLimit& lim);

}  // namespace lawnkv::server
