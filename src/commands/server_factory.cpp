#include "commands/server_factory.hpp"

#include "commands/client_list.hpp"
#include "commands/families.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"
#include "replication/replication.hpp"
#include "replication/replica.hpp"

namespace lawnkv {

std::unique_ptr<ServerState> make_server_state(config::Config cfg) {
  auto state = std::make_unique<ServerState>(std::move(cfg));
  register_all_commands(state->commands);
  state->client_info = client_line;
  state->acl.pubsub_default_all = state->config.values().acl_pubsub_default == "allchannels";
  state->acl.set_default_password(state->config.values().requirepass, state->commands);
  Snapshots& snapshots = state->adopt(std::make_unique<Snapshots>());
  AppendOnly& aof = state->adopt(std::make_unique<AppendOnly>());
  state->set_durability(&snapshots, &aof);
  Replication& replication = state->adopt(std::make_unique<Replication>(*state));
  state->set_replication(&replication, &replication);
  // The replica's side, attached to the history it follows (the state
  // outlives it: adopted later, it goes first).
  replication::Replica& replica = state->adopt(std::make_unique<replication::Replica>(
      *state, replication.state(), [&replication](std::string_view bytes) { replication.proxy(bytes); }));
  replication.state().set_replica_side(&replica);
  state->set_replica(&replica);
  replica.set_failover_listener([&replication](bool ok) { replication.failover().psync_done(ok); });
  replica.set_promoted_listener([&replication, &st = *state] {
    replication.primary().disconnect_replicas();
    replication.primary().restart_no_replicas_clock(st.clock.now_ms());
  });
  start_server_state(*state);
  state->snapshots().lastsave_s = state->facts.start_ms / 1000;
  return state;
}

config::UserRuleCheck config_user_rule_check() {
  auto table = std::make_shared<CommandTable>();
  register_all_commands(*table);
  return [table](std::span<const std::string> rules) { return acl::Users::check_config_rules(rules, *table); };
}

std::string load_startup_acl_users(ServerState& state) {
  const config::Values& v = state.config.values();
  if (!v.aclfile.empty() && !v.users.empty()) {
    return "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. "
           "This setup is very likely to lead to configuration errors and security holes, please define either an "
           "ACL file or declare users directly in your redis.conf, but not both.";
  }
  if (std::string why = state.acl.load_config_users(v.users, state.commands); !why.empty())
    return why + "\nCritical error while loading ACLs. Exiting.";
  if (!v.aclfile.empty()) {
    std::vector<std::unique_ptr<acl::User>> replaced;  // none connected yet
    if (std::string errors = state.acl.load_file(v.aclfile, state.commands, &replaced); !errors.empty())
      return "Aborting Redis startup because of ACL errors: " + errors;
  }
  return {};
}

}  // namespace lawnkv
