#include "commands/server_factory.hpp"

#include "commands/families.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"

namespace lawnkv {

std::unique_ptr<ServerState> make_server_state(config::Config cfg) {
  auto state = std::make_unique<ServerState>(std::move(cfg));
  register_all_commands(state->commands);
  Snapshots& snapshots = state->adopt(std::make_unique<Snapshots>());
  AppendOnly& aof = state->adopt(std::make_unique<AppendOnly>());
  state->set_durability(&snapshots, &aof);
  start_server_state(*state);
  state->snapshots().lastsave_s = state->facts.start_ms / 1000;
  return state;
}

}  // namespace lawnkv
