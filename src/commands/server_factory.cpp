#include "commands/server_factory.hpp"

#include "commands/families.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"

namespace lawnkv {

std::unique_ptr<ServerState> make_server_state(config::Config cfg) {
  auto state = std::make_unique<ServerState>(std::move(cfg));
  register_all_commands(state->commands);
  auto snapshots = std::make_unique<Snapshots>();
  auto aof = std::make_unique<AppendOnly>();
  state->set_durability(snapshots.get(), aof.get());
  state->adopt(std::move(snapshots));
  state->adopt(std::move(aof));
  start_server_state(*state);
  state->snapshots().lastsave_s = state->facts.start_ms / 1000;
  return state;
}

}  // namespace lawnkv
