#include "replication/primary.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/ascii.hpp"

namespace lawnkv::replication {

namespace {

constexpr std::string_view kPing = "*1\r\n$4\r\nPING\r\n";
constexpr std::string_view kGetAck = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";

// "127.0.0.1:6380" -> "127.0.0.1" (the port is after the last ':').
std::string host_of(const std::string& address) {
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

// repl-backlog-size, at least 16 KB as Redis's CONFIG_REPL_BACKLOG_MIN_SIZE.
uint64_t backlog_size(const config::Values& cfg) {
  constexpr uint64_t kMinBacklog = 16 * 1024;
  return std::max<uint64_t>(static_cast<uint64_t>(cfg.repl_backlog_size), kMinBacklog);
}

bool same_id(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

}  // namespace

Primary::Primary(ServerState& server, ReplicationState& state)
    : server_(server), state_(state), no_replicas_since_ms_(server.clock.now_ms()) {}

Primary::~Primary() {
  if (attached_) server_.data.effects.detach(this);
  for (const Link& l : links_)
    if (l.rdb_fd >= 0) ::close(l.rdb_fd);
}

std::string Primary::sync(Session& s, bool psync, std::string_view replid, int64_t offset, int64_t now_ms) {
  if (s.replica) return {};  // already one: ignored, as Redis
  if (s.output_buffer_bytes() > 0) return "ERR SYNC and PSYNC are invalid with pending output";
  const std::string name = s.peer_address();
  log(LogLevel::kNotice, "Replica " + name + " asks for synchronization");
  if (psync) {
    if (try_partial(s, replid, offset, now_ms)) {
      ++state_.stats.sync_partial_ok;
      return {};
    }
    if (replid.empty() || replid[0] != '?') ++state_.stats.sync_partial_err;
  }
  ++state_.stats.sync_full;
  s.replica = true;
  Link link;
  link.session_id = s.id;
  link.pre_psync = !psync;
  link.ack_time_ms = now_ms;
  link.wait_since_ms = now_ms;
  if (!state_.backlog_active()) {
    // No history any replica could continue: a new one starts here.
    state_.change_replid();
    state_.clear_replid2();
    state_.create_backlog(backlog_size(server_.config.values()));
    log(LogLevel::kNotice, "Replication backlog created, my new replication IDs are '" + state_.replid() +
                               "' and '" + state_.replid2() + "'");
  }
  attach();
  // A BGSAVE for links runs: a link that keeps the stream since its fork
  // lets this one share it (not a diskless one's: its image is on the way).
  if (bgsave_for_links_) {
    for (const Link& other : links_) {
      if (other.state != LinkState::kWaitBgsaveEnd || other.socket) continue;
      link.state = LinkState::kWaitBgsaveEnd;
      link.initial_offset = other.initial_offset;
      link.kept = other.kept;
      if (!link.pre_psync)
        s.deliver("+FULLRESYNC " + state_.replid() + " " + std::to_string(link.initial_offset) + "\r\n");
      log(LogLevel::kNotice, "Waiting for end of BGSAVE for SYNC");
      break;
    }
  }
  links_.push_back(std::move(link));
  start_bgsave_for_links();
  return {};
}

bool Primary::try_partial(Session& s, std::string_view replid, int64_t offset, int64_t now_ms) {
  const bool ours = same_id(replid, state_.replid()) ||
                    (same_id(replid, state_.replid2()) && offset <= state_.second_repl_offset());
  if (!ours || !state_.backlog_active() || !state_.backlog()->covers(offset)) return false;
  s.replica = true;
  Link link;
  link.session_id = s.id;
  link.state = LinkState::kOnline;
  link.ack_time_ms = now_ms;
  std::string out = handshake(s).capa_psync2 ? "+CONTINUE " + state_.replid() + "\r\n" : "+CONTINUE\r\n";
  const size_t header = out.size();
  state_.backlog()->copy_from(offset, out);
  log(LogLevel::kNotice, "Partial resynchronization request from " + s.peer_address() + " accepted. Sending " +
                             std::to_string(out.size() - header) + " bytes of backlog starting from offset " +
                             std::to_string(offset) + ".");
  links_.push_back(std::move(link));
  s.deliver(out);
  return true;
}

void Primary::start_bgsave_for_links() {
  bool waiting = false;
  for (const Link& l : links_) waiting |= l.state == LinkState::kWaitBgsaveStart;
  // A child runs, or a diskless image is still being relayed from the
  // pipe: the cron (or its end) tries again.
  if (!waiting || server_.child_running() || diskless_) return;
  if (diskless_target()) {
    if (diskless_gathered()) start_diskless();
    return;
  }
  log(LogLevel::kNotice, "Starting BGSAVE for SYNC with target: disk");
  if (server_.snapshots().start_bgsave(server_) != Snapshots::Bg::kStarted) return refuse_waiting();
  bgsave_for_links_ = true;
  // The new replicas' snapshots do not say which db the stream is in.
  encoder_.reset();
  for (Link& l : links_) {
    if (l.state != LinkState::kWaitBgsaveStart) continue;
    l.state = LinkState::kWaitBgsaveEnd;
    l.initial_offset = state_.master_repl_offset();
    l.kept.clear();
    Session* s = session(l);
    if (s && !l.pre_psync)
      s->deliver("+FULLRESYNC " + state_.replid() + " " + std::to_string(l.initial_offset) + "\r\n");
  }
}

void Primary::refuse_waiting() {
  std::vector<uint64_t> failed;
  for (const Link& l : links_)
    if (l.state == LinkState::kWaitBgsaveStart) failed.push_back(l.session_id);
  for (uint64_t id : failed) {
    if (Session* s = server_.clients.find(id)) {
      s->deliver("-ERR BGSAVE failed, replication can't continue\r\n");
      s->close_soon();
    }
    drop(id, "BGSAVE for replication failed");
  }
}

void Primary::bgsave_done(bool ok) {
  if (diskless_child_) {
    diskless_child_ = false;
    bgsave_for_links_ = false;
    if (diskless_) {
      diskless_->child_exited(ok);
      // The pipe may still hold the image's end: relay() finishes then.
      if (!ok || !diskless_->pipe_open()) finish_diskless(ok);
    }
    start_bgsave_for_links();
    return;
  }
  if (!bgsave_for_links_) {
    if (ok) start_bgsave_for_links();
    return;
  }
  bgsave_for_links_ = false;
  const std::string path = Snapshots::path(server_.config.values());
  std::vector<uint64_t> failed;
  for (Link& l : links_) {
    if (l.state != LinkState::kWaitBgsaveEnd) continue;
    // Each link reads the file through its own descriptor: a later save
    // may replace the file meanwhile.
    struct stat st;
    const int fd = ok ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      if (fd >= 0) ::close(fd);
      failed.push_back(l.session_id);
      continue;
    }
    l.state = LinkState::kSendBulk;
    l.rdb_fd = fd;
    l.rdb_left = static_cast<uint64_t>(st.st_size);
    if (Session* s = session(l)) s->deliver("$" + std::to_string(l.rdb_left) + "\r\n");
  }
  for (uint64_t id : failed) {
    if (Session* s = server_.clients.find(id)) s->close_soon();
    drop(id, "SYNC failed. BGSAVE child returned an error");
  }
  send_bulks();
  start_bgsave_for_links();
}

void Primary::send_bulks() {
  std::vector<uint64_t> sending;
  for (const Link& l : links_)
    if (l.state == LinkState::kSendBulk) sending.push_back(l.session_id);
  for (uint64_t id : sending) {
    // Delivering may close the client, which forgets its link: look both up
    // again each time.
    auto link = [&]() -> Link* {
      auto it = std::find_if(links_.begin(), links_.end(), [id](const Link& l) { return l.session_id == id; });
      return it == links_.end() ? nullptr : &*it;
    };
    Session* s = server_.clients.find(id);
    Link* l = link();
    if (s == nullptr || l == nullptr) continue;
    std::string chunk;
    while (l->rdb_left > 0 && s->output_buffer_bytes() < kBulkChunk) {
      chunk.resize(std::min<uint64_t>(l->rdb_left, kBulkChunk));
      const ssize_t n = ::read(l->rdb_fd, chunk.data(), chunk.size());
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        s->close_soon();
        drop(id, "Read error sending DB to replica");
        l = nullptr;
        break;
      }
      chunk.resize(static_cast<size_t>(n));
      l->rdb_left -= static_cast<uint64_t>(n);
      s->deliver(chunk);
      if ((l = link()) == nullptr || server_.clients.find(id) == nullptr) break;
    }
    if (l == nullptr || l->rdb_left > 0) continue;
    // The whole file went: the stream since the fork follows, then online.
    ::close(l->rdb_fd);
    l->rdb_fd = -1;
    l->state = LinkState::kOnline;
    l->ack_time_ms = server_.clock.now_ms();
    const std::string kept = std::move(l->kept);
    l->kept.clear();
    log(LogLevel::kNotice, "Synchronization with replica " + s->peer_address() + " succeeded");
    s->deliver(kept);
  }
}

void Primary::feed(std::string_view bytes) {
  // CONFIG SET repl-backlog-size takes effect at the next byte fed.
  if (Backlog* b = state_.backlog()) {
    const uint64_t want = backlog_size(server_.config.values());
    if (b->size() != want) b->resize(want);
  }
  state_.feed(bytes);
  std::vector<uint64_t>& online = online_;
  online.clear();
  for (Link& l : links_) {
    if (l.state == LinkState::kWaitBgsaveEnd || l.state == LinkState::kSendBulk || l.stream_on_ack)
      l.kept.append(bytes);
    else if (l.state == LinkState::kOnline) online.push_back(l.session_id);
  }
  // Delivering may close a client (its output limit), which forgets its
  // link (never feeds again meanwhile). A link being closed (CLIENT KILL)
  // gets nothing more: the replica must ask for these bytes again, as from
  // Redis, which frees it at once.
  for (uint64_t id : online)
    if (Session* s = server_.clients.find(id); s && !s->close_after_reply) s->deliver(bytes);
}

void Primary::attach() {
  if (attached_) return;
  server_.data.effects.attach(this);
  attached_ = true;
}

bool Primary::encodes() {
  // A replica's writes come from its primary, whose bytes it proxies.
  if (state_.is_replica()) {
    proxied_ = true;
    return false;
  }
  // Promoted: the stream's db is whatever our primary last selected.
  if (proxied_) {
    encoder_.reset();
    proxied_ = false;
  }
  return true;
}

void Primary::encode_and_feed(std::span<const EffectRecord> records, bool each) {
  if (!encodes()) return;
  // The buffer is lent out while feed runs, should a delivery come back here.
  std::string out = std::move(encoded_);
  out.clear();
  if (each) encoder_.encode_each(records, out);
  else encoder_.encode(records, out);
  feed(out);
  // A large write's buffer is not held on to.
  if (out.capacity() <= kKeptBuffer) encoded_ = std::move(out);
}

void Primary::append(std::span<const EffectRecord> records) { encode_and_feed(records, false); }

void Primary::append_each(std::span<const EffectRecord> records) { encode_and_feed(records, true); }

void Primary::ack(Session& s, int64_t offset, int64_t now_ms) {
  for (Link& l : links_) {
    if (l.session_id != s.id) continue;
    if (offset > l.ack_offset) l.ack_offset = offset;
    l.ack_time_ms = now_ms;
    if (l.stream_on_ack) {
      // After a diskless sync: the replica loaded the image, the stream
      // since the fork follows.
      l.stream_on_ack = false;
      const std::string kept = std::move(l.kept);
      l.kept.clear();
      s.deliver(kept);
    }
    server_.data.blocking.signal(0, kAckWaitKey);
    return;
  }
}

int64_t Primary::count_acks(int64_t offset) const {
  int64_t n = 0;
  for (const Link& l : links_) n += l.state == LinkState::kOnline && l.ack_offset >= offset;
  return n;
}

void Primary::before_sleep() {
  send_bulks();
  relay();
  if (!getack_wanted_) return;
  getack_wanted_ = false;
  if (!links_.empty() && !state_.is_replica()) feed(kGetAck);
}

bool Primary::bulk_ready() const {
  for (const Link& l : links_) {
    if (l.state != LinkState::kSendBulk) continue;
    if (const Session* s = session(l); s && s->output_buffer_bytes() < kBulkChunk) return true;
  }
  return false;
}

void Primary::cron(int64_t now_ms, bool ping) {
  ++cron_ticks_;
  const config::Values& cfg = server_.config.values();
  if (ping && !links_.empty() && !state_.is_replica() &&
      cron_ticks_ % static_cast<uint64_t>(cfg.repl_ping_replica_period) == 0)
    feed(kPing);
  std::vector<uint64_t> timed_out;
  std::vector<uint64_t> waiting;
  for (const Link& l : links_) {
    if (l.state == LinkState::kOnline) {
      if (!l.pre_psync && now_ms / 1000 - l.ack_time_ms / 1000 > cfg.repl_timeout) timed_out.push_back(l.session_id);
    } else if (l.state != LinkState::kSendBulk && !in_socket_batch(l)) {
      waiting.push_back(l.session_id);
    }
  }
  // A newline keeps a link waiting for its snapshot's BGSAVE alive: the
  // replica reads it as nothing before the payload's header (once the
  // payload flows, a newline would be a byte of the snapshot).
  for (uint64_t id : waiting)
    if (Session* s = server_.clients.find(id)) s->deliver("\n");
  for (uint64_t id : timed_out) {
    if (Session* s = server_.clients.find(id)) s->close_soon();
    drop(id, "Disconnecting timedout replica (streaming sync)");
  }
  diskless_cron(now_ms);
  start_bgsave_for_links();
  free_idle_backlog(now_ms);
}

void Primary::free_idle_backlog(int64_t now_ms) {
  const int64_t ttl = server_.config.values().repl_backlog_ttl;
  if (!links_.empty() || ttl == 0 || !state_.backlog_active() || state_.is_replica()) return;
  // Whole seconds, as Redis's unixtime - repl_no_slaves_since.
  if (now_ms / 1000 - no_replicas_since_ms_ / 1000 <= ttl) return;
  state_.change_replid();
  state_.clear_replid2();
  state_.free_backlog();
  // Nothing is streamed until a replica creates the backlog again (which
  // attaches this sink anew, and its full sync selects a db afresh).
  if (attached_) server_.data.effects.detach(this);
  attached_ = false;
  encoder_.reset();
  log(LogLevel::kNotice,
      "Replication backlog freed after " + std::to_string(ttl) + " seconds without connected replicas.");
}

void Primary::erase_link(std::vector<Link>::iterator it) {
  if (it->rdb_fd >= 0) ::close(it->rdb_fd);
  links_.erase(it);
  // Redis's freeClient: the last replica gone starts the backlog's time to live.
  if (links_.empty()) no_replicas_since_ms_ = server_.clock.now_ms();
  batch_left();
}

void Primary::drop(uint64_t session_id, const std::string& why) {
  auto it = std::find_if(links_.begin(), links_.end(), [&](const Link& l) { return l.session_id == session_id; });
  if (it == links_.end()) return;
  if (Session* s = server_.clients.find(session_id)) log(LogLevel::kWarning, why + ": " + s->peer_address());
  erase_link(it);
}

void Primary::disconnect_replicas() {
  for (const Link& l : links_)
    if (Session* s = session(l)) s->close_soon();
}

void Primary::forget(const Session& s) {
  handshakes_.erase(s.id);
  auto it = std::find_if(links_.begin(), links_.end(), [&](const Link& l) { return l.session_id == s.id; });
  if (it == links_.end()) return;
  log(LogLevel::kNotice, "Connection with replica " + s.peer_address() + " lost.");
  erase_link(it);
}

std::vector<ReplicaView> Primary::views(int64_t now_ms) const {
  std::vector<ReplicaView> out;
  for (const Link& l : links_) {
    const Session* s = session(l);
    if (s == nullptr) continue;
    auto h = handshakes_.find(l.session_id);
    ReplicaView v;
    v.ip = h != handshakes_.end() && !h->second.ip.empty() ? h->second.ip : host_of(s->peer_address());
    v.port = h != handshakes_.end() ? h->second.port : 0;
    v.state = l.state == LinkState::kOnline ? "online" : l.state == LinkState::kSendBulk ? "send_bulk" : "wait_bgsave";
    v.ack_offset = l.ack_offset;
    v.lag_s = l.state == LinkState::kOnline ? now_ms / 1000 - l.ack_time_ms / 1000 : 0;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace lawnkv::replication
