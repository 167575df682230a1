#pragma once
// The replica's socket to its primary (replication::Transport) on the
// server's loop, and the replication cron: every second
// replication::Replica::cron (connect when due, REPLCONF ACK, timeouts).
//
// Nothing blocks the loop: the host name is resolved by uv_getaddrinfo, the
// connect and every read and write are libuv's. Each connection attempt is
// a Socket of its own; a closed one is marked so that a callback still on
// its way (a connect or resolve finishing after close) is ignored.
//
// tls-replication yes: once connected, the link runs a client-side TLS
// session (tls_session.hpp, over the same memory BIOs as the server's
// connections) and the replica hears on_open only when the handshake is
// done; the primary's certificate is checked against tls-ca-cert-file/dir
// and the link presents tls-client-cert-file (or tls-cert-file), so a
// primary with tls-auth-clients yes takes it. A failed handshake is a lost
// link (logged with OpenSSL's reason); the cron tries again.

#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "replication/replica.hpp"
#include "server/tls_context.hpp"

namespace lawnkv::server {

class ReplicaLink final : public replication::Transport {
 public:
  // tls: the server's context, which outlives the link.
  ReplicaLink(uv_loop_t* loop, ServerState& state, const TlsContext& tls);
  ~ReplicaLink();
  ReplicaLink(const ReplicaLink&) = delete;
  ReplicaLink& operator=(const ReplicaLink&) = delete;

  // Starts the cron, and the link when the config names a primary.
  void start();
  // Closes the socket and the handles (shutdown).
  void close_handles();

  // replication::Transport.
  void open(const std::string& host, int64_t port) override;
  void send(std::string_view bytes) override;
  void close() override;
  void close_soon() override;
  void pause_reading(bool paused) override;

 private:
  struct Socket;
  static void on_cron(uv_timer_t* t);
  static void on_close_soon(uv_timer_t* t);
  static void on_resolved(uv_getaddrinfo_t* req, int status, addrinfo* res);
  static void on_connect(uv_connect_t* req, int status);
  static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  // The socket failed or the primary closed it: the replica hears why.
  void lost(const std::string& why);
  // The TCP connection is up: the replica hears on_open (after a TLS
  // handshake with tls-replication).
  void connected(Socket* s);
  void opened(Socket* s);
  // Ciphertext read with tls-replication: decrypted, handed on.
  void tls_read(Socket* s, size_t n);
  // Writes bytes as they are (ciphertext, or plain TCP's bytes).
  static void write_raw(Socket* s, std::string bytes);
  // Writes the ciphertext the TLS session has pending.
  static void flush_tls(Socket* s);

  uv_loop_t* loop_;
  ServerState& state_;
  const TlsContext& tls_;
  replication::Replica& replica_;
  uv_timer_t cron_;
  uv_timer_t close_timer_;
  Socket* socket_ = nullptr;  // the current attempt; owns itself until its handle closes
  std::string read_buf_;
  bool closed_handles_ = false;
};

}  // namespace lawnkv::server
