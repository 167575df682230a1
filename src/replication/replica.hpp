#pragma once
// The replica's side of replication (REPLICAOF host port): the link's
// states, as Redis 7.0's repl_state, and what moves it between them. The
// socket is the server's (server/replica_link.hpp, a Transport); this class
// decides what is sent and what becomes of what is read, without libuv, so
// unit tests drive it with a fake transport.
//
//   kNone        a primary (no REPLICAOF)
//   kConnect     a primary is set; the next cron (each second) connects
//   kConnecting  the transport is connecting
//   kHandshake   PING ... PSYNC (replica_handshake.hpp)
//   kTransfer    +FULLRESYNC: the snapshot arrives (sync_payload.hpp) into
//                dir/temp-<unix s>.<pid>.rdb (or, with repl-diskless-load,
//                loads as it arrives: below); once whole it is renamed to
//                dir/dbfilename and loads in steps (snapshot_load.hpp:
//                clients hear -LOADING meanwhile; the stream that follows
//                waits), then replaces the dataset (expired keys kept: the
//                primary's DELs remove them)
//   kConnected   the stream runs (stream_applier.hpp); REPLCONF ACK
//                <offset> each second, and when the primary asks (GETACK)
//
// A link that drops (an error, EOF, CLIENT KILL TYPE master, repl-timeout
// seconds without a byte) goes back to kConnect; the next handshake asks
// PSYNC <replid> <offset + 1> so the primary can answer +CONTINUE and send
// only what was missed.
//
// While a primary is set: ServerFacts::replica (dispatch refuses clients'
// writes, replica-read-only) and store::Keyspace::set_replica_expiry (keys
// expire only by the primary's DELs). REPLICAOF NO ONE keeps the data and
// lets the expiry cycle reap what is due.
//
// The server's history (ReplicationState) follows the primary's: its id and
// offset after a sync, and the applied stream through Replication::proxy
// (so this server's own replicas and backlog see the same bytes). A server
// that becomes a replica first asks PSYNC with its own id and offset + 1
// (Redis's replicationCacheMasterUsingMyself): a primary it was a replica
// of continues it; another answers +FULLRESYNC. Promoted, it shifts its id
// (replid2 = the primary's, valid up to the next byte).
//
// repl-diskless-load on-empty-db (when the dataset is empty) or swapdb
// loads the snapshot as it arrives instead of through the temp file
// (nothing written to dir, and only the bytes not yet parsed held: past
// kMaxHeldBytes the link stops reading until the load catches up); with
// swapdb, when the primary's id is the one we already follow, the old
// dataset serves reads while the new one loads (async_loading), as Redis
// 7.0.
//
// Not yet: +CONTINUE's new id as replid2.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/server_state.hpp"
#include "replication/primary_session.hpp"
#include "replication/replica_handshake.hpp"
#include "replication/replication_state.hpp"
#include "replication/snapshot_load.hpp"
#include "replication/stream_applier.hpp"
#include "replication/sync_payload.hpp"
#include "resp/writer.hpp"

namespace lawnkv::replication {

enum class LinkState { kNone, kConnect, kConnecting, kHandshake, kTransfer, kConnected };

// The server's socket to the primary.
class Transport {
 public:
  // Connects without blocking; Replica::on_open or on_closed follows.
  virtual void open(const std::string& host, int64_t port) = 0;
  virtual void send(std::string_view bytes) = 0;
  // Closes now; no callback.
  virtual void close() = 0;
  // Closes from the loop, after the command running now: on_closed follows.
  virtual void close_soon() = 0;
  // Stops (true) or resumes reading: a streamed load holds too many bytes
  // not yet parsed. A new connection reads.
  virtual void pause_reading(bool paused) {}

 protected:
  ~Transport() = default;
};

class Replica final : public Service, public ReplicaSide {
 public:
  // A streamed load holding this many bytes not yet parsed stops reading
  // from the primary, and reads again below half of it (or when the record
  // it parses needs more).
  static constexpr size_t kMaxHeldBytes = 8 << 20;

  // history: the server's replication history (replication_state.hpp),
  // which follows the primary's once synced; proxy: the stream bytes
  // applied go there (Replication::proxy: offset, backlog, our replicas).
  Replica(ServerState& server, ReplicationState& history, std::function<void(std::string_view)> proxy);
  ~Replica() override;
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // The server's socket; nullptr (tests without one, shutdown) stops using it.
  void set_transport(Transport* t) { transport_ = t; }

  // REPLICAOF host port (and replicaof in the config at start): a link to
  // that primary is made now, or by the next cron without a transport.
  // failover: FAILOVER made this primary a replica of its target (failover.hpp):
  // the handshake's PSYNC carries FAILOVER, and its answer goes to the
  // failover listener.
  void set_primary(const std::string& host, int64_t port, int64_t now_ms, bool failover = false);
  // Told whether the target accepted our PSYNC ... FAILOVER (+CONTINUE or
  // +FULLRESYNC) or refused it.
  void set_failover_listener(std::function<void(bool)> listener) { failover_listener_ = std::move(listener); }
  // Told when this server's replication id changes under its replicas,
  // which must reconnect to learn it: REPLICAOF NO ONE (or a failover)
  // makes it a primary, or its primary continues under a new id.
  void set_promoted_listener(std::function<void()> listener) { promoted_listener_ = std::move(listener); }
  // REPLICAOF NO ONE: the link is dropped, the data stays, writes are taken.
  void unset_primary();

  // The transport's news.
  void on_open(std::string peer, std::string local, int fd, int64_t now_ms);
  void on_data(std::string_view bytes, int64_t now_ms);
  void on_closed(std::string_view why, int64_t now_ms);

  // Each second: connects when due, ACKs, drops a silent link.
  void cron(int64_t now_ms);
  // Each loop iteration: the next step of a snapshot's load. True while
  // more remains (the loop must come back without waiting).
  bool load_step(int64_t now_ms);
  bool loading() const { return load_ != nullptr; }

  // For INFO replication and ROLE.
  LinkState state() const { return state_; }
  bool is_replica() const override { return state_ != LinkState::kNone; }
  const std::string& host() const { return host_; }
  int64_t port() const { return port_; }
  bool link_up() const { return state_ == LinkState::kConnected; }
  // The primary's replication id we follow ("" before a first sync).
  const std::string& primary_replid() const { return replid_; }
  // Stream bytes processed (slave_repl_offset) and read (slave_read_repl_offset).
  int64_t offset() const { return synced_ ? applier_.offset() : -1; }
  int64_t read_offset() const { return synced_ ? applier_.read_offset() : -1; }
  int64_t last_io_ms() const { return last_io_ms_; }
  int64_t link_down_since_ms() const { return down_since_ms_; }  // 0: never up
  // While kTransfer: the snapshot's size (-1 unknown) and bytes so far.
  int64_t sync_size() const { return payload_ ? payload_->size() : -1; }
  uint64_t sync_received() const { return payload_ ? payload_->received() : 0; }
  uint64_t full_syncs() const { return full_syncs_; }
  uint64_t partial_syncs() const { return partial_syncs_; }

  // INFO replication's replica lines, master_host ... replica_announced,
  // each "name:value\r\n" as Redis 7.0 prints them while it has a primary.
  void info_fields(std::string& out, int64_t now_ms) const override;
  // ROLE on a replica: "slave", host, port, the link's state (connect,
  // connecting, handshake, sync, connected), the processed offset (-1
  // without a link).
  void role_reply(resp::Writer& out) const override;

 private:
  void connect(int64_t now_ms);
  // Drops the link (logged why) and waits for the next cron to connect.
  void drop(std::string_view why, int64_t now_ms);
  // Back to "connect": no payload or handshake under way, the primary's
  // session out of the client list, the link down.
  void reset_link();
  void handshake_data(std::string_view bytes, int64_t now_ms);
  // The target's answer to PSYNC ... FAILOVER, to the listener (once).
  void failover_answered(bool ok);
  void transfer_data(std::string_view bytes, int64_t now_ms);
  void stream_data(std::string_view bytes, int64_t now_ms);
  // The snapshot in payload_'s file starts to load (load_step goes on).
  void start_load(std::string_view after, int64_t now_ms);
  // Reading from the primary stops or resumes (a streamed load's bytes held).
  void pause_reading(bool paused);
  // The load is done: the stream runs from the snapshot's offset.
  void loaded(int64_t now_ms);
  // The link carries the stream from offset on: the primary's session joins
  // the clients.
  void go_online(int64_t now_ms);
  void send_ack();
  int64_t repl_timeout_ms() const;
  void log(LogLevel level, const std::string& text) const;

  // The history follows the primary's from a sync on.
  void adopt_history(int64_t offset, bool full);

  ServerState& server_;
  ReplicationState& history_;
  std::function<void(std::string_view)> proxy_;
  std::function<void(bool)> failover_listener_;
  std::function<void()> promoted_listener_;
  bool failover_ = false;      // our next PSYNC carries FAILOVER (set_primary)
  Transport* transport_ = nullptr;
  LinkState state_ = LinkState::kNone;
  std::string host_;
  int64_t port_ = 0;
  std::unique_ptr<ReplicaHandshake> handshake_;
  std::unique_ptr<SyncPayload> payload_;
  std::unique_ptr<SnapshotLoad> load_;
  std::string after_load_;     // the stream received while the snapshot loads
  bool ack_after_load_ = false;  // a diskless primary waits for our ACK
  bool async_load_ = false;      // repl-diskless-load swapdb of the history we follow
  bool reading_paused_ = false;  // a streamed load holds kMaxHeldBytes
  std::string line_;           // handshake: a reply line so far
  std::string replid_;         // the primary's history we hold
  int64_t initial_offset_ = -1;  // +FULLRESYNC's offset
  bool synced_ = false;        // the dataset is a copy of replid_'s up to offset()
  PrimarySession session_;
  bool session_listed_ = false;
  StreamApplier applier_;
  int64_t last_io_ms_ = 0;
  int64_t down_since_ms_ = 0;
  uint64_t full_syncs_ = 0;
  uint64_t partial_syncs_ = 0;
};

}  // namespace lawnkv::replication
