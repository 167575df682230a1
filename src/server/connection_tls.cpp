// The TLS half of a Connection (connection.hpp): what a read of
// ciphertext does, and how a failed session ends. flush() seals the
// replies itself (connection.cpp).

#include <string>

#include "server/connection.hpp"
#include "server/host.hpp"

namespace lawnkv::server {

void Connection::handle_tls_read(ssize_t nread) {
  if (nread < 0) {
    if (!tls_->handshake_done()) {
      // Gone before the handshake ended: logged with OpenSSL's reason, as
      // Redis logs it.
      tls_->feed_eof();
      char none[1];
      tls_->read(none, sizeof(none));
      tls_failed();
      return;
    }
    handle_read(nread);
    return;
  }
  tls_->feed(tls_->read_room(), static_cast<size_t>(nread));
  // Everything the records fed so far hold, so nothing waits inside the
  // session for a socket event that may not come.
  size_t total = 0;
  for (;;) {
    const size_t need = read_room();
    in_.reserve_free(need);
    const long got = tls_->read(in_.tail(), need);
    if (got <= 0) {
      if (got < 0) {
        tls_failed();
        return;
      }
      break;
    }
    in_.commit(static_cast<size_t>(got));
    total += static_cast<size_t>(got);
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

void Connection::tls_failed() {
  if (!tls_->handshake_done() && !tls_->error().empty()) {
    server_.log().log(LogLevel::kWarning, "Error accepting a client connection: " + tls_->error());
  }
  // The alert OpenSSL wrote says why; what the socket does not take now is
  // lost with the connection.
  if (!write_in_flight_) {
    std::string& wire = tls_->seal(out_);
    if (!wire.empty()) {
      uv_buf_t b = uv_buf_init(wire.data(), static_cast<unsigned>(wire.size()));
      uv_try_write(stream(), &b, 1);
    }
  }
  close();
}

}  // namespace lawnkv::server
