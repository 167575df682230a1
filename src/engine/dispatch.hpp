#pragma once
// From a parsed request to a reply: command lookup, arity, authentication,
// the RESP2 subscribed-mode filter, MULTI queueing, then the handler, with
// commandstats. Every rejection uses Redis 7.0's exact text.

#include <span>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "engine/context.hpp"

namespace lawnkv {

// Runs one request. now_ms is the command's time snapshot; its duration
// for commandstats runs from start_ns, a Clock::steady_ns() reading.
// found: argv's runnable row when the caller looked it up already
// (find_runnable; an I/O thread does), else null.
void dispatch(ServerState& server, Session& session, resp::Writer& reply,
              std::span<const std::string_view> argv, int64_t now_ms, int64_t start_ns = Clock::steady_ns(),
              const CommandSpec* found = nullptr);

// argv's row when resolve() would find it runnable without a subcommand
// (a container's rows need one), else null: a lookup that allocates
// nothing and reads only what never changes once the table is built, so
// any thread may make it while the main thread runs commands.
const CommandSpec* find_runnable(const CommandTable& table, std::span<const std::string_view> argv);

// Runs a command that already passed every check (EXEC runs its queue so).
void run_command(ServerState& server, Session& session, resp::Writer& reply,
                 const CommandSpec& spec, std::span<const std::string_view> argv, int64_t now_ms,
                 int64_t start_ns = Clock::steady_ns());

// Runs call.spec's handler between the write effects' begin and end
// (effects.hpp): the command's own record counts when may_record and the
// dataset changed (Dataset::dirty moved). run_command and the retries of
// blocked clients (BlockingTable) both run handlers so.
void run_handler(Call& call, bool may_record);

// Serves the clients blocked on keys whose keys changed or whose time came
// (BlockingTable::serve), running their commands again as run_handler does.
void serve_blocked(ServerState& server, int64_t now_ms);

// The row that would run argv (the subcommand's, for containers).
struct Resolved {
  const CommandSpec* spec = nullptr;   // runnable, or nullptr (see error)
  const CommandSpec* known = nullptr;  // the row found even when its arity failed,
                                       // so the refusal counts in its rejected_calls
  std::string error;                   // unknown command / subcommand, arity
};
Resolved resolve(const CommandTable& table, std::span<const std::string_view> argv);
// Whether argc arguments (the name included) suit spec's arity.
bool arity_ok(const CommandSpec& spec, size_t argc);

}  // namespace lawnkv
