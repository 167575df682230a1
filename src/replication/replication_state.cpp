#include "replication/replication_state.hpp"

#include <random>

#include "replication/info_lines.hpp"

namespace lawnkv::replication {

namespace {

constexpr int kReplidLen = 40;

std::string random_replid() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(kReplidLen, '0');
  for (char& c : id) c = kHex[rd() % 16];
  return id;
}

}  // namespace

ReplicationState::ReplicationState() : replid_(random_replid()), replid2_(kReplidLen, '0') {}

void ReplicationState::change_replid() { replid_ = random_replid(); }

void ReplicationState::clear_replid2() {
  replid2_.assign(kReplidLen, '0');
  second_offset_ = -1;
}

void ReplicationState::shift_replid() { shift_replid_to(random_replid()); }

void ReplicationState::shift_replid_to(std::string replid) {
  replid2_ = replid_;
  // A replica of the old history that has processed everything we have
  // asks for offset + 1: that is still the old history.
  second_offset_ = offset_ + 1;
  replid_ = std::move(replid);
}

void ReplicationState::set_history(std::string replid, int64_t offset) {
  replid_ = std::move(replid);
  offset_ = offset;
}

void ReplicationState::create_backlog(uint64_t size) {
  backlog_ = std::make_unique<Backlog>(size, offset_ + 1);
  if (backlog_listener_) backlog_listener_();
}

void ReplicationState::feed(std::string_view bytes) {
  if (!backlog_) return;
  offset_ += static_cast<int64_t>(bytes.size());
  backlog_->append(bytes);
}

std::string ReplicationState::info_fields(std::span<const ReplicaView> replicas, uint64_t backlog_size,
                                          int64_t good_replicas, std::string_view failover_state,
                                          int64_t now_ms) const {
  std::string out;
  const bool replica = is_replica();
  info_line(out, "role", replica ? "slave" : "master");
  if (replica) replica_side_->info_fields(out, now_ms);
  info_line(out, "connected_slaves", static_cast<int64_t>(replicas.size()));
  if (good_replicas >= 0) info_line(out, "min_slaves_good_slaves", good_replicas);
  for (size_t i = 0; i < replicas.size(); ++i) {
    const ReplicaView& r = replicas[i];
    info_line(out, "slave" + std::to_string(i),
         "ip=" + r.ip + ",port=" + std::to_string(r.port) + ",state=" + std::string(r.state) +
             ",offset=" + std::to_string(r.ack_offset) + ",lag=" + std::to_string(r.lag_s));
  }
  info_line(out, "master_failover_state", failover_state);
  info_line(out, "master_replid", replid_);
  info_line(out, "master_replid2", replid2_);
  info_line(out, "master_repl_offset", offset_);
  info_line(out, "second_repl_offset", second_offset_);
  info_line(out, "repl_backlog_active", backlog_ ? 1 : 0);
  info_line(out, "repl_backlog_size", static_cast<int64_t>(backlog_size));
  info_line(out, "repl_backlog_first_byte_offset", backlog_ ? backlog_->first_byte_offset() : 0);
  info_line(out, "repl_backlog_histlen", backlog_ ? static_cast<int64_t>(backlog_->histlen()) : 0);
  return out;
}

void ReplicationState::role_reply(resp::Writer& out, std::span<const ReplicaView> replicas) const {
  if (is_replica()) return replica_side_->role_reply(out);
  out.array(3);
  out.bulk("master");
  out.integer(offset_);
  size_t online = 0;
  for (const ReplicaView& r : replicas) online += r.state == "online";
  out.array(online);
  for (const ReplicaView& r : replicas) {
    if (r.state != "online") continue;
    out.array(3);
    out.bulk(r.ip);
    out.bulk(std::to_string(r.port));
    out.bulk(std::to_string(r.ack_offset));
  }
}

}  // namespace lawnkv::replication
