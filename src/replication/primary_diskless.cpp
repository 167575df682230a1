// Primary's diskless full sync (repl-diskless-sync yes): gathering the
// batch, the child writing into a pipe, the relay to the batch's sockets
// and the mark at the end (primary.hpp, diskless_sync.hpp).

#include <algorithm>

#include "replication/primary.hpp"

namespace lawnkv::replication {

Primary::Link* Primary::find(uint64_t session_id) {
  auto it = std::find_if(links_.begin(), links_.end(), [&](const Link& l) { return l.session_id == session_id; });
  return it == links_.end() ? nullptr : &*it;
}

bool Primary::diskless_target() const {
  if (!server_.config.values().repl_diskless_sync) return false;
  // One replica that reads only the $<len> form sends the batch by disk,
  // as Redis's mincapa.
  for (const Link& l : links_) {
    if (l.state != LinkState::kWaitBgsaveStart) continue;
    auto h = handshakes_.find(l.session_id);
    if (l.pre_psync || h == handshakes_.end() || !h->second.capa_eof) return false;
  }
  return true;
}

bool Primary::diskless_gathered() const {
  const config::Values& cfg = server_.config.values();
  int64_t waiting = 0;
  int64_t longest_ms = 0;
  const int64_t now = server_.clock.now_ms();
  for (const Link& l : links_) {
    if (l.state != LinkState::kWaitBgsaveStart) continue;
    ++waiting;
    longest_ms = std::max(longest_ms, now - l.wait_since_ms);
  }
  if (cfg.repl_diskless_sync_max_replicas > 0 && waiting >= cfg.repl_diskless_sync_max_replicas) return true;
  return longest_ms / 1000 >= cfg.repl_diskless_sync_delay;
}

bool Primary::start_diskless() {
  log(LogLevel::kNotice, "Starting BGSAVE for SYNC with target: replicas sockets");
  auto sync = std::make_unique<DisklessSync>(pipe_watcher_);
  if (std::string error = sync->start(server_); !error.empty()) {
    log(LogLevel::kWarning, error);
    refuse_waiting();
    return false;
  }
  diskless_ = std::move(sync);
  diskless_child_ = true;
  bgsave_for_links_ = true;
  // The new replicas' images do not say which db the stream is in.
  encoder_.reset();
  const std::string header = diskless_->header();
  std::vector<uint64_t> batch;
  for (Link& l : links_) {
    if (l.state != LinkState::kWaitBgsaveStart) continue;
    l.state = LinkState::kWaitBgsaveEnd;
    l.socket = true;
    l.initial_offset = state_.master_repl_offset();
    l.kept.clear();
    batch.push_back(l.session_id);
  }
  // Delivering may close a client, which forgets its link.
  for (uint64_t id : batch) {
    Link* l = find(id);
    Session* s = server_.clients.find(id);
    if (l == nullptr || s == nullptr) continue;
    s->deliver("+FULLRESYNC " + state_.replid() + " " + std::to_string(l->initial_offset) + "\r\n" + header);
  }
  return true;
}

int Primary::relay_fd() const {
  if (!diskless_ || !diskless_->pipe_open()) return -1;
  for (const Link& l : links_) {
    if (!in_socket_batch(l)) continue;
    const Session* s = session(l);
    if (s && s->output_buffer_bytes() >= kBulkChunk) return -1;  // its socket drains first
  }
  return diskless_->fd();
}

void Primary::relay() {
  std::string chunk;
  size_t budget = kRelayTurnBytes;
  while (budget > 0 && diskless_ && diskless_->pipe_open()) {
    std::vector<uint64_t> batch;
    for (Link& l : links_) {
      if (!in_socket_batch(l)) continue;
      const Session* s = session(l);
      // The slowest socket sets the pace: nothing is read while one of
      // them holds a chunk not yet sent.
      if (s && s->output_buffer_bytes() >= kBulkChunk) {
        if (l.stalled_since_ms == 0) l.stalled_since_ms = server_.clock.now_ms();
        return;
      }
      l.stalled_since_ms = 0;
      batch.push_back(l.session_id);
    }
    switch (diskless_->read(&chunk, std::min(budget, kRelayRead))) {
      case DisklessSync::Read::kData:
        budget -= chunk.size();
        for (uint64_t id : batch)
          if (Session* s = server_.clients.find(id); s && find(id)) s->deliver(chunk);
        continue;
      case DisklessSync::Read::kEmpty:
        return;
      case DisklessSync::Read::kEof:
        // The child closed its end: done once it is reaped well.
        if (diskless_->child_exited()) finish_diskless(diskless_->child_ok());
        return;
      case DisklessSync::Read::kError:
        log(LogLevel::kWarning, "Diskless rdb transfer: reading the child's pipe failed");
        finish_diskless(false);
        return;
    }
  }
}

void Primary::finish_diskless(bool ok) {
  if (!diskless_) return;
  const std::string mark = diskless_->mark();
  const uint64_t bytes = diskless_->relayed();
  diskless_.reset();
  std::vector<uint64_t> batch;
  for (const Link& l : links_)
    if (in_socket_batch(l)) batch.push_back(l.session_id);
  for (uint64_t id : batch) {
    Link* l = find(id);
    Session* s = server_.clients.find(id);
    if (l == nullptr || s == nullptr) continue;
    if (!ok) {
      drop(id, "Diskless rdb transfer failed, closing the replica's link");
      s->close_soon();
      continue;
    }
    // Online, but the stream waits for the replica's first ACK: it loads
    // the image first, and the mark must be the last bytes it reads.
    l->state = LinkState::kOnline;
    l->socket = false;
    l->stream_on_ack = true;
    l->ack_time_ms = server_.clock.now_ms();
    log(LogLevel::kNotice, "Streamed RDB transfer with replica " + s->peer_address() + " succeeded (socket, " +
                               std::to_string(bytes) + " bytes). Waiting for REPLCONF ACK from replica to enable "
                               "streaming");
    s->deliver(mark);
  }
  // Links that came meanwhile wait for the next child.
  start_bgsave_for_links();
}

void Primary::diskless_cron(int64_t now_ms) {
  const int64_t timeout_ms = server_.config.values().repl_timeout * 1000;
  std::vector<uint64_t> stalled;
  for (Link& l : links_) {
    if (!in_socket_batch(l)) continue;
    const Session* s = session(l);
    if (s == nullptr || s->output_buffer_bytes() < kBulkChunk) {
      l.stalled_since_ms = 0;
    } else if (l.stalled_since_ms == 0) {
      l.stalled_since_ms = now_ms;
    } else if (now_ms - l.stalled_since_ms > timeout_ms) {
      stalled.push_back(l.session_id);
    }
  }
  // Logged and dropped first: a threaded connection may close (and forget
  // its link) within close_soon.
  for (uint64_t id : stalled) {
    drop(id, "Disconnecting timedout replica (full sync)");
    if (Session* s = server_.clients.find(id)) s->close_soon();
  }
}

void Primary::batch_left() {
  if (!diskless_ || !diskless_->pipe_open()) return;
  for (const Link& l : links_)
    if (in_socket_batch(l)) return;
  log(LogLevel::kWarning, "Diskless rdb transfer, last replica dropped, killing fork child.");
  // The child's next write fails and it ends (unless it already has).
  diskless_->close();
  if (diskless_->child_exited()) diskless_.reset();
}

}  // namespace lawnkv::replication
