#pragma once
// The server's TLS context (OpenSSL's SSL_CTX), built from the tls-*
// parameters as Redis 7.0's tlsConfigure builds it: protocols, ciphers,
// the certificate chain and key (with its passphrase), the CA that client
// certificates are checked against, session caching, DH parameters. The
// client-side files, when both are set, are loaded into a context of their
// own that nothing uses yet (no outgoing connections): a bad file fails
// the configuration, as in Redis.
//
// configure() is atomic: on any failure it logs Redis's warning and keeps
// the context it had. A connection takes its SSL from the context current
// when it was accepted (SSL_new holds a reference), so a CONFIG SET that
// rebuilds the context (a rotated certificate) serves new connections and
// leaves the open ones as they are.

#include <openssl/ssl.h>

#include <string>

#include "config/values.hpp"
#include "core/log.hpp"

namespace lawnkv::server {

class TlsContext {
 public:
  TlsContext() = default;
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // Builds a context from v; false (logged, the old context kept) if it
  // cannot be built.
  bool configure(const config::Values& v, Logger& log);
  bool configured() const { return ctx_ != nullptr; }

  // A server-side SSL for a connection just accepted, asking for a client
  // certificate as tls-auth-clients says (yes, optional, no); nullptr if
  // OpenSSL could not make one.
  SSL* new_ssl(const std::string& auth_clients) const;

 private:
  SSL_CTX* ctx_ = nullptr;
};

// OpenSSL's first queued error as text ("error:0A000086:SSL routines::
// certificate verify failed"), emptying the queue; "" if none.
std::string tls_error_text();

}  // namespace lawnkv::server
