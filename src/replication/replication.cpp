#include "replication/replication.hpp"

namespace lawnkv {

Replication::Replication(ServerState& server) : server_(server) {}

std::vector<replication::ReplicaView> Replication::replica_views(int64_t) const { return {}; }

std::string Replication::info_fields(int64_t now_ms) const {
  const auto views = replica_views(now_ms);
  return state_.info_fields(views, server_.config.values().repl_backlog_size, now_ms);
}

void Replication::role_reply(resp::Writer& out, int64_t now_ms) const {
  const auto views = replica_views(now_ms);
  state_.role_reply(out, views);
}

void Replication::proxy(std::string_view bytes) { state_.feed(bytes); }

}  // namespace lawnkv
