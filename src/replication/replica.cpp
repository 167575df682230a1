#include "replication/replica.hpp"

#include <unistd.h>

#include <vector>

#include "durability/snapshots.hpp"

namespace lawnkv::replication {

namespace {

// The snapshot's temporary file: dir/temp-<unix seconds>.<pid>.rdb, as Redis.
std::string temp_file(const config::Values& v, int64_t now_ms) {
  return v.dir + "/temp-" + std::to_string(now_ms / 1000) + "." + std::to_string(::getpid()) + ".rdb";
}

bool dataset_empty(ServerState& s) {
  for (int db = 0; db < s.data.keyspace.databases(); ++db)
    if (s.data.keyspace.db(db).size() > 0) return false;
  return true;
}

}  // namespace

Replica::Replica(ServerState& server, ReplicationState& history, std::function<void(std::string_view)> proxy)
    : server_(server), history_(history), proxy_(std::move(proxy)), applier_(server, session_) {
  applier_.applied = [this](std::string_view bytes) {
    if (proxy_) proxy_(bytes);
  };
  session_.on_kill = [this] {
    if (transport_ && state_ != LinkState::kNone) transport_->close_soon();
  };
  applier_.ack = [this](int64_t offset) {
    if (transport_ && state_ == LinkState::kConnected)
      transport_->send(encode_command({"REPLCONF", "ACK", std::to_string(offset)}));
  };
}

Replica::~Replica() {
  if (session_listed_) server_.clients.remove(session_);
}

int64_t Replica::repl_timeout_ms() const { return server_.config.values().repl_timeout * 1000; }

void Replica::log(LogLevel level, const std::string& text) const {
  if (server_.log) server_.log->log(level, text);
}

void Replica::set_primary(const std::string& host, int64_t port, int64_t now_ms, bool failover) {
  failover_ = failover;
  // Clients blocked on keys of a primary: their writes will not come here
  // (Redis's disconnectAllBlockedClients; a client waiting for a pause to
  // end is no exception to it: it is not blocked on keys).
  std::vector<Session*> blocked;
  for (const auto& [id, s] : server_.clients.all())
    if (s->blocked) blocked.push_back(s);
  for (Session* s : blocked) {
    server_.data.blocking.unblock(*s, true, &server_.facts.errors,
                                  "UNBLOCKED force unblock from blocking operation, instance state changed "
                                  "(master -> replica?)");
    s->close_soon();
  }
  if (state_ == LinkState::kNone) {
    // Our own history is what we hold: the next PSYNC offers it.
    replid_ = history_.replid();
    applier_.reset(history_.master_repl_offset());
    synced_ = true;
  } else {
    // Another primary: the link to the old one goes; what we hold of its
    // history stays, so the new one may continue it (PSYNC2).
    if (transport_ && state_ != LinkState::kConnect) transport_->close();
    if (state_ == LinkState::kConnected) applier_.drop();
  }
  host_ = host;
  port_ = port;
  reset_link();
  server_.facts.replica = true;
  server_.data.keyspace.set_replica_expiry(true);
  log(LogLevel::kNotice, "Connecting to MASTER " + host_ + ":" + std::to_string(port_));
  connect(now_ms);
}

void Replica::unset_primary() {
  failover_ = false;
  if (state_ == LinkState::kNone) return;
  if (transport_ && state_ != LinkState::kConnect) transport_->close();
  if (state_ == LinkState::kConnected) applier_.drop();
  if (session_listed_) {
    server_.clients.remove(session_);
    session_listed_ = false;
  }
  payload_.reset();
  load_.reset();
  reading_paused_ = false;
  after_load_.clear();
  handshake_.reset();
  state_ = LinkState::kNone;
  host_.clear();
  port_ = 0;
  down_since_ms_ = 0;
  // A new history starts here; the primary's stays valid as replid2 up to
  // the next byte, so its other replicas may continue from us.
  history_.shift_replid();
  // Our replicas learn the new id by reconnecting (and continue by PSYNC).
  if (promoted_listener_) promoted_listener_();
  server_.facts.replica = false;
  server_.facts.primary_link_up = false;
  // Keys that fell due while the primary owned their expiry go now.
  server_.data.keyspace.set_replica_expiry(false);
  log(LogLevel::kNotice, "MASTER MODE enabled");
}

void Replica::connect(int64_t now_ms) {
  if (transport_ == nullptr) return;
  state_ = LinkState::kConnecting;
  last_io_ms_ = now_ms;
  transport_->open(host_, port_);
}

void Replica::on_open(std::string peer, std::string local, int fd, int64_t now_ms) {
  if (state_ != LinkState::kConnecting) return;
  log(LogLevel::kNotice, "MASTER <-> REPLICA sync started");
  session_.set_socket(std::move(peer), std::move(local), fd);
  state_ = LinkState::kHandshake;
  last_io_ms_ = now_ms;
  HandshakeSettings hs;
  const config::Values& v = server_.config.values();
  hs.masterauth = v.masterauth;
  hs.masteruser = v.masteruser;
  // replica-announce-port first; over TLS the primary reaches us back on
  // tls-port (Redis's syncWithMaster).
  hs.listening_port = v.replica_announce_port           ? v.replica_announce_port
                      : v.tls_replication && v.tls_port ? static_cast<int>(v.tls_port)
                                                        : server_.facts.listening_port;
  hs.announce_ip = v.replica_announce_ip;
  hs.psync_failover = failover_;
  if (synced_ && !replid_.empty()) {
    hs.psync_replid = replid_;
    hs.psync_offset = applier_.offset() + 1;
    log(LogLevel::kNotice, "Trying a partial resynchronization (request " + replid_ + ":" +
                               std::to_string(hs.psync_offset) + ").");
  }
  handshake_ = std::make_unique<ReplicaHandshake>(std::move(hs));
  handshake_->start();
  line_.clear();
  transport_->send(handshake_->take_pending());
}

void Replica::on_data(std::string_view bytes, int64_t now_ms) {
  last_io_ms_ = now_ms;
  switch (state_) {
    case LinkState::kHandshake:
      return handshake_data(bytes, now_ms);
    case LinkState::kTransfer:
      if (payload_) return transfer_data(bytes, now_ms);
      return after_load_.append(bytes), void();
    case LinkState::kConnected:
      return stream_data(bytes, now_ms);
    default:
      return;
  }
}

void Replica::handshake_data(std::string_view bytes, int64_t now_ms) {
  while (!bytes.empty() && state_ == LinkState::kHandshake) {
    const size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      line_.append(bytes);
      return;
    }
    line_.append(bytes.substr(0, nl));
    bytes.remove_prefix(nl + 1);
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    const std::string line = std::move(line_);
    line_.clear();
    switch (handshake_->on_line(line)) {
      case ReplicaHandshake::Outcome::kWaiting:
        if (!handshake_->warning().empty()) log(LogLevel::kNotice, handshake_->warning());
        if (std::string req = handshake_->take_pending(); !req.empty()) transport_->send(req);
        break;
      case ReplicaHandshake::Outcome::kFullResync: {
        log(LogLevel::kNotice, "Full resync from master: " + handshake_->replid() + ":" +
                                   std::to_string(handshake_->offset()));
        failover_answered(true);
        const std::string& mode = server_.config.values().repl_diskless_load;
        const bool in_memory = mode == "swapdb" || (mode == "on-empty-db" && dataset_empty(server_));
        async_load_ = mode == "swapdb" && synced_ && handshake_->replid() == replid_;
        replid_ = handshake_->replid();
        initial_offset_ = handshake_->offset();
        synced_ = false;  // the dataset is about to be replaced
        state_ = LinkState::kTransfer;
        if (in_memory) {
          // Loaded as it arrives (snapshot_load.hpp).
          log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Loading DB in memory as it arrives");
          load_ = std::make_unique<SnapshotLoad>(server_);
          load_->begin_streaming(now_ms, async_load_);
          payload_ = std::make_unique<SyncPayload>("", [this](std::string_view body) { load_->feed(body); });
        } else {
          payload_ = std::make_unique<SyncPayload>(temp_file(server_.config.values(), now_ms));
        }
        return transfer_data(bytes, now_ms);
      }
      case ReplicaHandshake::Outcome::kContinue:
        log(LogLevel::kNotice, "Successful partial resynchronization with master.");
        failover_answered(true);
        if (handshake_->replid() != replid_) {
          log(LogLevel::kWarning, "Master replication ID changed to " + handshake_->replid());
          // Redis: the id we had stays ours as replid2 up to the next byte;
          // our replicas learn the new one by reconnecting.
          history_.shift_replid_to(handshake_->replid());
          if (promoted_listener_) promoted_listener_();
        }
        replid_ = handshake_->replid();
        ++partial_syncs_;
        adopt_history(applier_.offset(), false);
        go_online(now_ms);
        return stream_data(bytes, now_ms);
      case ReplicaHandshake::Outcome::kTryLater:
      case ReplicaHandshake::Outcome::kFailed: {
        // A refused PSYNC ... FAILOVER ends the failover (after the drop:
        // the listener makes this server a primary again).
        const bool refused = failover_ && handshake_->state() == ReplicaHandshake::State::kPsync;
        drop(handshake_->error(), now_ms);
        if (refused) failover_answered(false);
        return;
      }
    }
  }
}

void Replica::failover_answered(bool ok) {
  if (!failover_) return;
  failover_ = false;
  if (failover_listener_) failover_listener_(ok);
}

void Replica::transfer_data(std::string_view bytes, int64_t now_ms) {
  size_t used = 0;
  switch (payload_->feed(bytes, &used)) {
    case SyncPayload::Status::kMore:
      if (load_ && load_->buffered() >= kMaxHeldBytes) pause_reading(true);
      return;
    case SyncPayload::Status::kFailed:
      return drop(payload_->error(), now_ms);
    case SyncPayload::Status::kDone:
      break;
  }
  if (load_ && load_->streaming()) {
    log(LogLevel::kNotice, "MASTER <-> REPLICA sync: received " + std::to_string(payload_->received()) +
                               " bytes from master, loaded as they came");
    // A diskless primary sends the stream once our first ACK says we loaded.
    ack_after_load_ = payload_->diskless();
    payload_.reset();
    load_->input_done();
    after_load_.assign(bytes.substr(used));
    load_step(now_ms);
    return;
  }
  log(LogLevel::kNotice, "MASTER <-> REPLICA sync: receiving " + std::to_string(payload_->received()) +
                             " bytes from master to disk");
  start_load(bytes.substr(used), now_ms);
}

void Replica::pause_reading(bool paused) {
  if (paused == reading_paused_) return;
  reading_paused_ = paused;
  if (transport_) transport_->pause_reading(paused);
}

void Replica::start_load(std::string_view after, int64_t now_ms) {
  log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Flushing old data");
  log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Loading DB in memory");
  // A diskless primary sends the stream once our first ACK says we loaded.
  ack_after_load_ = payload_->diskless();
  load_ = std::make_unique<SnapshotLoad>(server_);
  const std::string temp = payload_->path();
  payload_.reset();
  if (std::string error = load_->begin(temp, now_ms); !error.empty()) {
    load_.reset();
    log(LogLevel::kWarning, error);
    return drop("the snapshot did not load", now_ms);
  }
  after_load_.assign(after);
  load_step(now_ms);
}

bool Replica::load_step(int64_t now_ms) {
  if (!load_) return false;
  switch (load_->step()) {
    case SnapshotLoad::Status::kMore:
      if (reading_paused_ && load_->buffered() < kMaxHeldBytes / 2) pause_reading(false);
      return true;
    case SnapshotLoad::Status::kStarved:
      // The socket's next bytes wake the loop.
      pause_reading(false);
      return false;
    case SnapshotLoad::Status::kFailed:
      log(LogLevel::kWarning, "Failed trying to load the MASTER synchronization DB from disk: " + load_->error());
      load_.reset();
      drop("the snapshot did not load", now_ms);
      return false;
    case SnapshotLoad::Status::kDone:
      break;
  }
  load_.reset();
  log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Finished with success");
  loaded(now_ms);
  return false;
}

void Replica::loaded(int64_t now_ms) {
  ++full_syncs_;
  applier_.reset(initial_offset_);
  synced_ = !replid_.empty();
  adopt_history(initial_offset_, true);
  go_online(now_ms);
  if (ack_after_load_) send_ack();
  const std::string after = std::move(after_load_);
  after_load_.clear();
  stream_data(after, now_ms);
}

void Replica::adopt_history(int64_t offset, bool full) {
  // After a full sync nothing we kept continues: the backlog starts anew
  // (our own replicas cannot continue from it), as Redis's
  // replicationAttachToNewMaster.
  if (full) {
    history_.free_backlog();
    history_.clear_replid2();
  }
  history_.set_history(replid_, offset);
  // The stream applied from here on is kept for our own replicas (Redis
  // creates the backlog at a replica's sync).
  if (!history_.backlog_active())
    history_.create_backlog(static_cast<uint64_t>(server_.config.values().repl_backlog_size));
}

void Replica::go_online(int64_t now_ms) {
  handshake_.reset();
  state_ = LinkState::kConnected;
  server_.facts.primary_link_up = true;
  down_since_ms_ = 0;
  session_.db = 0;
  if (!session_listed_) {
    session_.id = server_.clients.next_id();
    session_.created_ms = now_ms;
    server_.clients.add(session_);
    session_listed_ = true;
  }
  session_.last_interaction_ms = now_ms;
}

void Replica::stream_data(std::string_view bytes, int64_t now_ms) {
  if (bytes.empty()) return;
  session_.last_interaction_ms = now_ms;
  const std::string error = applier_.feed(bytes);
  if (!error.empty()) drop(error, now_ms);
}

void Replica::send_ack() {
  if (transport_ && state_ == LinkState::kConnected)
    transport_->send(encode_command({"REPLCONF", "ACK", std::to_string(applier_.offset())}));
}

void Replica::drop(std::string_view why, int64_t now_ms) {
  if (!why.empty()) log(LogLevel::kWarning, std::string(why));
  if (transport_) transport_->close();
  on_closed("", now_ms);
}

void Replica::on_closed(std::string_view why, int64_t now_ms) {
  if (state_ == LinkState::kNone) return;
  if (!why.empty()) log(LogLevel::kNotice, "Connection with master lost: " + std::string(why));
  if (state_ == LinkState::kConnected) {
    applier_.drop();
    down_since_ms_ = now_ms;
  }
  if (state_ == LinkState::kTransfer && payload_ && !payload_->in_memory()) {
    ::unlink(payload_->path().c_str());
  }
  reset_link();
}

void Replica::reset_link() {
  // The next connection reads from the start.
  reading_paused_ = false;
  payload_.reset();
  load_.reset();
  after_load_.clear();
  handshake_.reset();
  if (session_listed_) {
    server_.clients.remove(session_);
    session_listed_ = false;
  }
  state_ = LinkState::kConnect;
  server_.facts.primary_link_up = false;
}

void Replica::cron(int64_t now_ms) {
  const int64_t timeout_ms = repl_timeout_ms();
  switch (state_) {
    case LinkState::kNone:
      return;
    case LinkState::kConnect:
      log(LogLevel::kNotice, "Connecting to MASTER " + host_ + ":" + std::to_string(port_));
      return connect(now_ms);
    case LinkState::kConnecting:
    case LinkState::kHandshake:
      if (now_ms - last_io_ms_ > timeout_ms) drop("Timeout connecting to the MASTER...", now_ms);
      return;
    case LinkState::kTransfer:
      if (now_ms - last_io_ms_ > timeout_ms)
        drop("Timeout receiving bulk data from MASTER... If the problem persists try to set the "
             "'repl-timeout' parameter in redis.conf to a larger value.", now_ms);
      return;
    case LinkState::kConnected:
      if (now_ms - last_io_ms_ > timeout_ms) return drop("MASTER timeout: no data nor PING received...", now_ms);
      return send_ack();
  }
}

}  // namespace lawnkv::replication
