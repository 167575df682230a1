// CLIENT PAUSE timeout [WRITE|ALL] and CLIENT UNPAUSE, as Redis 7.0's
// clientCommand: the mode is checked before the timeout; the timeout is a
// whole number of milliseconds (getTimeoutFromObjectOrReply with
// UNIT_MILLISECONDS), the pause lasting until now + timeout; 0 pauses
// nothing that outlives the command.
#include "commands/client_pause_command.hpp"

#include <limits>

#include "commands/server_family.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/client_pause.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kBadMode = "ERR CLIENT PAUSE mode must be WRITE or ALL";
constexpr std::string_view kTimeoutNotInteger = "ERR timeout is not an integer or out of range";
constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";

/* CLIENT PAUSE timeout [WRITE|ALL] */
void client_pause_command(Call& call) {
  if (call.argv.size() > 4) return reply_subcommand_syntax_error(call);
  ClientPause::Type type = ClientPause::Type::kAll;
  if (call.argv.size() == 4) {
    if (is_option(call.argv[3], "write")) {
      type = ClientPause::Type::kWrite;
    } else if (!is_option(call.argv[3], "all")) {
      return call.error(kBadMode);
    }
  }
  long long ms;
  if (!string_to_ll(call.argv[2], &ms)) return call.error(kTimeoutNotInteger);
  if (ms < 0) return call.error(kTimeoutNegative);
  // Redis adds the time without a check (a timeout near INT64_MAX wraps
  // into the past there); here such a pause lasts until the end of time.
  const int64_t end = ms > std::numeric_limits<int64_t>::max() - call.now_ms ? std::numeric_limits<int64_t>::max()
                                                                             : call.now_ms + ms;
  // Redis: a timeout of 0 leaves the end at 0, long past.
  pause_clients(call.server, ClientPause::Purpose::kClientCommand, type, ms > 0 ? end : 0, call.now_ms);
  call.reply.simple("OK");
}

/* CLIENT UNPAUSE */
void client_unpause_command(Call& call) {
  unpause_clients(call.server, ClientPause::Purpose::kClientCommand, call.now_ms);
  call.reply.simple("OK");
}

}  // namespace

std::vector<CommandSpec> with_client_pause_rows(std::vector<CommandSpec> rows) {
  constexpr uint32_t kFlags = kAdmin | kNoscript | kLoading | kStale;
  rows.push_back({.name = "client|pause", .arity = -3, .flags = kFlags,
                  .acl = "@admin @slow @dangerous @connection",
                  .group = "connection", .since = "3.0.0", .complexity = "O(1)",
                  .summary = "Suspends the commands of all clients, or of those that write, for a time",
                  .handler = client_pause_command});
  rows.push_back({.name = "client|unpause", .arity = 2, .flags = kFlags,
                  .acl = "@admin @slow @dangerous @connection",
                  .group = "connection", .since = "6.2.0", .complexity = "O(N) Where N is the number of paused clients",
                  .summary = "Ends a client pause",
                  .handler = client_unpause_command});
  return rows;
}

}  // namespace lawnkv
