#include "server/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <strings.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <sstream>

namespace lawnkv::server {

namespace {

constexpr int kTlsV1 = 1 << 0;
constexpr int kTlsV1_1 = 1 << 1;
constexpr int kTlsV1_2 = 1 << 2;
constexpr int kTlsV1_3 = 1 << 3;

// tls-protocols: space-separated names, any case; -1 (logged) for another.
int parse_protocols(const std::string& text, Logger& log) {
  if (text.empty()) return kTlsV1_2 | kTlsV1_3;
  int protocols = 0;
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    if (strcasecmp(w.c_str(), "tlsv1") == 0) protocols |= kTlsV1;
    else if (strcasecmp(w.c_str(), "tlsv1.1") == 0) protocols |= kTlsV1_1;
    else if (strcasecmp(w.c_str(), "tlsv1.2") == 0) protocols |= kTlsV1_2;
    else if (strcasecmp(w.c_str(), "tlsv1.3") == 0) protocols |= kTlsV1_3;
    else {
      log.log(LogLevel::kWarning,
              "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
      return -1;
    }
  }
  return protocols;
}

// Hands OpenSSL the key's passphrase (userdata: the std::string, alive
// while the key is read).
int password_callback(char* buf, int size, int, void* userdata) {
  const auto* pass = static_cast<const std::string*>(userdata);
  if (pass == nullptr || pass->size() > static_cast<size_t>(size)) return -1;
  std::memcpy(buf, pass->data(), pass->size());
  return static_cast<int>(pass->size());
}

struct CtxDeleter {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using CtxPtr = std::unique_ptr<SSL_CTX, CtxDeleter>;

// What both sides' contexts share (Redis's createSSLContext): protocols,
// certificate and key, CA, ciphers. nullptr (logged) on a failure.
CtxPtr base_context(const config::Values& v, int protocols, bool client, Logger& log) {
  const std::string& cert = client ? v.tls_client_cert_file : v.tls_cert_file;
  const std::string& key = client ? v.tls_client_key_file : v.tls_key_file;
  const std::string& pass = client ? v.tls_client_key_file_pass : v.tls_key_file_pass;
  CtxPtr ctx(SSL_CTX_new(TLS_method()));
  if (!ctx) {
    log.log(LogLevel::kWarning, "Failed to create TLS context: " + tls_error_text());
    return nullptr;
  }
  SSL_CTX* c = ctx.get();
  SSL_CTX_set_options(c, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_DONT_INSERT_EMPTY_FRAGMENTS |
                             SSL_OP_NO_COMPRESSION);
  if (!(protocols & kTlsV1)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1);
  if (!(protocols & kTlsV1_1)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1_1);
  if (!(protocols & kTlsV1_2)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1_2);
  if (!(protocols & kTlsV1_3)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1_3);
  // Memory BIOs never refuse a write: SSL_write takes a whole reply. The
  // buffer a write came from may move between calls (a growing string).
  SSL_CTX_set_mode(c, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_default_passwd_cb(c, password_callback);
  SSL_CTX_set_default_passwd_cb_userdata(c, pass.empty() ? nullptr : const_cast<std::string*>(&pass));
  const bool cert_ok = SSL_CTX_use_certificate_chain_file(c, cert.c_str()) > 0;
  if (!cert_ok) {
    log.log(LogLevel::kWarning, "Failed to load certificate: " + cert + ": " + tls_error_text());
  } else if (SSL_CTX_use_PrivateKey_file(c, key.c_str(), SSL_FILETYPE_PEM) <= 0) {
    log.log(LogLevel::kWarning, "Failed to load private key: " + key + ": " + tls_error_text());
  }
  // The passphrase is not kept past loading.
  SSL_CTX_set_default_passwd_cb_userdata(c, nullptr);
  if (!cert_ok || SSL_CTX_check_private_key(c) != 1) {
    ERR_clear_error();
    return nullptr;
  }
  const bool has_ca = !v.tls_ca_cert_file.empty() || !v.tls_ca_cert_dir.empty();
  if (has_ca && SSL_CTX_load_verify_locations(c, v.tls_ca_cert_file.empty() ? nullptr : v.tls_ca_cert_file.c_str(),
                                              v.tls_ca_cert_dir.empty() ? nullptr : v.tls_ca_cert_dir.c_str()) <= 0) {
    log.log(LogLevel::kWarning, "Failed to configure CA certificate(s) file/directory: " + tls_error_text());
    return nullptr;
  }
  if (!v.tls_ciphers.empty() && !SSL_CTX_set_cipher_list(c, v.tls_ciphers.c_str())) {
    log.log(LogLevel::kWarning, "Failed to configure ciphers: " + v.tls_ciphers);
    ERR_clear_error();
    return nullptr;
  }
  if (!v.tls_ciphersuites.empty() && !SSL_CTX_set_ciphersuites(c, v.tls_ciphersuites.c_str())) {
    log.log(LogLevel::kWarning, "Failed to configure ciphersuites: " + v.tls_ciphersuites);
    ERR_clear_error();
    return nullptr;
  }
  return ctx;
}

// tls-dh-params-file into ctx; false (logged) if it cannot be read.
bool load_dh_params(SSL_CTX* ctx, const std::string& path, Logger& log) {
  BIO* file = BIO_new_file(path.c_str(), "r");
  if (file == nullptr) {
    log.log(LogLevel::kWarning, "Failed to load " + path + ": " + std::strerror(errno));
    ERR_clear_error();
    return false;
  }
  EVP_PKEY* params = PEM_read_bio_Parameters(file, nullptr);
  BIO_free(file);
  if (params == nullptr) {
    log.log(LogLevel::kWarning, path + ": failed to read DH params.");
    ERR_clear_error();
    return false;
  }
  if (SSL_CTX_set0_tmp_dh_pkey(ctx, params) <= 0) {  // owns params on success
    log.log(LogLevel::kWarning, "Failed to load DH params file: " + path + ": " + tls_error_text());
    EVP_PKEY_free(params);
    return false;
  }
  return true;
}

}  // namespace

std::string tls_error_text() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return {};
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

TlsContext::~TlsContext() {
  SSL_CTX_free(ctx_);
  SSL_CTX_free(client_ctx_);
}

bool TlsContext::configure(const config::Values& v, Logger& log) {
  if (v.tls_cert_file.empty()) {
    log.log(LogLevel::kWarning, "No tls-cert-file configured!");
    return false;
  }
  if (v.tls_key_file.empty()) {
    log.log(LogLevel::kWarning, "No tls-key-file configured!");
    return false;
  }
  if ((v.tls_auth_clients != "no" || v.tls_cluster || v.tls_replication) && v.tls_ca_cert_file.empty() &&
      v.tls_ca_cert_dir.empty()) {
    log.log(LogLevel::kWarning,
            "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or "
            "tls-auth-clients are enabled!");
    return false;
  }
  const int protocols = parse_protocols(v.tls_protocols, log);
  if (protocols < 0) return false;
  CtxPtr ctx = base_context(v, protocols, false, log);
  if (!ctx) return false;
  SSL_CTX* c = ctx.get();
  if (v.tls_session_caching) {
    SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(c, v.tls_session_cache_size);
    SSL_CTX_set_timeout(c, static_cast<long>(v.tls_session_cache_timeout));
    static constexpr unsigned char kSessionContext[] = {'r', 'e', 'd', 'i', 's'};
    SSL_CTX_set_session_id_context(c, kSessionContext, sizeof(kSessionContext));
  } else {
    SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_OFF);
  }
  // Client-initiated renegotiation is off by default in OpenSSL 3 (Redis
  // turns it off where the option exists).
  SSL_CTX_set_options(c, SSL_OP_SINGLE_DH_USE);
  if (v.tls_prefer_server_ciphers) SSL_CTX_set_options(c, SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (!v.tls_dh_params_file.empty()) {
    if (!load_dh_params(c, v.tls_dh_params_file, log)) return false;
  } else {
    SSL_CTX_set_dh_auto(c, 1);
  }
  // The client side, when its own files are given.
  CtxPtr client;
  if (!v.tls_client_cert_file.empty() && !v.tls_client_key_file.empty()) {
    client = base_context(v, protocols, true, log);
    if (!client) return false;
  }
  SSL_CTX_free(ctx_);
  ctx_ = ctx.release();
  SSL_CTX_free(client_ctx_);
  client_ctx_ = client.release();
  return true;
}

SSL* TlsContext::new_ssl(const std::string& auth_clients) const {
  if (ctx_ == nullptr) return nullptr;
  SSL* ssl = SSL_new(ctx_);
  if (ssl == nullptr) return nullptr;
  if (auth_clients == "no") SSL_set_verify(ssl, SSL_VERIFY_NONE, nullptr);
  else if (auth_clients == "optional") SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
  else SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_set_accept_state(ssl);
  return ssl;
}

SSL* TlsContext::new_client_ssl() const {
  SSL_CTX* ctx = client_ctx_ != nullptr ? client_ctx_ : ctx_;
  if (ctx == nullptr) return nullptr;
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return nullptr;
  // The contexts verify the peer (base_context): a primary whose
  // certificate the CA did not sign fails the handshake.
  SSL_set_connect_state(ssl);
  return ssl;
}

}  // namespace lawnkv::server
