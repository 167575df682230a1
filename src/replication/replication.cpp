#include "replication/replication.hpp"

#include "durability/snapshots.hpp"
#include "replication/min_replicas.hpp"

namespace lawnkv {

Replication::Replication(ServerState& server)
    : server_(server), primary_(server, state_), failover_(server, state_, primary_) {
  state_.set_backlog_listener([this] { primary_.attach(); });
  server.snapshots().set_bgsave_listener(&primary_);
}

Replication::~Replication() { server_.snapshots().set_bgsave_listener(nullptr); }

void Replication::before_sleep() {
  primary_.before_sleep();
  const int64_t now_ms = server_.clock.now_ms();
  count_good_replicas(now_ms);
  failover_.tick(now_ms);
}

void Replication::cron(int64_t now_ms) {
  primary_.cron(now_ms, !failover_.holds_pings());
  count_good_replicas(now_ms);
}

void Replication::client_closed(const Session& s) {
  primary_.forget(s);
  count_good_replicas(server_.clock.now_ms());
}

void Replication::count_good_replicas(int64_t now_ms) {
  const auto views = primary_.views(now_ms);
  server_.facts.good_replicas =
      replication::count_good_replicas(views, server_.config.values().min_replicas_max_lag);
}

std::vector<replication::ReplicaView> Replication::replica_views(int64_t now_ms) const {
  return primary_.views(now_ms);
}

std::string Replication::info_fields(int64_t now_ms) const {
  const auto views = replica_views(now_ms);
  const config::Values& v = server_.config.values();
  // min_slaves_good_slaves while min-replicas-to-write is on (-1: not shown).
  const int64_t good = v.min_replicas_to_write && v.min_replicas_max_lag ? server_.facts.good_replicas : -1;
  return state_.info_fields(views, v.repl_backlog_size, good, failover_.state_name(), now_ms);
}

void Replication::role_reply(resp::Writer& out, int64_t now_ms) const {
  const auto views = replica_views(now_ms);
  state_.role_reply(out, views);
}

void Replication::proxy(std::string_view bytes) { primary_.proxy(bytes); }

}  // namespace lawnkv
