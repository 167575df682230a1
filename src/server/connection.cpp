#include "server/connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/dispatch.hpp"
#include "pubsub/hub.hpp"
#include "resp/peek.hpp"
#include "server/client_limits.hpp"
#include "server/host.hpp"

namespace lawnkv::server {

namespace {

constexpr size_t kReadChunk = 16 * 1024;
// Output buffers that grew past this are released once empty.
constexpr size_t kKeepOutputBytes = static_cast<size_t>(kPauseOutputBytes);

}  // namespace

std::string sockaddr_text(const sockaddr_storage& sa) {
  char ip[INET6_ADDRSTRLEN] = {0};
  if (sa.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&sa);
    uv_ip6_name(a, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(a->sin6_port));
  }
  const auto* a = reinterpret_cast<const sockaddr_in*>(&sa);
  uv_ip4_name(a, ip, sizeof(ip));
  return std::string(ip) + ":" + std::to_string(ntohs(a->sin_port));
}

Connection::Connection(ServerHost& server, uint64_t session_id) : server_(server) {
  id = session_id;
  uv_tcp_init(server.loop(), &tcp_);
  tcp_.data = this;
  write_req_.data = this;
}

Connection::~Connection() = default;

void Connection::start() {
  ServerState& st = server_.state();
  created_ms = last_interaction_ms = st.clock.now_ms();
  reply_buffer.start(created_ms);
  // Redis's authRequired: the default user needs no password and is on.
  user = &st.acl.default_user();
  authenticated = user->nopass() && user->enabled();
  sockaddr_storage sa{};
  int len = sizeof(sa);
  if (uv_tcp_getpeername(&tcp_, reinterpret_cast<sockaddr*>(&sa), &len) == 0) peer_ = sockaddr_text(sa);
  len = sizeof(sa);
  if (uv_tcp_getsockname(&tcp_, reinterpret_cast<sockaddr*>(&sa), &len) == 0) local_ = sockaddr_text(sa);
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&tcp_), &fd) == 0) fd_ = fd;
  uv_tcp_nodelay(&tcp_, 1);
  const int64_t keepalive = st.config.values().tcp_keepalive;
  if (keepalive > 0) uv_tcp_keepalive(&tcp_, 1, static_cast<unsigned>(keepalive));
  if (server_.io_threaded() && fd_ >= 0 && !tls_) {
    // The stream never reads or writes: its watcher stays idle, and the
    // thread alone watches the socket, with the read side.
    io_ = new ThreadedIo;
    io_->thread = server_.io_threads().assign();
    io_->attached = true;
    io_->input_held = true;
    // io-threads-do-reads no (Redis 7.0's default): the thread writes only,
    // and the loop reads the socket as with one thread.
    io_->reads = io_reads = st.config.values().io_threads_do_reads;
    server_.io_threads().post(io_->thread, this, IoMessage::kAdd);
    if (io_->reads) {
      reading_ = true;
      release_input();
      return;
    }
  }
  resume_reading();
}

size_t Connection::read_room() const {
  // A pending big bulk tells how much it still needs: read it in as few
  // calls as possible instead of doubling through small reads.
  const size_t wanted = parser_.bytes_wanted();
  size_t need = kReadChunk;
  if (wanted > in_.size() && wanted - in_.size() > need) need = wanted - in_.size();
  return need;
}

void Connection::on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
  auto* c = static_cast<Connection*>(h->data);
  if (c->tls_) {
    *buf = uv_buf_init(c->tls_->read_room(), static_cast<unsigned>(TlsSession::kReadRoom));
    return;
  }
  const size_t need = c->read_room();
  c->in_.reserve_free(need);
  c->note_memory();
  // No more than that per read, as Redis: the query buffer limit is checked
  // after each read, and small arguments leave the buffer as they are parsed.
  *buf = uv_buf_init(c->in_.tail(), static_cast<unsigned>(need));
}

void Connection::on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t*) {
  auto* c = static_cast<Connection*>(s->data);
  if (nread == 0) return;  // nothing read (EAGAIN)
  if (c->tls_) {
    c->handle_tls_read(nread);
    return;
  }
  c->in_.commit(nread > 0 ? static_cast<size_t>(nread) : 0);
  c->handle_read(nread);
}

void Connection::handle_read(ssize_t nread) {
  const LoopTrace::Span span(server_.loop_trace(), LoopTrace::kRead);
  ++server_.state().facts.stats.total_reads_processed;  // as Redis, the read that finds EOF too
  if (nread < 0) {
    close();
    return;
  }
  server_.evict_clients();  // this one, maybe: its buffer grew
  if (closing_) return;
  // Threaded: the time the loop took for this batch of the threads'
  // messages (as Redis's lastinteraction is its cached server.unixtime).
  last_interaction_ms = thread_reads() ? server_.io_batch_ms() : server_.state().clock.now_ms();
  server_.state().facts.stats.total_net_input_bytes += static_cast<uint64_t>(nread);
  // A threaded read checked the limit before it parsed (parsing moves the
  // count of parsed bytes).
  if (thread_reads() ? io_->over_limit : query_buffer_over_limit()) {
    ++server_.state().facts.stats.client_query_buffer_limit_disconnections;
    server_.log().log(LogLevel::kWarning, "Closing client that reached max query buffer length: id=" +
                                              std::to_string(id) + " addr=" + peer_);
    close();
    return;
  }
  process_input();
}

void Connection::read_now() {
  // A threaded connection's thread reads it, busy script or not.
  if (closing_ || !reading_ || processing_ || fd_ < 0 || thread_reads()) return;
  uv_buf_t buf;
  on_alloc(reinterpret_cast<uv_handle_t*>(&tcp_), 0, &buf);
  ssize_t n;
  do {
    n = ::read(fd_, buf.base, buf.len);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  const ssize_t nread = n > 0 ? n : n == 0 ? static_cast<ssize_t>(UV_EOF) : static_cast<ssize_t>(-errno);
  on_read(stream(), nread, &buf);
}

bool Connection::query_buffer_over_limit() const {
  // The complete arguments of the pending request do not count: Redis has
  // moved them out of its buffer.
  const size_t unparsed = in_.size() - parser_.parsed_bytes();
  return static_cast<int64_t>(unparsed) > server_.state().config.values().client_query_buffer_limit;
}

size_t Connection::prefetch_keys(std::string_view pending) {
  std::string_view keys[store::Db::kPrefetchKeys];
  size_t n = 0;
  size_t pos = 0;
  while (n < store::Db::kPrefetchKeys) {
    std::string_view key;
    const size_t len = resp::peek_request(pending.substr(pos), &key);
    if (len == 0) break;
    pos += len;
    keys[n++] = key;
  }
  // One request alone gains nothing: its lookup comes next anyway.
  if (n > 1) server_.state().data.keyspace.db(db).prefetch(keys, n);
  return pos;
}

void Connection::process_input() {
  // A busy script under this very call (Redis's protectClient): the
  // arguments being run are views into in_.
  if (processing_) return;
  hold_input();
  processing_ = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{processing_};
  ServerState& st = server_.state();
  const resp::Limits limits = server_.limits();
  size_t start = 0;
  size_t prefetched_to = 0;
  // The first request, parsed by an I/O thread from these very bytes (and
  // its command's row looked up).
  bool parsed = io_ != nullptr && io_->parsed;
  const CommandSpec* found = parsed ? io_->found : nullptr;
  if (parsed) {
    io_->parsed = false;
    // One request alone (one request in flight, the common case): nothing
    // to prefetch, and no need to look for more.
    if (io_->status == resp::Status::kRequest && parser_.consumed() == in_.size()) prefetched_to = in_.size();
  }
  while (!closing_ && !close_after_reply && !blocked && !postponed && !st.shutdown_requested) {
    // Every request read has run (nothing to parse; a parse would say so).
    if (start == in_.size() && !parsed) break;
    if (start >= prefetched_to) prefetched_to = start + std::max<size_t>(1, prefetch_keys(in_.view().substr(start)));
    const std::string_view pending = in_.view().substr(start);
    const resp::Status status = parsed ? io_->status : parser_.parse(pending, limits, authenticated);
    const CommandSpec* spec = parsed ? found : nullptr;
    parsed = false;
    if (status == resp::Status::kPending) break;
    if (status == resp::Status::kError) {
      resp::Writer(out_, protocol).error(parser_.error());
      server_.log().log(LogLevel::kVerbose, "Protocol error from client: id=" + std::to_string(id));
      close_after_reply = true;
      break;
    }
    start += parser_.consumed();
    const auto& argv = parser_.argv();
    if (argv.empty()) continue;
    const int64_t start_ns = Clock::steady_ns();
    const int64_t now = st.clock.us_at(server_.command_wall_ns(start_ns)) / 1000;
    last_interaction_ms = now;
    resp::Writer reply(out_, protocol);
    dispatch(st, *this, reply, argv, now, start_ns, spec);
    if (postponed) {
      // CLIENT PAUSE holds it: its bytes stay to be parsed and run again.
      start -= parser_.consumed();
      break;
    }
    const config::OutputLimit& limit = output_limit();
    if (output_limited(limit) && close_if_output_over_limit(now, false)) return;
    if (static_cast<int64_t>(output_buffer_bytes()) > pause_output_bytes(limit)) {
      pause_reading();
      break;
    }
  }
  in_.consume(start);
  note_memory();
  // The replies leave when the loop has read every client that was ready,
  // before it waits again (Server::on_prepare), as Redis writes them before
  // it sleeps: a write wakes the client, which on a busy machine takes the
  // CPU from the server in the middle of the batch. Records for the
  // append-only file pending are written there first (and, under
  // appendfsync always, synced once for every client of the iteration).
  if (!queued_for_flush_) {
    queued_for_flush_ = true;
    server_.queue_flush(this);
  }
}

void Connection::flush() {
  if (closing_) return;
  if (io_) {
    flush_threaded();
    return;
  }
  // What goes on the wire: the replies, or (TLS) their ciphertext and any
  // handshake records pending, sealed only when no write is in flight (the
  // records leave in order, and replies that wait count as out_).
  const size_t replies = write_in_flight_ ? 0 : out_.size();
  std::string& wire = write_in_flight_ ? out_ : tls_ ? tls_->seal(out_) : out_;
  if (!write_in_flight_ && !wire.empty()) {
    uv_buf_t b = uv_buf_init(wire.data(), static_cast<unsigned>(wire.size()));
    ++server_.state().facts.stats.total_writes_processed;
    const int n = uv_try_write(stream(), &b, 1);
    if (n < 0 && n != UV_EAGAIN) {
      close();
      return;
    }
    const size_t written = n > 0 ? static_cast<size_t>(n) : 0;
    server_.state().facts.stats.total_net_output_bytes += written;
    note_reply_bytes(replies, written == wire.size(), server_.state().clock.now_ms());
    if (written > 0) last_interaction_ms = server_.state().clock.now_ms();
    if (written == wire.size()) {
      wire.clear();
      if (wire.capacity() > kKeepOutputBytes) wire.shrink_to_fit();
    } else {
      // The rest goes out asynchronously from writing_; replies made
      // meanwhile collect in the (swapped-in, empty) out_.
      writing_.swap(wire);
      wire.clear();
      writing_offset_ = written;
      uv_buf_t rest = uv_buf_init(writing_.data() + written, static_cast<unsigned>(writing_.size() - written));
      write_in_flight_ = true;
      uv_write(&write_req_, stream(), &rest, 1, on_write);
    }
  }
  note_memory();
  if (write_in_flight_) return;
  if (close_after_reply) {
    close();
    return;
  }
  if (!reading_) {
    // Output has drained: serve the requests left unread while paused.
    resume_reading();
    if (in_.size() > 0) process_input();
  }
}

void Connection::on_write(uv_write_t* req, int status) {
  auto* c = static_cast<Connection*>(req->data);
  c->write_in_flight_ = false;
  if (status < 0) {
    c->writing_.clear();
    c->writing_offset_ = 0;
    c->close();
    return;
  }
  c->server_.state().facts.stats.total_net_output_bytes += c->writing_.size() - c->writing_offset_;
  c->reply_buffer.sent();
  c->last_interaction_ms = c->server_.state().clock.now_ms();
  c->writing_.clear();
  c->writing_offset_ = 0;
  if (c->writing_.capacity() > kKeepOutputBytes) c->writing_.shrink_to_fit();
  c->flush();
}

void Connection::note_reply_bytes(size_t bytes, bool all_sent, int64_t now_ms) {
  const ServerState& st = server_.state();
  reply_buffer.add(now_ms, 1000 / std::max<int64_t>(1, st.config.values().hz), bytes, all_sent);
}

void Connection::deliver(std::string_view frame) {
  if (closing_) return;
  out_.append(frame);
  note_memory();
  if (close_if_output_over_limit(server_.state().clock.now_ms(), false)) return;
  if (!queued_for_flush_) {
    queued_for_flush_ = true;
    server_.queue_flush(this);
  }
}

const config::OutputLimit& Connection::output_limit() const {
  const auto& cfg = server_.state().config.values();
  if (replica) return cfg.output_limit_replica;
  return subscribed() ? cfg.output_limit_pubsub : cfg.output_limit_normal;
}

bool Connection::output_over_limit(int64_t now_ms) {
  const int64_t used = static_cast<int64_t>(output_buffer_bytes());
  if (!authenticated) return used > kUnauthOutputBytes;
  const bool was_over_soft = over_soft_limit();
  const bool reached = output_limit_reached(used, output_limit(), now_ms, &soft_limit_since_ms_);
  // Its output may stop growing (paused, or no more messages): the cron
  // checks it again until the soft seconds pass or it drains.
  if (!was_over_soft && over_soft_limit()) server_.watch_soft_limit(id);
  return reached;
}

bool Connection::close_if_output_over_limit(int64_t now_ms, bool from_cron) {
  if (closing_ || !output_over_limit(now_ms)) return false;
  ++server_.state().facts.stats.client_output_buffer_limit_disconnections;
  const std::string who = "Client id=" + std::to_string(id) + " addr=" + peer_;
  server_.log().log(LogLevel::kWarning, who + (from_cron ? " closed" : " scheduled to be closed ASAP") +
                                            " for overcoming of output buffer limits.");
  out_.clear();
  close();
  return true;
}

void Connection::close_soon() {
  // Killed by another client: a write that waits for room is not waited
  // for (Redis frees such a client at once).
  if (io_ && !processing_ && write_done_quietly() && take_write() != 0) {
    close();
    return;
  }
  if (io_ && io_->write_posted && !processing_) {
    close();
    return;
  }
  close_after_reply = true;
  if (!queued_for_flush_) {
    queued_for_flush_ = true;
    server_.queue_flush(this);
  }
}

void Connection::resume() {
  if (closing_) return;
  hold_input();
  if (in_.size() > 0) process_input();
}

void Connection::pause_reading() {
  if (!reading_) return;
  reading_ = false;
  // Threaded: the main thread keeps the read side until it resumes.
  if (!thread_reads()) uv_read_stop(stream());
}

void Connection::resume_reading() {
  if (reading_ || closing_) return;
  reading_ = true;
  // Threaded: the read side goes back to the thread at the next flush.
  if (!thread_reads()) uv_read_start(stream(), on_alloc, on_read);
}

void Connection::resize_query_buffer(int64_t now_ms) {
  constexpr int64_t kIdleSeconds = 2;
  const bool idle = unix_seconds(now_ms) - unix_seconds(last_interaction_ms) > kIdleSeconds;
  if (io_ && !io_->input_held) {
    // Taken only if the thread is not reading it, and given back at once.
    uint8_t idle_side = kThreadIdle;
    if (!input_owner.compare_exchange_strong(idle_side, kMain, std::memory_order_acquire)) return;
    io_->input_held = true;
    in_.resize_from_cron(idle, parser_.bytes_wanted());
    release_input();
    server_.io_threads().post(io_->thread, this, IoMessage::kResume);
    note_memory();
    return;
  }
  in_.resize_from_cron(idle, parser_.bytes_wanted());
  note_memory();
}

void Connection::note_memory() {
  const bool holds = input_capacity() > 0 && !closing_;
  if (holds != holds_query_buffer_) {
    holds_query_buffer_ = holds;
    server_.query_buffer_held(holds);
  }
  const size_t bytes = closing_ ? 0 : memory_bytes();
  server_.client_memory_changed(counted_memory_, bytes);
  counted_memory_ = bytes;
}

void Connection::close() {
  if (closing_) return;
  closing_ = true;
  note_memory();
  server_.connection_closed(this);
  ServerState& st = server_.state();
  st.data.keyspace.watches().unwatch_all(watcher);
  st.data.hub.unsubscribe_all(*this);
  st.data.tracking.disable(*this);
  if (blocked) st.data.blocking.forget(*this);
  if (postponed) st.pause.forget(id);
  if (io_ && io_->attached) {
    // The socket closes once its thread has let it go (after_close); the
    // loop reads it no more meanwhile.
    if (!io_->reads) uv_read_stop(stream());
    server_.io_threads().post(io_->thread, this, IoMessage::kClose);
    return;
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_close);
}

void Connection::on_close(uv_handle_t* h) {
  auto* c = static_cast<Connection*>(h->data);
  if (c->queued_for_flush_) c->server_.forget_flush(c);
  delete c->io_;
  delete c;
}

}  // namespace lawnkv::server
