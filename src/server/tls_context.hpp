#pragma once
// The server's TLS context (OpenSSL's SSL_CTX), built from the tls-*
// parameters as Redis 7.0's tlsConfigure builds it: protocols, ciphers,
// the certificate chain and key (with its passphrase), the CA that client
// certificates are checked against, session caching, DH parameters. The
// client-side files (tls-client-cert-file and -key-file), when both are
// set, are loaded into a context of their own for the connections this
// server makes (the replica's link to its primary, tls-replication); when
// they are not, those connections present the server's certificate, as in
// Redis. Either way the peer's certificate is checked against the CA (no
// host name check, as Redis).
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
  // A client-side SSL (connect state) for a connection this server makes;
  // nullptr if none can be made (no context, OpenSSL's failure).
  SSL* new_client_ssl() const;

 private:
  SSL_CTX* ctx_ = nullptr;
  SSL_CTX* client_ctx_ = nullptr;  // nullptr: the client side uses ctx_
};

// OpenSSL's first queued error as text ("error:0A000086:SSL routines::
// certificate verify failed"), emptying the queue; "" if none.
std::string tls_error_text();

}  // namespace lawnkv::server
