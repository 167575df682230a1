// The TLS half of a Connection (connection.hpp): what a read of
// ciphertext does, on the loop (handle_tls_read) or on an I/O thread
// (read_job_tls), and how a failed session ends. flush() and write_job()
// seal the replies themselves (connection.cpp).

#include <unistd.h>

#include <cerrno>
#include <string>

#include "server/connection.hpp"
#include "server/host.hpp"

namespace lawnkv::server {

namespace {

// As read_job's: the most reads for one readiness while the client cannot
// run requests.
constexpr int kTlsReadsPerEvent = 32;

}  // namespace

bool Connection::tls_decrypt(size_t* total) {
  // Everything the records fed so far hold, so nothing waits inside the
  // session for a socket event that may not come.
  for (;;) {
    const size_t need = read_room();
    in_.reserve_free(need);
    const long got = tls_->read(in_.tail(), need);
    if (got < 0) return false;
    if (got == 0) return true;
    in_.commit(static_cast<size_t>(got));
    *total += static_cast<size_t>(got);
  }
}

void Connection::tls_end_of_stream() {
  // OpenSSL names what the end of the stream cut short ("unexpected eof
  // while reading"), as Redis logs it.
  tls_->feed_eof();
  char none[1];
  tls_->read(none, sizeof(none));
}

void Connection::handle_tls_read(ssize_t nread) {
  if (nread < 0) {
    if (!tls_->handshake_done()) {
      tls_end_of_stream();
      tls_failed();
      return;
    }
    handle_read(nread);
    return;
  }
  tls_->feed(tls_->read_room(), static_cast<size_t>(nread));
  size_t total = 0;
  if (!tls_decrypt(&total)) {
    tls_failed();
    return;
  }
  note_memory();
  // The handshake's answer (or a session ticket) goes out before the loop
  // waits again.
  if (tls_->has_output() && !queued_for_flush_) {
    queued_for_flush_ = true;
    server_.queue_flush(this);
  }
  if (total > 0) handle_read(static_cast<ssize_t>(total));
}

void Connection::read_job_tls() {
  // read_job's reads, of ciphertext: each is fed to the session and
  // decrypted into the query buffer (the handshake moves on here too). A
  // session that fails is left to after_read, on the main thread, to log
  // and close.
  io_->parsed = false;
  io_->over_limit = false;
  io_->read_result = 0;
  size_t total = 0;
  ssize_t last = 0;
  int error = 0;
  for (int i = 0; i < kTlsReadsPerEvent; ++i) {
    do {
      last = ::read(fd_, tls_->read_room(), TlsSession::kReadRoom);
    } while (last < 0 && errno == EINTR);
    if (last <= 0) {
      error = last < 0 ? errno : 0;
      break;
    }
    tls_->feed(tls_->read_room(), static_cast<size_t>(last));
    if (!tls_decrypt(&total)) {
      io_->tls_failed = true;
      return;
    }
    io_->over_limit = query_buffer_over_limit();
    if (io_->over_limit || static_cast<size_t>(last) < TlsSession::kReadRoom) break;
    if (!blocked && !close_after_reply) break;
  }
  const bool ended = last == 0 || (last < 0 && error != EAGAIN && error != EWOULDBLOCK);
  if (total == 0) {
    if (!ended) return;  // nothing yet (the handshake may have moved on)
    if (!tls_->handshake_done()) {
      tls_end_of_stream();
      io_->tls_failed = true;
      return;
    }
    io_->read_result = last == 0 ? static_cast<ssize_t>(UV_EOF) : static_cast<ssize_t>(-error);
    return;
  }
  io_->read_result = static_cast<ssize_t>(total);  // an end after it: the next read meets it again
  // The first request only, as read_job.
  if (!io_->over_limit && !blocked && !close_after_reply) {
    io_->status = parser_.parse(in_.view(), server_.limits(), authenticated);
    io_->parsed = true;
  }
}

void Connection::tls_failed() {
  if (!tls_->handshake_done() && !tls_->error().empty()) {
    server_.log().log(LogLevel::kWarning, "Error accepting a client connection: " + tls_->error());
  }
  // The alert OpenSSL wrote says why; what the socket does not take now is
  // lost with the connection.
  if (!write_in_flight_ && writing_.empty()) {
    std::string& wire = tls_->seal(out_);
    if (!wire.empty()) {
      uv_buf_t b = uv_buf_init(wire.data(), static_cast<unsigned>(wire.size()));
      uv_try_write(stream(), &b, 1);
    }
  }
  close();
}

}  // namespace lawnkv::server
