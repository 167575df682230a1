#include "replication/replication.hpp"

#include "durability/snapshots.hpp"

namespace lawnkv {

Replication::Replication(ServerState& server) : server_(server), primary_(server, state_) {
  server.snapshots().set_bgsave_listener(&primary_);
}

Replication::~Replication() { server_.snapshots().set_bgsave_listener(nullptr); }

std::vector<replication::ReplicaView> Replication::replica_views(int64_t now_ms) const {
  return primary_.views(now_ms);
}

std::string Replication::info_fields(int64_t now_ms) const {
  const auto views = replica_views(now_ms);
  return state_.info_fields(views, server_.config.values().repl_backlog_size, now_ms);
}

void Replication::role_reply(resp::Writer& out, int64_t now_ms) const {
  const auto views = replica_views(now_ms);
  state_.role_reply(out, views);
}

void Replication::proxy(std::string_view bytes) { primary_.proxy(bytes); }

}  // namespace lawnkv
