#include "server/replica_link.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "server/connection.hpp"
#include "server/tls_session.hpp"

namespace lawnkv::server {

namespace {

constexpr uint64_t kCronMs = 1000;
constexpr size_t kReadChunk = 16 * 1024;

}  // namespace

// One attempt: the resolve, the connect and the TCP handle. It outlives a
// close until libuv is done with it (the handle's close callback frees it,
// or the resolve's callback when no handle was opened yet).
struct ReplicaLink::Socket {
  ReplicaLink* owner;
  uv_getaddrinfo_t resolve{};
  uv_connect_t connect{};
  uv_tcp_t tcp{};
  std::unique_ptr<TlsSession> tls;  // with tls-replication, once connected
  int64_t port = 0;
  bool tcp_open = false;   // tcp initialised: it must be closed
  bool resolving = false;  // the resolve's callback is still due
  bool dead = false;       // closed: callbacks on the way are ignored

  // Frees itself once nothing of libuv refers to it.
  void release() {
    dead = true;
    if (tcp_open) {
      if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&tcp)))
        uv_close(reinterpret_cast<uv_handle_t*>(&tcp), [](uv_handle_t* h) {
          auto* s = static_cast<Socket*>(h->data);
          s->tcp_open = false;
          if (!s->resolving) delete s;
        });
      return;
    }
    if (!resolving) delete this;
  }
};

ReplicaLink::ReplicaLink(uv_loop_t* loop, ServerState& state, const TlsContext& tls)
    : loop_(loop), state_(state), tls_(tls), replica_(state.replica()) {
  uv_timer_init(loop_, &cron_);
  cron_.data = this;
  uv_timer_init(loop_, &close_timer_);
  close_timer_.data = this;
  replica_.set_transport(this);
}

ReplicaLink::~ReplicaLink() { replica_.set_transport(nullptr); }

void ReplicaLink::start() {
  uv_timer_start(&cron_, on_cron, kCronMs, kCronMs);
  // The cron alone does not keep the loop running.
  uv_unref(reinterpret_cast<uv_handle_t*>(&cron_));
  const config::Values& v = state_.config.values();
  if (!v.replicaof_host.empty()) replica_.set_primary(v.replicaof_host, v.replicaof_port, state_.clock.now_ms());
}

void ReplicaLink::close_handles() {
  if (closed_handles_) return;
  closed_handles_ = true;
  close();
  replica_.set_transport(nullptr);
  uv_timer_stop(&cron_);
  uv_timer_stop(&close_timer_);
}

void ReplicaLink::on_cron(uv_timer_t* t) {
  auto* self = static_cast<ReplicaLink*>(t->data);
  self->replica_.cron(self->state_.clock.now_ms());
}

void ReplicaLink::open(const std::string& host, int64_t port) {
  close();
  auto* s = new Socket{};
  s->owner = this;
  s->port = port;
  s->resolve.data = s;
  s->connect.data = s;
  s->tcp.data = s;
  socket_ = s;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  const std::string service = std::to_string(port);
  s->resolving = true;
  if (const int rc = uv_getaddrinfo(loop_, &s->resolve, on_resolved, host.c_str(), service.c_str(), &hints);
      rc != 0) {
    s->resolving = false;
    lost(std::string("Unable to connect to MASTER: ") + uv_strerror(rc));
  }
}

void ReplicaLink::on_resolved(uv_getaddrinfo_t* req, int status, addrinfo* res) {
  auto* s = static_cast<Socket*>(req->data);
  s->resolving = false;
  if (s->dead) {
    uv_freeaddrinfo(res);
    if (!s->tcp_open) delete s;
    return;
  }
  ReplicaLink* self = s->owner;
  if (status != 0 || res == nullptr) {
    uv_freeaddrinfo(res);
    return self->lost(std::string("Unable to connect to MASTER: ") + uv_strerror(status));
  }
  uv_tcp_init(self->loop_, &s->tcp);
  s->tcp_open = true;
  const int rc = uv_tcp_connect(&s->connect, &s->tcp, res->ai_addr, on_connect);
  uv_freeaddrinfo(res);
  if (rc != 0) self->lost(std::string("Unable to connect to MASTER: ") + uv_strerror(rc));
}

void ReplicaLink::on_connect(uv_connect_t* req, int status) {
  auto* s = static_cast<Socket*>(req->data);
  if (s->dead) return;
  ReplicaLink* self = s->owner;
  if (status != 0) return self->lost(std::string("Error condition on socket for SYNC: ") + uv_strerror(status));
  self->connected(s);
}

void ReplicaLink::connected(Socket* s) {
  uv_tcp_nodelay(&s->tcp, 1);
  if (state_.config.values().tls_replication) {
    SSL* ssl = tls_.new_client_ssl();
    if (ssl == nullptr) {
      const std::string why = tls_error_text();
      return lost("Error condition on socket for SYNC: " + (why.empty() ? std::string("TLS is not configured") : why));
    }
    s->tls = std::make_unique<TlsSession>(ssl);
    // The first read, with nothing fed, writes the ClientHello.
    char none[1];
    if (s->tls->read(none, sizeof(none)) < 0) return lost("Error condition on socket for SYNC: " + s->tls->error());
    flush_tls(s);
  }
  uv_read_start(reinterpret_cast<uv_stream_t*>(&s->tcp), on_alloc, on_read);
  if (!s->tls) opened(s);
}

void ReplicaLink::opened(Socket* s) {
  sockaddr_storage peer{}, local{};
  int len = sizeof(peer);
  uv_tcp_getpeername(&s->tcp, reinterpret_cast<sockaddr*>(&peer), &len);
  len = sizeof(local);
  uv_tcp_getsockname(&s->tcp, reinterpret_cast<sockaddr*>(&local), &len);
  uv_os_fd_t fd = -1;
  uv_fileno(reinterpret_cast<uv_handle_t*>(&s->tcp), &fd);
  replica_.on_open(sockaddr_text(peer), sockaddr_text(local), fd, state_.clock.now_ms());
}

void ReplicaLink::on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
  auto* s = static_cast<Socket*>(h->data);
  if (s->tls) {
    *buf = uv_buf_init(s->tls->read_room(), static_cast<unsigned>(TlsSession::kReadRoom));
    return;
  }
  std::string& b = s->owner->read_buf_;
  b.resize(kReadChunk);
  *buf = uv_buf_init(b.data(), static_cast<unsigned>(b.size()));
}

void ReplicaLink::on_read(uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
  auto* s = static_cast<Socket*>(stream->data);
  if (s->dead) return;
  ReplicaLink* self = s->owner;
  if (n < 0) {
    if (s->tls && !s->tls->handshake_done()) {
      // Gone mid-handshake (the primary refused our certificate): OpenSSL
      // says what it makes of it.
      s->tls->feed_eof();
      char none[1];
      s->tls->read(none, sizeof(none));
      const std::string why = s->tls->error().empty() ? "connection closed by the primary" : s->tls->error();
      return self->lost("Error condition on socket for SYNC: " + why);
    }
    return self->lost(n == UV_EOF ? "connection closed by the primary" : uv_strerror(static_cast<int>(n)));
  }
  if (n == 0) return;
  self->state_.facts.stats.total_net_input_bytes += static_cast<uint64_t>(n);
  if (s->tls) return self->tls_read(s, static_cast<size_t>(n));
  self->replica_.on_data(std::string_view(buf->base, static_cast<size_t>(n)), self->state_.clock.now_ms());
}

void ReplicaLink::tls_read(Socket* s, size_t n) {
  TlsSession& tls = *s->tls;
  const bool was_open = tls.handshake_done();
  tls.feed(tls.read_room(), n);
  // Every byte of plaintext the records fed so far hold, before the
  // replica runs (it may close this socket, which lives until its handle
  // closes).
  std::string& plain = read_buf_;
  plain.clear();
  long got = 0;
  for (;;) {
    const size_t at = plain.size();
    plain.resize(at + kReadChunk);
    got = tls.read(plain.data() + at, kReadChunk);
    plain.resize(at + static_cast<size_t>(std::max<long>(got, 0)));
    if (got <= 0) break;
  }
  // The handshake's next flight (or an alert) goes out first.
  if (tls.has_output()) flush_tls(s);
  if (got < 0) {
    const std::string why = tls.error().empty() ? "connection closed by the primary" : tls.error();
    return lost(was_open ? why : "Error condition on socket for SYNC: " + why);
  }
  if (!was_open && tls.handshake_done()) {
    opened(s);
    if (s->dead) return;
  }
  if (!plain.empty()) replica_.on_data(plain, state_.clock.now_ms());
}

void ReplicaLink::flush_tls(Socket* s) {
  std::string none;
  std::string& wire = s->tls->seal(none);
  write_raw(s, std::move(wire));
  wire.clear();
}

void ReplicaLink::write_raw(Socket* s, std::string bytes) {
  if (bytes.empty()) return;
  struct Write {
    uv_write_t req;
    std::string data;
  };
  auto* w = new Write{{}, std::move(bytes)};
  uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  const int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&s->tcp), &buf, 1,
                          [](uv_write_t* req, int) { delete reinterpret_cast<Write*>(req); });
  if (rc != 0) delete w;
}

void ReplicaLink::send(std::string_view bytes) {
  Socket* s = socket_;
  if (s == nullptr || s->dead || !s->tcp_open || bytes.empty()) return;
  if (!s->tls) return write_raw(s, std::string(bytes));
  std::string plain(bytes);
  std::string& wire = s->tls->seal(plain);
  write_raw(s, std::move(wire));
  wire.clear();  // a moved-from string: emptied for the next seal
}

void ReplicaLink::close() {
  if (socket_ == nullptr) return;
  Socket* s = socket_;
  socket_ = nullptr;
  s->release();
}

void ReplicaLink::lost(const std::string& why) {
  close();
  replica_.on_closed(why, state_.clock.now_ms());
}

void ReplicaLink::close_soon() { uv_timer_start(&close_timer_, on_close_soon, 0, 0); }

void ReplicaLink::pause_reading(bool paused) {
  Socket* s = socket_;
  if (s == nullptr || s->dead || !s->tcp_open) return;
  auto* stream = reinterpret_cast<uv_stream_t*>(&s->tcp);
  if (paused) uv_read_stop(stream);
  else uv_read_start(stream, on_alloc, on_read);
}

void ReplicaLink::on_close_soon(uv_timer_t* t) {
  auto* self = static_cast<ReplicaLink*>(t->data);
  self->lost("killed by CLIENT KILL");
}

}  // namespace lawnkv::server
