#pragma once
// Building a server's state: main and every test fixture call this one
// function, so each runs the same commands and services.

#include <memory>
#include <string>

#include "config/config.hpp"
#include "engine/server_state.hpp"

namespace lawnkv {

// A server's state with every command registered (families.hpp), its
// durability services (RDB snapshots, the append-only file) in place,
// keyspace notifications going to its Pub/Sub hub and `expired` events to
// the notifier, its start time and a random run id.
std::unique_ptr<ServerState> make_server_state(config::Config cfg);

// The check of a config file's `user` lines (config.hpp), against the
// command table every server has.
config::UserRuleCheck config_user_rule_check();

// The ACL users a server starts with (Redis's ACLLoadUsersAtStartup): the
// config file's `user` lines, or the aclfile; not both. "" or the line to
// log before exiting.
std::string load_startup_acl_users(ServerState& state);

}  // namespace lawnkv
