// The server-level half of engine/client_pause.hpp: pause_clients,
// unpause_clients, clients_paused and pause_flags, which need ServerState.
#include "engine/client_pause.hpp"

#include <string>
#include <vector>

#include "core/ascii.hpp"
#include "engine/server_state.hpp"
#include "engine/session.hpp"
#include "engine/table.hpp"

namespace lawnkv {

void pause_clients(ServerState& server, ClientPause::Purpose purpose, ClientPause::Type type, int64_t end_ms,
                   int64_t now_ms) {
  server.pause.pause(purpose, type, end_ms, now_ms);
  server.data.keyspace.set_keep_expired(server.pause.on());
}

void unpause_clients(ServerState& server, ClientPause::Purpose purpose, int64_t now_ms) {
  server.pause.unpause(purpose, now_ms);
  server.data.keyspace.set_keep_expired(server.pause.on());
}

bool clients_paused(ServerState& server, int64_t now_ms) {
  if (!server.pause.on()) return false;
  const bool on = server.pause.active(now_ms);
  if (!on) server.data.keyspace.set_keep_expired(false);
  return on;
}

uint32_t pause_flags(ServerState& server, const Session& session, const CommandSpec& spec,
                     std::span<const std::string_view> argv) {
  if (spec.call_flags) return spec.call_flags(server, argv, spec.flags);
  if (!spec.has(kRunsQueue)) return spec.flags;
  // EXEC: what its queue may do, as Redis's mstate.cmd_flags.
  uint32_t flags = spec.flags;
  std::vector<std::string_view> views;
  for (const auto& queued : session.queued) {
    const CommandSpec* c = server.commands.find(queued[0]);
    if (c && !c->subcommands.empty() && queued.size() >= 2) c = c->subcommand(to_lower(queued[1]));
    if (!c) continue;
    views.assign(queued.begin(), queued.end());
    flags |= pause_flags(server, session, *c, views);
  }
  return flags;
}

}  // namespace lawnkv
