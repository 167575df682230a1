#pragma once
// Building a server's state: main and every test fixture call this one
// function, so each runs the same commands and services.

#include <memory>

#include "config/config.hpp"
#include "engine/server_state.hpp"

namespace lawnkv {

// A server's state with every command registered (families.hpp), its
// durability services (RDB snapshots, the append-only file) in place,
// keyspace notifications going to its Pub/Sub hub and `expired` events to
// the notifier, its start time and a random run id.
std::unique_ptr<ServerState> make_server_state(config::Config cfg);

}  // namespace lawnkv
