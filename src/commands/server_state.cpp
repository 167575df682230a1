#include "commands/server_state.hpp"

#include <random>

#include "commands/families.hpp"
#include "core/allocator.hpp"

namespace lawnkv {

namespace {

std::string random_run_id() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (char& c : id) c = kHex[rd() % 16];
  return id;
}

}  // namespace

Dataset::Dataset(const config::Config& cfg)
    : keyspace(static_cast<int>(cfg.values().databases)), notifier(cfg.values().notify_keyspace_events) {
  notifier.set_publisher(&hub);
  effects.set_next(&notifier);
  keyspace.set_listener(&effects);
}

ServerState::ServerState(config::Config cfg) : config(std::move(cfg)), data(config) {}

std::unique_ptr<ServerState> make_server_state(config::Config cfg) {
  auto state = std::make_unique<ServerState>(std::move(cfg));
  register_all_commands(state->commands);
  state->data.eviction.configure(state->config.values(), state->data);
  state->facts.start_ms = state->clock.now_ms();
  state->snapshots.lastsave_s = state->facts.start_ms / 1000;
  state->facts.run_id = random_run_id();
  state->facts.used_memory_startup = allocator::used_bytes();
  return state;
}

}  // namespace lawnkv
