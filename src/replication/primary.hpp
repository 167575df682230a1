#pragma once
// The primary's side of replication: the replicas that connected to this
// server, from their handshake to the stream (Redis's replication.c, master
// half).
//
// A replica's link, as a redis-server replica drives it:
//   PING, AUTH, REPLCONF listening-port <port>, REPLCONF capa eof capa
//   psync2: remembered (handshake());
//   PSYNC <replid> <offset>: when replid is our history (or our former
//   one, up to second_repl_offset) and the backlog still holds offset,
//   "+CONTINUE <replid>" and the backlog's bytes from offset: the link is
//   online at once. Otherwise a full resynchronisation ("?" asks for one):
//   wait_bgsave  until no child runs, then a BGSAVE (to dir/dbfilename, as
//                Redis's disk-based sync) starts for every link waiting,
//                and each is sent "+FULLRESYNC <replid> <offset>", offset
//                the stream's at the fork. The stream's bytes from then on
//                are kept for the link (the snapshot does not have them);
//                a link that comes while such a BGSAVE runs and another
//                link keeps bytes since its fork shares it;
//   send_bulk    the BGSAVE ended: "$<len>\r\n" and the file's bytes, a
//                chunk at a time as the link's output drains (each loop
//                iteration looks), then the bytes kept;
//   online       every byte fed to the stream goes to it as well.
//   SYNC is the same without "+FULLRESYNC", and such a link sends no ACKs.
//
// repl-diskless-sync yes (primary_diskless.cpp, diskless_sync.hpp): when
// every link waiting for a snapshot said REPLCONF capa eof, the batch
// waits repl-diskless-sync-delay seconds from the first one's PSYNC (or
// until repl-diskless-sync-max-replicas wait), then a child writes the
// snapshot into a pipe and each link of the batch is sent "+FULLRESYNC",
// "$EOF:<mark>\r\n", what the pipe gives as it comes, and the mark
// (state wait_bgsave meanwhile, as Redis). Links that come meanwhile wait
// for the next child. Once the mark went the link is online, but the
// stream kept since the fork goes out only with its first REPLCONF ACK
// (the replica then has the image loaded: Redis's
// repl_start_cmd_stream_on_ack).
//
// The backlog holds repl-backlog-size bytes (at least 16 KB, as Redis); a
// CONFIG SET of it takes effect at the next byte fed.
//
// The stream: the effects of writes (engine/effects.hpp; this is one of its
// sinks) encoded with SELECT framing and MULTI/EXEC (effect_encoder.hpp),
// a PING every repl-ping-replica-period seconds, and "REPLCONF GETACK *"
// before the loop waits when a WAIT asked for acknowledgements. Every byte
// counts in master_repl_offset and goes to the backlog. A full sync makes
// the encoder forget its db, so the next record selects one, as the new
// replica's snapshot does not say which db the stream is in.
//
// Replicas answer REPLCONF ACK <offset> (no reply): WAIT counts the online
// replicas whose acknowledged offset reaches a client's last write. A link
// silent for repl-timeout seconds is closed. While the server is itself a
// replica (ReplicationState::is_replica) the effects of the writes its
// primary sends are not encoded again: the replica side proxies the bytes
// it received instead.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "durability/snapshots.hpp"
#include "engine/effect_encoder.hpp"
#include "engine/effects.hpp"
#include "engine/server_state.hpp"
#include "replication/diskless_sync.hpp"
#include "replication/replication_state.hpp"

namespace lawnkv::replication {

// Where WAIT's clients block (engine/blocking.hpp): an acknowledgement
// signals this name in db 0, and they count again. No user key can make it
// mean more than a spurious count.
inline constexpr std::string_view kAckWaitKey{"\0replication-acks", 17};

class Primary final : public EffectSink, public BgsaveListener {
 public:
  Primary(ServerState& server, ReplicationState& state);
  ~Primary();
  Primary(const Primary&) = delete;
  Primary& operator=(const Primary&) = delete;

  // What REPLCONF told before (P)SYNC.
  struct Handshake {
    std::string ip;         // ip-address ("" : the peer's address)
    int64_t port = 0;       // listening-port
    bool capa_eof = false;
    bool capa_psync2 = false;
  };
  Handshake& handshake(const Session& s) { return handshakes_[s.id]; }

  // SYNC (psync false) or PSYNC replid offset from s; replies through s.
  // Returns "" or an error text to reply instead.
  std::string sync(Session& s, bool psync, std::string_view replid, int64_t offset, int64_t now_ms);
  // REPLCONF ACK offset from s (nothing if s is not a replica).
  void ack(Session& s, int64_t offset, int64_t now_ms);
  // Online replicas that acknowledged offset or later (WAIT).
  int64_t count_acks(int64_t offset) const;
  // A WAIT blocked: "REPLCONF GETACK *" goes out before the loop waits.
  void request_acks() { getack_wanted_ = true; }

  // The loop, before replies go out: the snapshots' next chunks, the
  // GETACK asked for.
  void before_sleep();
  // A link sending its snapshot has room for more now (its output went out
  // at once): the loop must come back without waiting in poll, where no
  // event would wake it for this.
  bool bulk_ready() const;
  // A diskless sync's pipe, while the loop should wake when the child
  // wrote more (the batch's links have room); -1 otherwise.
  int relay_fd() const;
  // The pipe has bytes (or the child ended): relays a bounded amount.
  void relay();
  // The loop's watch on a diskless sync's pipe (the server's; none: the
  // relay runs only from before_sleep).
  void set_pipe_watcher(PipeWatcher* w) {
    pipe_watcher_ = w;
    if (diskless_ && w == nullptr) diskless_->forget_watcher();
  }
  // About once a second while wants_cron(): PINGs, keep-alives of links
  // waiting for their snapshot, timeouts, a BGSAVE for links waiting, the
  // backlog freed once it outlived repl-backlog-ttl without replicas.
  // ping: the stream's PING is due now (a failover with a timeout holds it).
  void cron(int64_t now_ms, bool ping = true);
  // This server became a primary (REPLICAOF NO ONE, a failover): its time
  // without replicas counts from now, as Redis's replicationUnsetMaster,
  // or the backlog its new replicas need could go before they come.
  void restart_no_replicas_clock(int64_t now_ms) { no_replicas_since_ms_ = now_ms; }
  bool wants_cron() const { return state_.backlog_active() || !links_.empty(); }
  // s disconnected.
  void forget(const Session& s);
  // Closes every replica's link (a promoted server's new id: they come
  // back and continue by PSYNC, as from Redis's replicationUnsetMaster).
  void disconnect_replicas();
  // From now on this server's writes are encoded into the stream whenever
  // it is not a replica (called when the backlog is created, whatever the
  // role: a replica promoted later streams its writes from the first).
  void attach();

  std::vector<ReplicaView> views(int64_t now_ms) const;
  size_t size() const { return links_.size(); }

  // Bytes a replica received from its own primary: fed as they came.
  void proxy(std::string_view bytes) { feed(bytes); }

  // EffectSink.
  void append(std::span<const EffectRecord> records) override;
  // An expiry cycle's deletions: one encoding, one feed (single-key DELs
  // joined, engine/effect_encoder.hpp).
  void append_each(std::span<const EffectRecord> records) override;
  // BgsaveListener.
  void bgsave_done(bool ok) override;

 private:
  enum class LinkState { kWaitBgsaveStart, kWaitBgsaveEnd, kSendBulk, kOnline };
  // The snapshot goes out this much at a time, while the link's output
  // holds less: a large file never sits whole in memory, nor counts
  // against the replica's output limit.
  static constexpr size_t kBulkChunk = 1 << 20;
  struct Link {
    uint64_t session_id = 0;
    LinkState state = LinkState::kWaitBgsaveStart;
    bool pre_psync = false;     // came with SYNC: no +FULLRESYNC, no ACKs
    int64_t initial_offset = 0; // the stream's offset at its snapshot's fork
    int64_t ack_offset = 0;
    int64_t ack_time_ms = 0;    // its last ACK (or when it went online)
    std::string kept;           // the stream since its snapshot's fork
    int rdb_fd = -1;            // send_bulk: the snapshot, read from here on
    uint64_t rdb_left = 0;      // send_bulk: its bytes not yet sent
    int64_t wait_since_ms = 0;  // when it asked for a full sync
    bool socket = false;        // wait_bgsave_end: in the diskless batch
    int64_t stalled_since_ms = 0;  // in the batch: since when its output has no room (0: it has)
    bool stream_on_ack = false; // online after a diskless sync: the stream waits for its first ACK
  };
  // The diskless relay reads this much at a time, and at most
  // kRelayTurnBytes per loop iteration.
  static constexpr size_t kRelayRead = 256 * 1024;
  static constexpr size_t kRelayTurnBytes = 4 * kRelayRead;

  // Bytes of the stream: counted, kept in the backlog, sent or kept for
  // every link.
  void feed(std::string_view bytes);
  // Whether this server's own writes are encoded into the stream now (not
  // while it is a replica, whose stream is its primary's bytes).
  bool encodes();
  // Encodes records (as one command's, or each a command of its own) into
  // the kept buffer and feeds them.
  void encode_and_feed(std::span<const EffectRecord> records, bool each);
  // The encoding buffer kept for its capacity, up to kKeptBuffer bytes.
  static constexpr size_t kKeptBuffer = 64 * 1024;
  bool try_partial(Session& s, std::string_view replid, int64_t offset, int64_t now_ms);
  // send_bulk: each link's next chunks of the snapshot, while its output
  // is short; at the end the stream kept since the fork, and online.
  void send_bulks();
  // Starts a BGSAVE for the links waiting for one, if no child runs.
  void start_bgsave_for_links();
  // repl-diskless-sync: whether the links waiting go by a pipe, and whether
  // their batch is gathered (the delay passed, or max-replicas wait).
  bool diskless_target() const;
  bool diskless_gathered() const;
  // Forks the child writing into a pipe for the links waiting. False if
  // it could not (the links were told and dropped).
  bool start_diskless();
  // The diskless transfer is over (pipe at EOF and the child gone, or
  // failed): the mark and online, or the links closed.
  void finish_diskless(bool ok);
  // The links waiting for a child's start are told it failed, and dropped.
  void refuse_waiting();
  // A link of the diskless batch went: with none left the child is stopped.
  void batch_left();
  // Each second: a link of the batch whose output had no room for
  // repl-timeout seconds holds the others back: it is closed, as Redis's
  // "timedout replica (full sync)".
  void diskless_cron(int64_t now_ms);
  bool in_socket_batch(const Link& l) const { return l.state == LinkState::kWaitBgsaveEnd && l.socket; }
  // links_[it] went (dropped or disconnected).
  void erase_link(std::vector<Link>::iterator it);
  // repl-backlog-ttl (Redis's replicationCron): a primary without replicas
  // for more than that many seconds frees its backlog, under a new replid
  // with no replid2 (offsets stop counting without a backlog, so no one
  // may continue the old history from us). A replica keeps its own: its
  // sub-replicas, and its own after a promotion, continue from it.
  void free_idle_backlog(int64_t now_ms);
  Link* find(uint64_t session_id);
  // s's link to go, and why (logged).
  void drop(uint64_t session_id, const std::string& why);
  Session* session(const Link& l) const { return server_.clients.find(l.session_id); }
  void log(LogLevel level, const std::string& text) const {
    if (server_.log) server_.log->log(level, text);
  }

  ServerState& server_;
  ReplicationState& state_;
  EffectEncoder encoder_;
  std::map<uint64_t, Handshake> handshakes_;  // by session id
  std::vector<Link> links_;                   // in the order they synced
  std::vector<uint64_t> online_;              // feed's list of the links to send to
  std::string encoded_;                       // append's buffer, kept for its capacity
  bool attached_ = false;      // a sink of the effects since the backlog exists
  bool bgsave_for_links_ = false;  // the BGSAVE running was started for links
  std::unique_ptr<DisklessSync> diskless_;  // the diskless transfer running
  bool diskless_child_ = false;
  PipeWatcher* pipe_watcher_ = nullptr;  // the child running writes into diskless_'s pipe
  bool getack_wanted_ = false;
  bool proxied_ = false;       // bytes from our own primary went out since the encoder last wrote
  uint64_t cron_ticks_ = 0;
  int64_t no_replicas_since_ms_;  // the last link went, or the start, or a promotion
};

}  // namespace lawnkv::replication
