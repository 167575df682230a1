// The primary's side of replication as commands (src/replication/ does the
// work): ROLE.

#include "commands/families.hpp"
#include "engine/context.hpp"
#include "replication/replication.hpp"

namespace lawnkv {

namespace {

/* ROLE */
void role_command(Call& call) { call.server.replication().role_reply(call.reply, call.now_ms); }

}  // namespace

void register_replication_commands(CommandTable& t) {
  t.add({
    {.name = "role", .arity = 1, .flags = kNoscript | kLoading | kStale | kFast,
     .acl = "@admin @fast @dangerous",
     .group = "server", .since = "2.8.12", .complexity = "O(1)",
     .summary = "Tells whether this server is a primary or a replica, and its replication state",
     .handler = role_command},
  });
}

}  // namespace lawnkv
