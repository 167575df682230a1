#pragma once
// What this server knows of its place in a replication history, whichever
// its role (PSYNC2's ids and offsets, Redis's server.replid / replid2 /
// master_repl_offset / second_replid_offset and repl_backlog), and how INFO
// replication and ROLE show it.
//
// The history: replid names a stream of writes, master_repl_offset counts
// its bytes so far (the offset of the last byte; 0 before any). replid2 is
// the history this server followed before its current one (a promoted
// replica's former primary's id), valid up to second_repl_offset: a replica
// of that old primary may continue from us as long as it asks for an offset
// no later than that (PSYNC2). Without a former history replid2 is forty
// '0's and second_repl_offset -1.
//
// The primary side (primary.hpp) feeds the stream it sends its replicas
// through feed(); the replica side (another room's code) adopts its
// primary's id and offset and proxies the stream it receives through
// feed() too, so its own replicas and backlog see the same bytes. What is
// particular to being a replica (master_host, master_link_status...) comes
// from the ReplicaSide hook; with none attached, or while it says it is not
// a replica, the server is a primary.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "replication/backlog.hpp"
#include "resp/writer.hpp"

namespace lawnkv::replication {

// The replica side's part of INFO replication and ROLE (Redis's fields
// while server.masterhost is set), attached with set_replica_side().
class ReplicaSide {
 public:
  virtual ~ReplicaSide() = default;
  // Whether this server follows a primary now (REPLICAOF host port).
  virtual bool is_replica() const = 0;
  // INFO replication's lines between "role:slave" and "connected_slaves":
  // master_host ... replica_announced, each "name:value\r\n", as Redis 7.0.
  virtual void info_fields(std::string& out, int64_t now_ms) const = 0;
  // ROLE's whole reply for a replica: "slave", host, port, state, offset.
  virtual void role_reply(resp::Writer& out) const = 0;
  // Its primary sent REPLCONF GETACK: an ACK is due at once.
  virtual void getack_received() {}
};

// One replica as INFO (slaveN:...) and ROLE list it.
struct ReplicaView {
  std::string ip;            // REPLCONF ip-address, else the peer's address
  int64_t port = 0;          // REPLCONF listening-port
  std::string_view state;    // wait_bgsave, send_bulk, online
  int64_t ack_offset = 0;    // the last REPLCONF ACK
  int64_t lag_s = 0;         // seconds since that ACK (online replicas; 0 otherwise)
};

// Full and partial resynchronisations served (INFO stats).
struct SyncStats {
  uint64_t sync_full = 0;
  uint64_t sync_partial_ok = 0;
  uint64_t sync_partial_err = 0;
};

class ReplicationState {
 public:
  // A fresh random replid, no former history, offset 0, no backlog.
  ReplicationState();

  const std::string& replid() const { return replid_; }
  const std::string& replid2() const { return replid2_; }
  int64_t master_repl_offset() const { return offset_; }
  int64_t second_repl_offset() const { return second_offset_; }

  // A new random replid: a new history starts here (the backlog is
  // created, a replica is promoted).
  void change_replid();
  // Forgets the former history.
  void clear_replid2();
  // Promotion (REPLICAOF NO ONE): the current history becomes the former
  // one, valid up to the next byte, and a new one starts, so the former
  // primary's other replicas may continue from us.
  void shift_replid();
  // The same with the id given: our primary continues our history under
  // its own new id (+CONTINUE <id>, a replica following its promoted
  // sibling), and the id we had stays valid as replid2.
  void shift_replid_to(std::string replid);
  // A replica takes its primary's history (+FULLRESYNC id offset, or the
  // id a +CONTINUE names).
  void set_history(std::string replid, int64_t offset);

  // The backlog exists once a replica has connected, and is kept until a
  // primary has had no replicas for repl-backlog-ttl seconds (primary.hpp);
  // its first byte is the next one fed.
  bool backlog_active() const { return backlog_ != nullptr; }
  void create_backlog(uint64_t size);
  void free_backlog() { backlog_.reset(); }
  // Told when a backlog is created (the primary's side then records this
  // server's writes: a replica promoted later streams them to its own).
  void set_backlog_listener(std::function<void()> listener) { backlog_listener_ = std::move(listener); }
  Backlog* backlog() { return backlog_.get(); }
  const Backlog* backlog() const { return backlog_.get(); }
  // Bytes of the replication stream, as sent to every replica: counted in
  // the offset and kept in the backlog. Without a backlog there is no
  // stream (no replica connected, or none for repl-backlog-ttl), so
  // nothing counts, as in Redis.
  void feed(std::string_view bytes);

  SyncStats stats;

  // The replica side's hook (null: none; it must outlive this state's use).
  void set_replica_side(ReplicaSide* side) { replica_side_ = side; }
  ReplicaSide* replica_side() const { return replica_side_; }
  bool is_replica() const { return replica_side_ != nullptr && replica_side_->is_replica(); }

  // INFO replication's lines (without its "# Replication" header), as Redis
  // 7.0 prints them: replicas are the connected ones, backlog_size the
  // configured repl-backlog-size, good_replicas min_slaves_good_slaves
  // (-1: min-replicas-to-write is off, no line), failover_state
  // master_failover_state (failover.hpp).
  std::string info_fields(std::span<const ReplicaView> replicas, uint64_t backlog_size, int64_t good_replicas,
                          std::string_view failover_state, int64_t now_ms) const;
  // ROLE: for a primary, "master", its offset and each online replica's
  // [ip, port, ack offset]; for a replica, the hook's reply.
  void role_reply(resp::Writer& out, std::span<const ReplicaView> replicas) const;

 private:
  std::string replid_;
  std::string replid2_;
  int64_t offset_ = 0;
  int64_t second_offset_ = -1;
  std::unique_ptr<Backlog> backlog_;
  std::function<void()> backlog_listener_;
  ReplicaSide* replica_side_ = nullptr;
};

}  // namespace lawnkv::replication
