#pragma once
// MONITOR's feed (Redis's replicationFeedMonitors): after a command runs,
// every monitoring client is sent one status line
//
//   +1700000000.123456 [0 127.0.0.1:5000] "SET" "k" "v"\r\n
//
// the wall time in seconds and microseconds, the db the client is in after
// the command, its address, and each argument quoted as sdscatrepr quotes
// it. Commands flagged skip_monitor or admin are never shown; nor is what a
// client without a socket runs (the AOF loader).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/server_state.hpp"

namespace lawnkv {

// The line (with its '+' and CRLF) for argv run by a client at peer in db.
std::string monitor_line(int64_t now_us, int db, std::string_view peer, std::span<const std::string_view> argv);

// Sends argv, run by session as spec, to every monitoring client.
void feed_monitors(ServerState& server, const Session& session, const CommandSpec& spec,
                   std::span<const std::string_view> argv);

}  // namespace lawnkv
