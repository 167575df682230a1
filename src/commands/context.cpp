#include "commands/context.hpp"

namespace lawnkv {

ServerState::ServerState(config::Config cfg)
    : config(std::move(cfg)),
      keyspace(static_cast<int>(config.values().databases)),
      notifier(config.values().notify_keyspace_events) {}

}  // namespace lawnkv
