#pragma once
// From a parsed request to a reply: command lookup, arity, authentication,
// the RESP2 subscribed-mode filter, MULTI queueing, then the handler, with
// commandstats. Every rejection uses Redis 7.0's exact text.

#include <span>
#include <string_view>

#include "commands/context.hpp"

namespace lawnkv {

// Runs one request. now_ms is the command's time snapshot.
void dispatch(ServerState& server, Session& session, resp::Writer& reply,
              std::span<const std::string_view> argv, int64_t now_ms);

// Runs a command that already passed every check (EXEC runs its queue so).
void run_command(ServerState& server, Session& session, resp::Writer& reply,
                 const CommandSpec& spec, std::span<const std::string_view> argv, int64_t now_ms);

// Finds the row that would run argv (the subcommand's for containers) or
// replies the unknown-command / unknown-subcommand / arity error and returns
// nullptr. *known (if given) is the row found even when its arity failed, so
// the rejection counts against it, as Redis's rejected_calls.
const CommandSpec* resolve_or_reply(const CommandTable& table, resp::Writer& reply,
                                    std::span<const std::string_view> argv,
                                    const CommandSpec** known = nullptr);

}  // namespace lawnkv
