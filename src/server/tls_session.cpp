#include "server/tls_session.hpp"

#include <openssl/err.h>

#include <algorithm>
#include <climits>

#include "server/tls_context.hpp"

namespace lawnkv::server {

TlsSession::TlsSession(SSL* ssl) : ssl_(ssl), rbio_(BIO_new(BIO_s_mem())), wbio_(BIO_new(BIO_s_mem())) {
  // An empty read BIO means "wait for more", not end of file.
  BIO_set_mem_eof_return(rbio_, -1);
  BIO_set_mem_eof_return(wbio_, -1);
  SSL_set_bio(ssl_, rbio_, wbio_);
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

void TlsSession::feed(const char* data, size_t n) {
  while (n > 0) {
    const int chunk = static_cast<int>(std::min<size_t>(n, INT_MAX));
    const int w = BIO_write(rbio_, data, chunk);
    if (w <= 0) return;  // out of memory: the session fails on the missing bytes
    data += w;
    n -= static_cast<size_t>(w);
  }
}

long TlsSession::read(char* dst, size_t n) {
  const int r = SSL_read(ssl_, dst, static_cast<int>(std::min<size_t>(n, INT_MAX)));
  if (r > 0) return r;
  switch (SSL_get_error(ssl_, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:  // never with a memory BIO; waits as for a read
      return 0;
    case SSL_ERROR_ZERO_RETURN:
      error_.clear();
      return -1;
    case SSL_ERROR_SYSCALL:
      error_ = "unexpected EOF";
      ERR_clear_error();
      return -1;
    default:
      error_ = tls_error_text();
      if (error_.empty()) error_ = "TLS error";
      return -1;
  }
}

std::string& TlsSession::seal(std::string& plain) {
  if (!plain.empty() && handshake_done()) {
    // The memory BIO takes every record: SSL_write writes it all.
    size_t done = 0;
    while (done < plain.size()) {
      const int chunk = static_cast<int>(std::min<size_t>(plain.size() - done, 1 << 30));
      const int w = SSL_write(ssl_, plain.data() + done, chunk);
      if (w <= 0) break;  // a failed session: its reader sees the error
      done += static_cast<size_t>(w);
    }
    plain.clear();
  }
  const size_t pending = BIO_ctrl_pending(wbio_);
  if (pending > 0) {
    const size_t at = wire_.size();
    wire_.resize(at + pending);
    const int r = BIO_read(wbio_, wire_.data() + at, static_cast<int>(pending));
    wire_.resize(at + static_cast<size_t>(std::max(r, 0)));
  }
  return wire_;
}

}  // namespace lawnkv::server
