#include "replication/failover.hpp"

#include <limits>

#include "core/ascii.hpp"
#include "engine/client_pause.hpp"
#include "replication/replica.hpp"

namespace lawnkv::replication {

std::string Failover::start(const Request& request, int64_t now_ms) {
  if (state_ != State::kNone) return "ERR FAILOVER already in progress.";
  if (history_.is_replica()) return "ERR FAILOVER is not valid when server is a replica.";
  const auto replicas = primary_.views(now_ms);
  if (replicas.empty()) return "ERR FAILOVER requires connected replicas.";
  if (request.force && (request.timeout_ms == 0 || !request.to))
    return "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
  if (request.to) {
    const ReplicaView* target = nullptr;
    for (const ReplicaView& r : replicas)
      if (iequals(r.ip, request.host) && r.port == request.port) target = &r;
    if (target == nullptr) return "ERR FAILOVER target HOST and PORT is not a replica.";
    if (target->state != "online") return "ERR FAILOVER target replica is not online.";
    log("FAILOVER requested to " + request.host + ":" + std::to_string(request.port) + ".");
  } else {
    log("FAILOVER requested to any replica.");
  }
  any_ = !request.to;
  host_ = request.host;
  port_ = request.port;
  force_ = request.force;
  end_ms_ = request.timeout_ms ? now_ms + request.timeout_ms : 0;
  state_ = State::kWaitingForSync;
  pause_clients(server_, ClientPause::Purpose::kFailover, ClientPause::Type::kWrite,
                std::numeric_limits<int64_t>::max(), now_ms);
  return {};
}

std::string Failover::abort_by_user() {
  if (state_ == State::kNone) return "ERR No failover in progress.";
  abort("Failover manually aborted");
  return {};
}

void Failover::tick(int64_t now_ms) {
  if (state_ != State::kWaitingForSync) return;
  if (end_ms_ != 0 && end_ms_ <= now_ms) {
    if (force_) {
      log("FAILOVER to " + target_name() + " time out exceeded, failing over.");
      return go(now_ms);
    }
    return abort("Replica never caught up before timeout");
  }
  // The TO replica, or the first that acknowledged everything we sent.
  const int64_t offset = history_.master_repl_offset();
  for (const ReplicaView& r : primary_.views(now_ms)) {
    const bool is_target = any_ ? r.ack_offset == offset : iequals(r.ip, host_) && r.port == port_;
    if (!is_target) continue;
    if (r.ack_offset != offset) return;
    any_ = false;
    host_ = r.ip;
    port_ = r.port;
    log("Failover target " + target_name() + " is synced, failing over.");
    return go(now_ms);
  }
}

void Failover::go(int64_t now_ms) {
  state_ = State::kInProgress;
  config::Values& cfg = server_.config.mutable_values();
  cfg.replicaof_host = host_;
  cfg.replicaof_port = port_;
  server_.replica().set_primary(host_, port_, now_ms, true);
}

void Failover::psync_done(bool ok) {
  if (state_ != State::kInProgress) return;
  if (ok) return clear();
  abort("Failover target rejected psync request");
}

void Failover::abort(std::string_view why) {
  if (state_ == State::kNone) return;
  log((any_ ? std::string("FAILOVER to any replica") : "FAILOVER to " + target_name()) + " aborted: " +
      std::string(why));
  if (state_ == State::kInProgress) {
    server_.replica().unset_primary();
    config::Values& cfg = server_.config.mutable_values();
    cfg.replicaof_host.clear();
    cfg.replicaof_port = 0;
  }
  clear();
}

void Failover::clear() {
  state_ = State::kNone;
  any_ = false;
  host_.clear();
  port_ = 0;
  force_ = false;
  end_ms_ = 0;
  unpause_clients(server_, ClientPause::Purpose::kFailover, server_.clock.now_ms());
}

std::string_view Failover::state_name() const {
  switch (state_) {
    case State::kNone: return "no-failover";
    case State::kWaitingForSync: return "waiting-for-sync";
    case State::kInProgress: return "failover-in-progress";
  }
  return "unknown";
}

void Failover::log(std::string_view text) const {
  if (server_.log) server_.log->log(LogLevel::kNotice, std::string(text));
}

}  // namespace lawnkv::replication
