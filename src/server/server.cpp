#include "server/server.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/address.hpp"
#include "core/allocator.hpp"
#include "core/arena.hpp"
#include "core/page_allocator.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"
#include "replication/replication.hpp"
#include "engine/client_pause.hpp"
#include "engine/dispatch.hpp"
#include "commands/client_list.hpp"
#include "server/client_eviction.hpp"
#include "server/connection.hpp"
#include "server/replica_link.hpp"

namespace lawnkv::server {

namespace {

constexpr uint64_t kSnapshotTickMs = 100;
constexpr uint64_t kReplTickMs = 1000;  // Redis's replicationCron: once a second
constexpr std::string_view kMaxClients = "-ERR max number of clients reached\r\n";
constexpr std::string_view kProtectedMode =
    "-DENIED lawnkv is running in protected mode because protected mode is enabled and no password "
    "is set for the default user. In this mode connections are only accepted from the loopback "
    "interface. To accept connections from other hosts, set a password (requirepass), or disable "
    "protected mode with 'CONFIG SET protected-mode no' from the loopback interface, or restart "
    "the server with '--protected-mode no'.\r\n";

// The parameters whose CONFIG SET rebuilds the TLS context (applyTlsCfg).
constexpr std::string_view kTlsOptions[] = {
    "tls-cert-file",         "tls-key-file",        "tls-key-file-pass",  "tls-client-cert-file",
    "tls-client-key-file",   "tls-client-key-file-pass", "tls-dh-params-file", "tls-ca-cert-file",
    "tls-ca-cert-dir",       "tls-protocols",       "tls-ciphers",        "tls-ciphersuites",
    "tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size",
    "tls-session-cache-timeout", "tls-replication", "tls-cluster"};
constexpr std::string_view kTlsConfigError = "Unable to update TLS configuration. Check server logs.";

}  // namespace

Server::Server(ServerState& state, Logger& log) : ServerHost(state, log) {
  uv_loop_init(&loop_);
  // Time blocked in poll, so meter_iteration() can leave it out.
  uv_loop_configure(&loop_, UV_METRICS_IDLE_TIME);
  loop_.data = this;
  uv_prepare_init(&loop_, &prepare_);
  prepare_.data = this;
  uv_check_init(&loop_, &check_);
  check_.data = this;
  uv_idle_init(&loop_, &evict_idle_);
  evict_idle_.data = this;
  uv_idle_init(&loop_, &release_idle_);
  release_idle_.data = this;
  uv_idle_init(&loop_, &repl_idle_);
  uv_signal_init(&loop_, &sigterm_);
  uv_signal_init(&loop_, &sigint_);
  sigterm_.data = this;
  sigint_.data = this;
  uv_signal_init(&loop_, &sigchld_);
  sigchld_.data = this;
  uv_timer_init(&loop_, &snapshot_timer_);
  snapshot_timer_.data = this;
  uv_timer_init(&loop_, &repl_timer_);
  repl_timer_.data = this;
  state_.snapshots().set_logger(&log_);
  state_.aof().set_logger(&log_);
  state_.log = &log_;
  expiry_ = std::make_unique<ExpiryCycle>(&loop_, state_, loop_trace_, [this] { flush_iteration(); },
                                          [this] { flush_replicas(); });
  clients_cron_ = std::make_unique<ClientsCron>(&loop_, *this);
  aging_cron_ = std::make_unique<AgingCron>(&loop_, state_, loop_trace_);
  replica_link_ = std::make_unique<ReplicaLink>(&loop_, state_, tls_);
  pipe_watch_ = std::make_unique<PipeWatch>(&loop_, [this] { state_.replication().primary().relay(); });
  state_.replication().primary().set_pipe_watcher(pipe_watch_.get());
  state_.busy_loop = this;
}

Server::~Server() {
  stop_io_threads();
  state_.busy_loop = nullptr;
  state_.config.set_live_apply("bind", nullptr);
  state_.config.set_live_apply("port", nullptr);
  state_.config.set_live_apply("tls-port", nullptr);
  for (std::string_view name : kTlsOptions) state_.config.set_live_apply(name, nullptr);
  replica_link_->close_handles();
  state_.replication().primary().set_pipe_watcher(nullptr);
  pipe_watch_->unwatch();
  uv_walk(&loop_, [](uv_handle_t* h, void*) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  }, nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
}

bool Server::listen() {
  const config::Values& cfg = state_.config.values();
  if (cfg.port != 0 && !listen_on(cfg, cfg.port, false, listeners_)) return false;
  if (cfg.tls_port != 0 && !listen_on(cfg, cfg.tls_port, true, tls_listeners_)) {
    log_.log(LogLevel::kWarning, "Failed listening on port " + std::to_string(cfg.tls_port) + " (TLS), aborting.");
    return false;
  }
  if (listeners_.empty() && tls_listeners_.empty()) {
    log_.log(LogLevel::kWarning, "Configured to not listen anywhere, exiting.");
    return false;
  }
  note_listening_port(cfg);
  // CONFIG SET bind / port rebind, as Redis's applyBind and updatePort.
  state_.config.set_live_apply("bind", [this](const config::Values& v) {
    const bool ok = relisten(v, false) && relisten(v, true);
    return ok ? std::string() : std::string("Failed to bind to specified addresses.");
  });
  state_.config.set_live_apply("port", [this](const config::Values& v) {
    return relisten(v, false) ? std::string() : std::string("Unable to listen on this port. Check server logs.");
  });
  // tls-port: the context first, if TLS was off (Redis's applyTLSPort).
  state_.config.set_live_apply("tls-port", [this](const config::Values& v) {
    if (!tls_.configured() && !tls_.configure(v, log_)) return std::string(kTlsConfigError);
    return relisten(v, true) ? std::string() : std::string("Unable to listen on this port. Check server logs.");
  });
  for (std::string_view name : kTlsOptions)
    state_.config.set_live_apply(name, [this](const config::Values& v) { return apply_tls(v); });
  return true;
}

std::string Server::apply_tls(const config::Values& cfg) {
  if (cfg.tls_port == 0 && !cfg.tls_replication && !cfg.tls_cluster) return {};
  return tls_.configure(cfg, log_) ? std::string() : std::string(kTlsConfigError);
}

void Server::note_listening_port(const config::Values& cfg) {
  state_.facts.listening_port = static_cast<int>(cfg.port != 0 ? cfg.port : cfg.tls_port);
}

bool Server::listen_on(const config::Values& cfg, int64_t port, bool tls, Listeners& into) {
  // No address: every one, as Redis's listenToPort.
  const std::vector<std::string> every_address{"*", "-::*"};
  for (std::string addr : cfg.bind.empty() ? every_address : cfg.bind) {
    const bool optional = !addr.empty() && addr[0] == '-';
    if (optional) addr.erase(0, 1);
    if (addr == "*") addr = "0.0.0.0";
    if (addr == "::*") addr = "::";
    sockaddr_storage sa{};
    const bool v6 = addr.find(':') != std::string::npos;
    int rc = v6 ? uv_ip6_addr(addr.c_str(), static_cast<int>(port), reinterpret_cast<sockaddr_in6*>(&sa))
                : uv_ip4_addr(addr.c_str(), static_cast<int>(port), reinterpret_cast<sockaddr_in*>(&sa));
    auto tcp = std::make_unique<uv_tcp_t>();
    uv_tcp_init(&loop_, tcp.get());
    tcp->data = this;
    if (rc == 0) rc = uv_tcp_bind(tcp.get(), reinterpret_cast<sockaddr*>(&sa), v6 ? UV_TCP_IPV6ONLY : 0);
    if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp.get()),
                                static_cast<int>(cfg.tcp_backlog), tls ? on_tls_connection : on_connection);
    if (rc != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(tcp.release()),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
      const std::string msg = "Could not create server TCP listening socket " + addr + ":" +
                              std::to_string(port) + ": " + uv_strerror(rc);
      if (optional) {
        log_.log(LogLevel::kVerbose, msg);
        continue;
      }
      log_.log(LogLevel::kWarning, msg);
      close_listeners(into);
      return false;
    }
    into.push_back(std::move(tcp));
  }
  if (into.empty()) {
    log_.log(LogLevel::kWarning, "Failed listening on any address");
    return false;
  }
  return true;
}

bool Server::relisten(const config::Values& cfg, bool tls) {
  Listeners& listeners = tls ? tls_listeners_ : listeners_;
  close_listeners(listeners);
  if (stopping_) return true;
  note_listening_port(cfg);
  // Port 0: no listener of that kind (Redis's changeListenPort).
  const int64_t port = tls ? cfg.tls_port : cfg.port;
  if (port == 0) return true;
  if (listen_on(cfg, port, tls, listeners)) return true;
  log_.log(LogLevel::kWarning, "Failed to bind");
  return false;
}

void Server::close_listeners(Listeners& listeners) {
  // uv_close closes the socket now (the port is free at once); the handle's
  // memory goes in the callback.
  for (auto& l : listeners)
    uv_close(reinterpret_cast<uv_handle_t*>(l.release()),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  listeners.clear();
}

int Server::run() {
  // Room for maxclients plus listeners and spare descriptors, as redis-server.
  rlimit rl;
  const rlim_t want = static_cast<rlim_t>(state_.config.values().maxclients) + 32;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
    rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  // With appendonly yes the append-only file is the dataset (or, before
  // there is one, the snapshot it starts from).
  if (state_.config.values().appendonly) {
    if (const std::string error = state_.aof().start(state_); !error.empty()) {
      log_.log(LogLevel::kWarning, error);
      log_.log(LogLevel::kWarning, "Fatal error loading the append only file. Exiting.");
      return 1;
    }
  } else {
    const persistence::LoadResult loaded = state_.snapshots().load_at_start(state_);
    if (!loaded.ok()) {
      log_.log(LogLevel::kWarning, loaded.error);
      log_.log(LogLevel::kWarning, "Fatal error loading the DB: " + Snapshots::path(state_.config.values()) +
                                       ". Exiting.");
      return 1;
    }
  }
  // The I/O threads are there before the first client can connect.
  const auto& cfg = state_.config.values();
  // They write the sockets, and read them too with io-threads-do-reads yes
  // (io_threads.hpp).
  if (cfg.io_threads > 1) {
    publish_io_limits();
    io_threads_ = std::make_unique<IoThreads>(static_cast<size_t>(cfg.io_threads - 1), &loop_,
                                              [this](const IoMessage& m) { on_io_message(m); },
                                              [this](const IoThreads::Batch& b) { prefetch_batch(b); });
  }
  // TLS in use: its context before any listener (Redis's initServer).
  if ((cfg.tls_port != 0 || cfg.tls_replication || cfg.tls_cluster) && !tls_.configure(cfg, log_)) {
    log_.log(LogLevel::kWarning, "Failed to configure TLS. Check logs for more info.");
    return 1;
  }
  if (!listen()) return 1;
  uv_prepare_start(&prepare_, on_prepare);
  if (loop_trace_.on()) {
    uv_check_start(&check_, on_check);
    uv_unref(reinterpret_cast<uv_handle_t*>(&check_));
  }
  uv_signal_start(&sigterm_, on_signal, SIGTERM);
  uv_signal_start(&sigint_, on_signal, SIGINT);
  uv_signal_start(&sigchld_, on_child, SIGCHLD);
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigterm_));
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigint_));
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigchld_));
  // REPLICAOF in the config: the link starts once the listening port is known.
  replica_link_->start();
  if (!listeners_.empty()) log_.log(LogLevel::kNotice, "Ready to accept connections tcp");
  if (!tls_listeners_.empty()) log_.log(LogLevel::kNotice, "Ready to accept connections tls");
  uv_run(&loop_, UV_RUN_DEFAULT);
  loop_trace_.write();
  log_.log(LogLevel::kWarning, "lawnkv is now ready to exit, bye bye...");
  return 0;
}

void Server::on_connection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status < 0) {
    self->log_.log(LogLevel::kWarning, std::string("Accepting client connection: ") + uv_strerror(status));
    return;
  }
  self->accept(listener, false);
}

void Server::on_tls_connection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status < 0) {
    self->log_.log(LogLevel::kWarning, std::string("Accepting client connection: ") + uv_strerror(status));
    return;
  }
  self->accept(listener, true);
}

void Server::accept(uv_stream_t* listener, bool tls) {
  const uint64_t id = state_.clients.next_id();
  auto* conn = new Connection(*this, id);
  if (uv_accept(listener, conn->stream()) != 0) {
    conn->close();
    return;
  }
  if (tls) {
    SSL* ssl = tls_.new_ssl(state_.config.values().tls_auth_clients);
    if (ssl == nullptr) {
      log_.log(LogLevel::kWarning, "Error accepting a client connection: " + tls_error_text());
      conn->close();
      return;
    }
    conn->use_tls(ssl);
  }
  admit(conn);
}

void Server::accept_now(uv_tcp_t* listener, bool tls) {
  uv_os_fd_t listen_fd;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(listener), &listen_fd) != 0) return;
  for (;;) {
    // EAGAIN: no more; another error is the loop's own accept's to report.
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    auto* conn = new Connection(*this, state_.clients.next_id());
    if (uv_tcp_open(conn->tcp(), fd) != 0) {
      ::close(fd);
      conn->close();
      return;
    }
    if (tls) {
      SSL* ssl = tls_.new_ssl(state_.config.values().tls_auth_clients);
      if (ssl == nullptr) {
        conn->close();
        continue;
      }
      conn->use_tls(ssl);
    }
    admit(conn);
  }
}

void Server::admit(Connection* conn) {
  conn->start();
  const auto& cfg = state_.config.values();
  // A TLS client refused here is closed without the error: it could only
  // go after the handshake (Redis's write of it fails the same way).
  if (static_cast<int64_t>(state_.clients.size()) >= cfg.maxclients) {
    ++state_.facts.stats.rejected_connections;
    if (conn->tls()) {
      conn->close();
      return;
    }
    conn->out_.assign(kMaxClients);
    conn->close_after_reply = true;
    conn->flush();
    return;
  }
  if (cfg.protected_mode && state_.acl.default_user().nopass() && !is_loopback(conn->peer_address())) {
    if (conn->tls()) {
      conn->close();
      return;
    }
    conn->out_.assign(kProtectedMode);
    conn->close_after_reply = true;
    conn->flush();
    return;
  }
  ++state_.facts.stats.total_connections_received;
  state_.clients.add(*conn);
}

void Server::queue_flush(Connection* conn) {
  conn->flush_slot_ = flush_list_.size();
  flush_list_.push_back(conn);
}

void Server::forget_flush(Connection* conn) {
  if (conn->flush_slot_ < flush_list_.size() && flush_list_[conn->flush_slot_] == conn)
    flush_list_[conn->flush_slot_] = nullptr;
}

void Server::watch_soft_limit(uint64_t id) { clients_cron_->watch_soft_limit(id); }

void Server::connection_closed(Connection* conn) {
  state_.replication().client_closed(*conn);
  state_.clients.remove(*conn);
}

void Server::evict_clients() {
  // maxmemory-clients 0 (the default): no limit, and nothing more to compute
  // after each read.
  if (state_.config.values().maxmemory_clients == 0) return;
  const size_t limit = client_eviction_limit(state_.config.values());
  if (limit == 0 || clients_memory() < limit) return;
  std::vector<EvictionCandidate> candidates;
  for (const auto& [id, s] : state_.clients.all()) {
    // The client whose command is running (a busy script's caller, while
    // the script serves the others) is not a candidate: it stays until its
    // command ends, as Redis defers freeing a protected client.
    // The replica's link to its primary is no Connection (server/replica_link.hpp).
    if (s->master) continue;
    if (!s->no_evict && !s->replica && !static_cast<Connection*>(s)->processing()) candidates.push_back({id, s->memory_bytes()});
  }
  const std::vector<uint64_t> ids = clients_to_evict(std::move(candidates), clients_memory(), limit);
  const int64_t now_ms = state_.clock.now_ms();
  for (uint64_t id : ids) {
    Session* s = state_.clients.find(id);
    if (s == nullptr) continue;
    log_.log(LogLevel::kNotice, "Evicting client: " + client_line(state_, *s, now_ms));
    static_cast<Connection*>(s)->close();  // every registered client is a Connection
    ++state_.facts.stats.evicted_clients;
  }
  if (clients_memory() >= limit) log_.log(LogLevel::kWarning, "Over client maxmemory after evicting all evictable clients");
}

void Server::flush_pending() {
  // A flush can close a connection, never free it (that waits for libuv's
  // close callback, which forgets it here): the list holds pointers. A
  // flush that drains a paused connection's output runs its unread
  // requests, whose replies queue again: they go out before the loop waits
  // too, as nothing might wake it after. (Each round runs requests read
  // before it, so the rounds end.)
  // A connection whose request runs a busy script waits for its end, still
  // queued. Threaded connections hand their replies to their threads,
  // woken once at the end for all of them.
  if (flush_list_.empty() && !io_threads_) return;
  if (!flush_list_.empty()) flush_ms_ = state_.clock.now_ms();
  std::vector<Connection*> batch, running;
  while (!flush_list_.empty()) {
    batch.clear();
    batch.swap(flush_list_);
    for (Connection* conn : batch) {
      if (conn == nullptr) continue;  // freed after it was queued
      if (conn->processing()) {
        running.push_back(conn);
        continue;
      }
      conn->queued_for_flush_ = false;
      conn->flush();
    }
  }
  // The list keeps its capacity from one iteration to the next.
  batch.clear();
  flush_list_.swap(batch);
  for (Connection* conn : running) queue_flush(conn);
  if (io_threads_ && !io_threads_->stopped()) {
    publish_io_limits();
    io_threads_->kick();
  }
}

void Server::flush_replicas() {
  // By index: a flush may queue more (a closed link's), which may move the list.
  for (size_t i = 0; i < flush_list_.size(); ++i) {
    Connection* conn = flush_list_[i];
    // A replica whose reading waits for its output to drain would run its
    // requests once it drains: it waits for the prepare phase.
    if (conn == nullptr || !conn->replica || conn->processing() || !conn->reading_ || conn->threaded()) continue;
    flush_list_[i] = nullptr;
    conn->queued_for_flush_ = false;
    conn->flush();
  }
}

void Server::on_io_message(const IoMessage& m) {
  auto* conn = static_cast<Connection*>(m.client);
  switch (m.kind) {
    case IoMessage::kRead:
      if (stopping_) return;
      ++state_.facts.stats.io_threaded_reads_processed;
      conn->after_read(static_cast<ssize_t>(m.value));
      break;
    case IoMessage::kWritten:
      if (!stopping_) conn->after_write();
      break;
    case IoMessage::kClosed:
      conn->after_close();
      break;
    default:
      break;
  }
}

void Server::prefetch_batch(const IoThreads::Batch& batch) {
  io_batch_ms_ = state_.clock.now_ms();
  std::string_view keys[store::Db::kPrefetchKeys];
  size_t n = 0;
  int db = -1;
  const auto start = [&] {
    // One request alone gains nothing: its lookup comes next anyway.
    if (n > 1) state_.data.keyspace.db(db).prefetch(keys, n);
    n = 0;
  };
  for (const IoMessage& m : batch) {
    if (m.kind != IoMessage::kRead || m.value <= 0) continue;
    auto* conn = static_cast<Connection*>(m.client);
    if (conn->closing() || conn->io_ == nullptr || !conn->io_->parsed || conn->io_->status != resp::Status::kRequest)
      continue;
    const auto& argv = conn->parser_.argv();
    if (argv.size() < 2) continue;
    if (conn->db != db || n == store::Db::kPrefetchKeys) {
      start();
      db = conn->db;
    }
    keys[n++] = argv[1];
  }
  start();
}

void Server::stop_io_threads() {
  if (!io_threads_ || io_threads_->stopped()) return;
  io_threads_->stop();
  io_threads_->drain();  // the kClosed of every socket they were told to let go
  for (const auto& [id, s] : state_.clients.all()) static_cast<Connection*>(s)->detach_io();
}

void Server::serve_while_busy() {
  // Threaded connections: what their threads read meanwhile.
  if (io_threads_ && !io_threads_->stopped()) io_threads_->drain();
  busy_fds_.clear();
  busy_ids_.clear();
  // Listeners first, plain then TLS; a listener whose descriptor cannot be
  // read is polled as -1 (never ready) so the indexes stay in step.
  for (const Listeners* ls : {&listeners_, &tls_listeners_}) {
    for (const auto& l : *ls) {
      uv_os_fd_t fd;
      if (uv_fileno(reinterpret_cast<uv_handle_t*>(l.get()), &fd) != 0) fd = -1;
      busy_fds_.push_back({fd, POLLIN, 0});
    }
  }
  const size_t listeners = busy_fds_.size();
  for (const auto& [id, s] : state_.clients.all()) {
    if (s->master) continue;  // read by the replica link, after the script
    auto* conn = static_cast<Connection*>(s);
    if (conn->reading_ && !conn->closing() && !conn->processing() && conn->fd_ >= 0 && !conn->thread_reads()) {
      busy_fds_.push_back({conn->fd_, POLLIN, 0});
      busy_ids_.push_back(id);
    }
  }
  int ready = ::poll(busy_fds_.data(), busy_fds_.size(), 0);
  for (size_t i = 0; i < busy_fds_.size() && ready > 0 && !state_.shutdown_requested; ++i) {
    if (busy_fds_[i].revents == 0) continue;
    --ready;
    if (i < listeners) {
      const bool tls = i >= listeners_.size();
      accept_now(tls ? tls_listeners_[i - listeners_.size()].get() : listeners_[i].get(), tls);
      continue;
    }
    // Looked up again: what ran before may have closed it.
    if (Session* s = state_.clients.find(busy_ids_[i - listeners])) static_cast<Connection*>(s)->read_now();
  }
  if (state_.shutdown_requested) exit_while_busy();
  // Records of commands that ran before the script, before their replies
  // (the script's own wait for its end, engine/effects.hpp).
  state_.aof().flush();
  flush_pending();
}

void Server::exit_while_busy() {
  log_.log(LogLevel::kWarning, "User requested shutdown...");
  state_.aof().on_shutdown(state_);
  log_.log(LogLevel::kWarning, "lawnkv is now ready to exit, bye bye...");
  std::exit(0);
}

void Server::on_prepare(uv_prepare_t* h) {
  auto* self = static_cast<Server*>(h->data);
  ServerState& st = self->state_;
  const LoopTrace::Span span(self->loop_trace_, LoopTrace::kPrepare);
  self->meter_iteration();
  // CLIENT PAUSE: past its end it ends here, and the clients that waited run
  // their command, in the order they began to wait. While it lasts nothing
  // is served by time (blocked clients, dehydrator elements) or evicted.
  const bool paused = clients_paused(st, st.clock.now_ms());
  for (uint64_t id : st.pause.take_released()) {
    if (Session* s = st.clients.find(id)) {
      s->postponed = false;
      s->resume();
    }
  }
  if (!paused && !st.data.blocking.empty()) serve_blocked(st, st.clock.now_ms());
  self->flush_iteration();
  self->evict_clients();
  if (st.data.eviction.pending() && !paused && !self->stopping_) uv_idle_start(&self->evict_idle_, on_evict_idle);
  if ((arena::release_pending() || page_release_pending()) && !self->stopping_)
    uv_idle_start(&self->release_idle_, on_release_idle);
  st.facts.used_memory_peak = std::max(st.facts.used_memory_peak, allocator::used_bytes());
  if (st.shutdown_requested && !self->stopping_) self->shut_down();
  if (!self->stopping_) {
    self->expiry_->arm();
    self->clients_cron_->arm();
    self->aging_cron_->arm();
    const bool active = uv_is_active(reinterpret_cast<uv_handle_t*>(&self->snapshot_timer_));
    if ((st.snapshots().wants_cron(st) || st.aof().wants_cron()) != active) {
      if (active) uv_timer_stop(&self->snapshot_timer_);
      else uv_timer_start(&self->snapshot_timer_, on_snapshot_timer, kSnapshotTickMs, kSnapshotTickMs);
    }
    if (st.replication().wants_cron() && !uv_is_active(reinterpret_cast<uv_handle_t*>(&self->repl_timer_)))
      uv_timer_start(&self->repl_timer_, on_repl_timer, kReplTickMs, kReplTickMs);
  }
  // Last: what the I/O threads sent while the loop was awake.
  if (self->io_threads_) self->io_threads_->before_sleep();
  if (self->loop_trace_.on()) {
    self->trace_prepare_end_ns_ = LoopTrace::now_ns();
    self->trace_idle_ns_ = uv_metrics_idle_time(&self->loop_);
  }
}

void Server::on_check(uv_check_t* h) {
  auto* self = static_cast<Server*>(h->data);
  if (self->trace_prepare_end_ns_ == 0) return;
  const uint64_t now = LoopTrace::now_ns();
  const uint64_t wait = uv_metrics_idle_time(&self->loop_) - self->trace_idle_ns_;
  const uint64_t polled = std::min(self->trace_prepare_end_ns_ + wait, now);
  self->loop_trace_.record(LoopTrace::kWait, self->trace_prepare_end_ns_, polled);
  self->loop_trace_.record(LoopTrace::kIo, polled, now);
}

void Server::on_repl_timer(uv_timer_t* h) {
  auto* self = static_cast<Server*>(h->data);
  const LoopTrace::Span span(self->loop_trace_, LoopTrace::kCron);
  self->state_.replication().cron(self->state_.clock.now_ms());
  if (!self->state_.replication().wants_cron()) uv_timer_stop(h);
}

void Server::on_child(uv_signal_t* h, int) {
  auto* self = static_cast<Server*>(h->data);
  self->state_.snapshots().reap(self->state_);
  self->state_.aof().reap(self->state_);
}

void Server::on_snapshot_timer(uv_timer_t* h) {
  auto* self = static_cast<Server*>(h->data);
  const LoopTrace::Span span(self->loop_trace_, LoopTrace::kCron);
  self->state_.snapshots().cron(self->state_);
  self->state_.aof().cron(self->state_);
}

void Server::flush_iteration() {
  const LoopTrace::Span span(loop_trace_, LoopTrace::kFlush);
  // BCAST invalidations of the keys this iteration changed (tracking.hpp).
  state_.data.tracking.broadcast();
  // The iteration's writes reach the append-only file before its replies
  // leave (under appendfsync always, synced too).
  state_.aof().flush();
  // A WAIT asked the replicas for acknowledgements.
  // A replica's snapshot loads a step at a time, its clients served between.
  const bool loading = state_.replica().load_step(state_.clock.now_ms());
  state_.replication().before_sleep();
  flush_pending();
  // A diskless sync's pipe is read while the replicas' sockets have room
  // (their writes finishing wake the loop otherwise).
  pipe_watch_->set_active(state_.replication().primary().relay_fd() >= 0);
  // More of either next iteration, without a wait in poll (a snapshot's
  // chunk that left at once; the load): the idle handle stops itself.
  if (loading || state_.replication().bulk_ready())
    uv_idle_start(&repl_idle_, [](uv_idle_t* h) { uv_idle_stop(h); });
}

void Server::meter_iteration() {
  const uint64_t wall = uv_hrtime();
  const uint64_t idle = uv_metrics_idle_time(&loop_);
  if (iteration_wall_ns_ != 0) {
    const uint64_t busy = wall - iteration_wall_ns_ - std::min(wall - iteration_wall_ns_, idle - iteration_idle_ns_);
    state_.facts.stats.loop_iteration.add(0, busy / 1000);
  }
  iteration_wall_ns_ = wall;
  iteration_idle_ns_ = idle;
}

void Server::on_release_idle(uv_idle_t* h) {
  auto* self = static_cast<Server*>(h->data);
  const LoopTrace::Span span(self->loop_trace_, LoopTrace::kRelease);
  const int64_t cpu = Clock::thread_cpu_ns();
  const uint64_t wall = uv_hrtime();
  arena::release_step();
  page_release_step();
  self->state_.facts.stats.release_step.add(static_cast<uint64_t>(Clock::thread_cpu_ns() - cpu) / 1000,
                                            (uv_hrtime() - wall) / 1000);
  if (!arena::release_pending() && !page_release_pending()) uv_idle_stop(h);
}

void Server::on_evict_idle(uv_idle_t* h) {
  auto* self = static_cast<Server*>(h->data);
  const LoopTrace::Span span(self->loop_trace_, LoopTrace::kEvict);
  ServerState& st = self->state_;
  st.data.evict(st.config.values());
  if (!st.data.eviction.pending()) uv_idle_stop(h);
}

void Server::on_signal(uv_signal_t* h, int signum) {
  auto* self = static_cast<Server*>(h->data);
  self->log_.log(LogLevel::kWarning, signum == SIGINT ? "Received SIGINT scheduling shutdown..."
                                                      : "Received SIGTERM scheduling shutdown...");
  if (self->stopping_) return;
  if (!self->state_.snapshots().on_shutdown(self->state_, false, false).empty()) {
    self->log_.log(LogLevel::kWarning, std::string(signum == SIGINT ? "SIGINT" : "SIGTERM") +
                                           " received but errors trying to shut down the server, check the logs "
                                           "for more information");
    return;
  }
  self->state_.shutdown_requested = true;
  self->shut_down();
}

void Server::shut_down() {
  stopping_ = true;
  stop_io_threads();
  log_.log(LogLevel::kWarning, "User requested shutdown...");
  state_.aof().on_shutdown(state_);
  state_.config.set_live_apply("bind", nullptr);
  state_.config.set_live_apply("port", nullptr);
  state_.config.set_live_apply("tls-port", nullptr);
  for (std::string_view name : kTlsOptions) state_.config.set_live_apply(name, nullptr);
  close_listeners(listeners_);
  close_listeners(tls_listeners_);
  std::vector<Connection*> all;
  replica_link_->close_handles();
  pipe_watch_->unwatch();
  for (const auto& [id, s] : state_.clients.all())
    if (!s->master) all.push_back(static_cast<Connection*>(s));
  for (Connection* c : all) c->close();
  expiry_->close();
  clients_cron_->close();
  aging_cron_->close();
  uv_close(reinterpret_cast<uv_handle_t*>(&prepare_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&evict_idle_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&release_idle_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&repl_idle_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigterm_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigint_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigchld_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&snapshot_timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&repl_timer_), nullptr);
}

}  // namespace lawnkv::server
