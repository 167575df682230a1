#include "server/server.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/address.hpp"
#include "core/allocator.hpp"
#include "core/arena.hpp"
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

}  // namespace

Server::Server(ServerState& state, Logger& log) : ServerHost(state, log) {
  uv_loop_init(&loop_);
  loop_.data = this;
  uv_prepare_init(&loop_, &prepare_);
  prepare_.data = this;
  uv_idle_init(&loop_, &evict_idle_);
  evict_idle_.data = this;
  uv_idle_init(&loop_, &release_idle_);
  release_idle_.data = this;
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
  uv_check_init(&loop_, &check_);
  check_.data = this;
  state_.snapshots().set_logger(&log_);
  state_.aof().set_logger(&log_);
  state_.log = &log_;
  expiry_ = std::make_unique<ExpiryCycle>(&loop_, state_);
  clients_cron_ = std::make_unique<ClientsCron>(&loop_, *this);
  aging_cron_ = std::make_unique<AgingCron>(&loop_, state_);
  replica_link_ = std::make_unique<ReplicaLink>(&loop_, state_);
  state_.busy_loop = this;
}

Server::~Server() {
  state_.busy_loop = nullptr;
  state_.config.set_live_apply("bind", nullptr);
  state_.config.set_live_apply("port", nullptr);
  replica_link_->close_handles();
  uv_walk(&loop_, [](uv_handle_t* h, void*) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  }, nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
}

bool Server::listen() {
  if (!listen_on(state_.config.values())) return false;
  // CONFIG SET bind / port rebind, as Redis's applyBind and updatePort.
  state_.config.set_live_apply("bind", [this](const config::Values& v) {
    return relisten(v) ? std::string() : std::string("Failed to bind to specified addresses.");
  });
  state_.config.set_live_apply("port", [this](const config::Values& v) {
    return relisten(v) ? std::string() : std::string("Unable to listen on this port. Check server logs.");
  });
  return true;
}

bool Server::listen_on(const config::Values& cfg) {
  // No address: every one, as Redis's listenToPort.
  const std::vector<std::string> every_address{"*", "-::*"};
  for (std::string addr : cfg.bind.empty() ? every_address : cfg.bind) {
    const bool optional = !addr.empty() && addr[0] == '-';
    if (optional) addr.erase(0, 1);
    if (addr == "*") addr = "0.0.0.0";
    if (addr == "::*") addr = "::";
    sockaddr_storage sa{};
    const bool v6 = addr.find(':') != std::string::npos;
    int rc = v6 ? uv_ip6_addr(addr.c_str(), static_cast<int>(cfg.port), reinterpret_cast<sockaddr_in6*>(&sa))
                : uv_ip4_addr(addr.c_str(), static_cast<int>(cfg.port), reinterpret_cast<sockaddr_in*>(&sa));
    auto tcp = std::make_unique<uv_tcp_t>();
    uv_tcp_init(&loop_, tcp.get());
    tcp->data = this;
    if (rc == 0) rc = uv_tcp_bind(tcp.get(), reinterpret_cast<sockaddr*>(&sa), v6 ? UV_TCP_IPV6ONLY : 0);
    if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp.get()),
                                static_cast<int>(cfg.tcp_backlog), on_connection);
    if (rc != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(tcp.release()),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
      const std::string msg = "Could not create server TCP listening socket " + addr + ":" +
                              std::to_string(cfg.port) + ": " + uv_strerror(rc);
      if (optional) {
        log_.log(LogLevel::kVerbose, msg);
        continue;
      }
      log_.log(LogLevel::kWarning, msg);
      close_listeners();
      return false;
    }
    listeners_.push_back(std::move(tcp));
  }
  if (listeners_.empty()) {
    log_.log(LogLevel::kWarning, "Failed listening on any address");
    return false;
  }
  state_.facts.listening_port = static_cast<int>(cfg.port);
  return true;
}

bool Server::relisten(const config::Values& cfg) {
  close_listeners();
  if (stopping_) return true;
  // Port 0: no TCP listener (Redis's changeListenPort).
  if (cfg.port == 0) {
    state_.facts.listening_port = 0;
    return true;
  }
  if (listen_on(cfg)) return true;
  log_.log(LogLevel::kWarning, "Failed to bind");
  return false;
}

void Server::close_listeners() {
  // uv_close closes the socket now (the port is free at once); the handle's
  // memory goes in the callback.
  for (auto& l : listeners_)
    uv_close(reinterpret_cast<uv_handle_t*>(l.release()),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  listeners_.clear();
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
  if (cfg.io_threads > 1) {
    io_threads_ = std::make_unique<IoThreads>(static_cast<size_t>(cfg.io_threads - 1));
    threaded_reads_ = cfg.io_threads_do_reads;
    uv_check_start(&check_, on_check);
  }
  if (!listen()) return 1;
  uv_prepare_start(&prepare_, on_prepare);
  uv_signal_start(&sigterm_, on_signal, SIGTERM);
  uv_signal_start(&sigint_, on_signal, SIGINT);
  uv_signal_start(&sigchld_, on_child, SIGCHLD);
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigterm_));
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigint_));
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigchld_));
  // REPLICAOF in the config: the link starts once the listening port is known.
  replica_link_->start();
  log_.log(LogLevel::kNotice, "Ready to accept connections tcp");
  uv_run(&loop_, UV_RUN_DEFAULT);
  log_.log(LogLevel::kWarning, "lawnkv is now ready to exit, bye bye...");
  return 0;
}

void Server::on_connection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status < 0) {
    self->log_.log(LogLevel::kWarning, std::string("Accepting client connection: ") + uv_strerror(status));
    return;
  }
  self->accept(listener);
}

void Server::accept(uv_stream_t* listener) {
  const uint64_t id = state_.clients.next_id();
  auto* conn = new Connection(*this, id);
  if (uv_accept(listener, conn->stream()) != 0) {
    conn->close();
    return;
  }
  admit(conn);
}

void Server::accept_now(uv_tcp_t* listener) {
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
    admit(conn);
  }
}

void Server::admit(Connection* conn) {
  conn->start();
  const auto& cfg = state_.config.values();
  if (static_cast<int64_t>(state_.clients.size()) >= cfg.maxclients) {
    ++state_.facts.stats.rejected_connections;
    conn->out_.assign(kMaxClients);
    conn->close_after_reply = true;
    conn->flush();
    return;
  }
  if (cfg.protected_mode && state_.acl.default_user().nopass() && !is_loopback(conn->peer_address())) {
    conn->out_.assign(kProtectedMode);
    conn->close_after_reply = true;
    conn->flush();
    return;
  }
  ++state_.facts.stats.total_connections_received;
  state_.clients.add(*conn);
}

void Server::queue_flush(Connection* conn) { flush_ids_.push_back(conn->id); }

void Server::watch_soft_limit(uint64_t id) { clients_cron_->watch_soft_limit(id); }

void Server::connection_closed(Connection* conn) {
  state_.replication().client_closed(*conn);
  state_.clients.remove(*conn);
}

void Server::evict_clients() {
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
  if (io_threads_) {
    flush_pending_threaded();
    return;
  }
  // A flush can close a connection: look each one up again by id. A flush
  // that drains a paused connection's output runs its unread requests,
  // whose replies queue again: they go out before the loop waits too, as
  // nothing might wake it after. (Each round runs requests read before it,
  // so the rounds end.)
  // A connection whose request runs a busy script waits for its end, still
  // queued.
  std::vector<uint64_t> ids, running;
  while (!flush_ids_.empty()) {
    ids.clear();
    ids.swap(flush_ids_);
    for (uint64_t id : ids) {
      Session* s = state_.clients.find(id);
      if (s == nullptr) continue;
      auto* conn = static_cast<Connection*>(s);  // every registered client is a Connection
      if (conn->processing()) {
        running.push_back(id);
        continue;
      }
      conn->queued_for_flush_ = false;
      conn->flush();
    }
  }
  flush_ids_.swap(running);
}

void Server::flush_pending_threaded() {
  // As flush_pending; the connections of a round that have something to
  // write are written by the threads together, then each finishes its
  // flush in order.
  std::vector<uint64_t> ids, running;
  std::vector<Connection*> batch;
  batch.swap(write_scratch_);
  while (!flush_ids_.empty()) {
    ids.clear();
    ids.swap(flush_ids_);
    batch.clear();
    for (uint64_t id : ids) {
      Session* s = state_.clients.find(id);
      if (s == nullptr) continue;
      auto* conn = static_cast<Connection*>(s);  // every registered client is a Connection
      if (conn->processing()) {
        running.push_back(id);
        continue;
      }
      conn->queued_for_flush_ = false;
      if (!conn->threaded()) conn->flush();
      else if (conn->wants_write()) batch.push_back(conn);
      else conn->after_write();  // may close others: looked at again below
    }
    // A connection closed meanwhile is left out: its socket is closed.
    io_threads_->run(batch.size(), [&batch](size_t i) {
      if (!batch[i]->closing()) batch[i]->write_job();
    });
    for (Connection* conn : batch) conn->after_write();
  }
  flush_ids_.swap(running);
  batch.clear();
  write_scratch_.swap(batch);
}

void Server::on_check(uv_check_t* h) {
  auto* self = static_cast<Server*>(h->data);
  if (self->read_batch_.empty()) return;
  std::vector<Connection*> batch;
  batch.swap(self->read_scratch_);
  batch.swap(self->read_batch_);
  // Connections closed since poll are left out (their sockets are closed);
  // they are still in memory until the loop's closing phase, after this.
  const auto job = [&batch](size_t i) {
    if (!batch[i]->closing()) batch[i]->read_job();
  };
  if (self->threaded_reads_) {
    self->io_threads_->run(batch.size(), job);
  } else {
    for (size_t i = 0; i < batch.size(); ++i) job(i);
  }
  for (Connection* conn : batch) conn->after_read();
  batch.clear();
  self->read_scratch_.swap(batch);
}

void Server::serve_while_busy() {
  busy_fds_.clear();
  busy_ids_.clear();
  for (const auto& l : listeners_) {
    uv_os_fd_t fd;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(l.get()), &fd) == 0) busy_fds_.push_back({fd, POLLIN, 0});
  }
  const size_t listeners = busy_fds_.size();
  for (const auto& [id, s] : state_.clients.all()) {
    if (s->master) continue;  // read by the replica link, after the script
    auto* conn = static_cast<Connection*>(s);
    if (conn->reading_ && !conn->closing() && !conn->processing() && conn->fd_ >= 0) {
      busy_fds_.push_back({conn->fd_, POLLIN, 0});
      busy_ids_.push_back(id);
    }
  }
  int ready = ::poll(busy_fds_.data(), busy_fds_.size(), 0);
  for (size_t i = 0; i < busy_fds_.size() && ready > 0 && !state_.shutdown_requested; ++i) {
    if (busy_fds_[i].revents == 0) continue;
    --ready;
    if (i < listeners) {
      accept_now(listeners_[i].get());
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
  // BCAST invalidations of the keys this iteration changed (tracking.hpp).
  st.data.tracking.broadcast();
  // The iteration's writes reach the append-only file before its replies
  // leave (under appendfsync always, synced too).
  st.aof().flush();
  // A WAIT asked the replicas for acknowledgements.
  st.replication().before_sleep();
  self->flush_pending();
  self->evict_clients();
  if (st.data.eviction.pending() && !paused && !self->stopping_) uv_idle_start(&self->evict_idle_, on_evict_idle);
  if (arena::release_pending() && !self->stopping_) uv_idle_start(&self->release_idle_, on_release_idle);
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
}

void Server::on_repl_timer(uv_timer_t* h) {
  auto* self = static_cast<Server*>(h->data);
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
  self->state_.snapshots().cron(self->state_);
  self->state_.aof().cron(self->state_);
}

void Server::on_release_idle(uv_idle_t* h) {
  arena::release_step();
  if (!arena::release_pending()) uv_idle_stop(h);
}

void Server::on_evict_idle(uv_idle_t* h) {
  auto* self = static_cast<Server*>(h->data);
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
  log_.log(LogLevel::kWarning, "User requested shutdown...");
  state_.aof().on_shutdown(state_);
  state_.config.set_live_apply("bind", nullptr);
  state_.config.set_live_apply("port", nullptr);
  close_listeners();
  std::vector<Connection*> all;
  replica_link_->close_handles();
  for (const auto& [id, s] : state_.clients.all())
    if (!s->master) all.push_back(static_cast<Connection*>(s));
  for (Connection* c : all) c->close();
  expiry_->close();
  clients_cron_->close();
  aging_cron_->close();
  uv_close(reinterpret_cast<uv_handle_t*>(&prepare_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&check_), nullptr);
  read_batch_.clear();
  uv_close(reinterpret_cast<uv_handle_t*>(&evict_idle_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&release_idle_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigterm_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigint_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigchld_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&snapshot_timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&repl_timer_), nullptr);
}

}  // namespace lawnkv::server
