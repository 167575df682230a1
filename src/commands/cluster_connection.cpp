// ASKING, READONLY and READWRITE: the cluster's connection commands, which a
// Redis 7.0 server outside cluster mode keeps in its table (COMMAND, the
// @connection category) and answers with one error. lawnkv has no cluster
// mode, so it answers them as such a server does; their rows also make the
// @connection category count what Redis's does when ACL describes a user.

#include <string_view>

#include "commands/families.hpp"
#include "engine/context.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kClusterDisabled = "ERR This instance has cluster support disabled";

void cluster_disabled_command(Call& call) { call.error(kClusterDisabled); }

}  // namespace

void register_cluster_connection_commands(CommandTable& t) {
  t.add({
    {.name = "asking", .arity = 1, .flags = kFast,
     .acl = "@fast @connection",
     .group = "cluster", .since = "3.0.0", .complexity = "O(1)",
     .summary = "Sent by cluster clients after an -ASK redirect",
     .handler = cluster_disabled_command},
    {.name = "readonly", .arity = 1, .flags = kLoading | kStale | kFast,
     .acl = "@fast @connection",
     .group = "cluster", .since = "3.0.0", .complexity = "O(1)",
     .summary = "Enables read queries for a connection to a cluster replica node",
     .handler = cluster_disabled_command},
    {.name = "readwrite", .arity = 1, .flags = kLoading | kStale | kFast,
     .acl = "@fast @connection",
     .group = "cluster", .since = "3.0.0", .complexity = "O(1)",
     .summary = "Disables read queries for a connection to a cluster replica node",
     .handler = cluster_disabled_command},
  });
}

}  // namespace lawnkv
