// MONITOR: the client hears of every command any client runs from now on
// (engine/monitor.hpp writes the lines), until RESET or it disconnects.

#include "commands/families.hpp"
#include "engine/context.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kDenyBlocking = "ERR MONITOR isn't allowed for DENY BLOCKING client";

/* MONITOR */
void monitor_command(Call& call) {
  // Inside EXEC, or for a client without a socket: a reply per command is
  // expected, and MONITOR would send many.
  if (!call.may_block()) return call.error(kDenyBlocking);
  // Already monitoring: nothing, not even a reply (as Redis).
  if (call.server.clients.monitoring(call.session)) return;
  call.server.clients.start_monitor(call.session);
  call.reply.simple("OK");
}

}  // namespace

void register_monitor_command(CommandTable& t) {
  t.add({
    {.name = "monitor", .arity = 1, .flags = kAdmin | kNoscript | kLoading | kStale,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Streams every command the server runs, as it runs it",
     .handler = monitor_command},
  });
}

}  // namespace lawnkv
