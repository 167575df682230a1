// What INFO replication and ROLE show of a replica (replica.hpp).

#include <cstdio>

#include "core/numbers.hpp"
#include "replication/replica.hpp"
#include "replication/info_lines.hpp"

namespace lawnkv::replication {

void Replica::info_fields(std::string& out, int64_t now_ms) const {
  const config::Values& v = server_.config.values();
  const bool up = state_ == LinkState::kConnected;
  info_line(out, "master_host", host_);
  info_line(out, "master_port", port_);
  info_line(out, "master_link_status", up ? "up" : "down");
  info_line(out, "master_last_io_seconds_ago", up ? (now_ms - last_io_ms_) / 1000 : -1);
  info_line(out, "master_sync_in_progress", state_ == LinkState::kTransfer ? 1 : 0);
  // Before any sync Redis shows the offsets of the history it held itself.
  info_line(out, "slave_read_repl_offset", synced_ ? applier_.read_offset() : 0);
  info_line(out, "slave_repl_offset", synced_ ? applier_.offset() : 0);
  if (state_ == LinkState::kTransfer && payload_) {
    // The mark form's size is unknown: Redis shows 0 for it.
    const int64_t total = payload_->size() < 0 ? 0 : payload_->size();
    const int64_t read = static_cast<int64_t>(payload_->received());
    char perc[32];
    std::snprintf(perc, sizeof(perc), "%.2f", total ? static_cast<double>(read) / static_cast<double>(total) * 100 : 0.0);
    info_line(out, "master_sync_total_bytes", total);
    info_line(out, "master_sync_read_bytes", read);
    info_line(out, "master_sync_left_bytes", total - read);
    info_line(out, "master_sync_perc", perc);
    info_line(out, "master_sync_last_io_seconds_ago", (now_ms - last_io_ms_) / 1000);
  }
  if (!up) info_line(out, "master_link_down_since_seconds", down_since_ms_ ? (now_ms - down_since_ms_) / 1000 : -1);
  info_line(out, "slave_priority", v.replica_priority);
  info_line(out, "slave_read_only", v.replica_read_only ? 1 : 0);
  info_line(out, "replica_announced", v.replica_announced ? 1 : 0);
}

void Replica::role_reply(resp::Writer& out) const {
  std::string_view state = "unknown";
  switch (state_) {
    case LinkState::kNone: state = "none"; break;
    case LinkState::kConnect: state = "connect"; break;
    case LinkState::kConnecting: state = "connecting"; break;
    case LinkState::kHandshake: state = "handshake"; break;
    case LinkState::kTransfer: state = "sync"; break;
    case LinkState::kConnected: state = "connected"; break;
  }
  out.array(5);
  out.bulk("slave");
  out.bulk(host_);
  out.integer(port_);
  out.bulk(state);
  out.integer(state_ == LinkState::kConnected ? applier_.offset() : -1);
}

}  // namespace lawnkv::replication
