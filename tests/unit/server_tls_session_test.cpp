// The TLS layer of a connection (server/tls_context.hpp, tls_session.hpp),
// without sockets: a client SSL on memory BIOs talks to a server session,
// the bytes carried between them by hand in pieces of any size. Certificates
// are made in the test (an EC key, self-signed, and a client certificate it
// signs).

#include <doctest/doctest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "../support/temp_dir.hpp"
#include "config/values.hpp"
#include "core/log.hpp"
#include "server/tls_context.hpp"
#include "server/tls_session.hpp"

namespace lawnkv::server {
namespace {

// A certificate for cn with key; signed by issuer (self-signed if null).
X509* make_cert(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, bool ca) {
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), ca ? 1 : 2);
  X509_gmtime_adj(X509_getm_notBefore(x), -60);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
  if (ca) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints, "critical,CA:TRUE");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256());
  return x;
}

void write_pem(const std::string& path, X509* cert) {
  FILE* f = std::fopen(path.c_str(), "w");
  PEM_write_X509(f, cert);
  std::fclose(f);
}
void write_pem(const std::string& path, EVP_PKEY* key) {
  FILE* f = std::fopen(path.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
}

// ca.crt (self-signed, also the server's certificate: server.key is its
// key) and client.crt / client.key signed by it, in a temp dir.
struct Pki {
  test::TempDir dir;
  SSL_CTX* client_ctx = nullptr;       // trusts ca, shows client.crt
  SSL_CTX* anonymous_ctx = nullptr;    // trusts ca, shows nothing
  std::string path(const char* name) const { return (dir.path / name).string(); }
  Pki() {
    EVP_PKEY* ca_key = EVP_EC_gen("P-256");
    EVP_PKEY* client_key = EVP_EC_gen("P-256");
    X509* ca = make_cert(ca_key, "lawnkv test CA", nullptr, nullptr, true);
    X509* client = make_cert(client_key, "client", ca, ca_key, false);
    write_pem(path("ca.crt"), ca);
    write_pem(path("server.key"), ca_key);
    write_pem(path("client.crt"), client);
    write_pem(path("client.key"), client_key);
    for (SSL_CTX** c : {&client_ctx, &anonymous_ctx}) {
      *c = SSL_CTX_new(TLS_client_method());
      SSL_CTX_load_verify_locations(*c, path("ca.crt").c_str(), nullptr);
      SSL_CTX_set_verify(*c, SSL_VERIFY_PEER, nullptr);
    }
    SSL_CTX_use_certificate(client_ctx, client);
    SSL_CTX_use_PrivateKey(client_ctx, client_key);
    X509_free(ca);
    X509_free(client);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(client_key);
  }
  ~Pki() {
    SSL_CTX_free(client_ctx);
    SSL_CTX_free(anonymous_ctx);
  }
  config::Values values(const char* auth_clients) const {
    config::Values v;
    v.tls_port = 6380;
    v.tls_cert_file = path("ca.crt");
    v.tls_key_file = path("server.key");
    v.tls_ca_cert_file = path("ca.crt");
    v.tls_auth_clients = auth_clients;
    return v;
  }
};

// A client SSL on memory BIOs and the server session it talks to; pump()
// carries what each side wrote to the other in pieces of `piece` bytes,
// the server decrypting into `received`.
struct Pair {
  SSL* client;
  BIO* c_in;   // to the client
  BIO* c_out;  // from the client
  TlsSession server;
  std::string received;
  std::string server_out;  // replies to seal
  bool server_failed = false;
  size_t piece = 1 << 20;

  Pair(SSL_CTX* client_ctx, SSL* server_ssl)
      : client(SSL_new(client_ctx)), c_in(BIO_new(BIO_s_mem())), c_out(BIO_new(BIO_s_mem())), server(server_ssl) {
    BIO_set_mem_eof_return(c_in, -1);
    SSL_set_bio(client, c_in, c_out);
    SSL_set_connect_state(client);
  }
  ~Pair() { SSL_free(client); }

  // Moves bytes until neither side has anything to say.
  void pump() {
    for (int round = 0; round < 100000; ++round) {
      bool moved = false;
      SSL_do_handshake(client);
      std::string buf(piece, '\0');
      const int n = BIO_read(c_out, buf.data(), static_cast<int>(piece));
      if (n > 0 && !server_failed) {
        moved = true;
        server.feed(buf.data(), static_cast<size_t>(n));
        char plain[16384];
        for (;;) {
          const long got = server.read(plain, sizeof(plain));
          if (got < 0) server_failed = true;
          if (got <= 0) break;
          received.append(plain, static_cast<size_t>(got));
        }
      }
      std::string& wire = server.seal(server_out);
      if (!wire.empty()) {
        moved = true;
        const size_t take = std::min(wire.size(), piece);
        BIO_write(c_in, wire.data(), static_cast<int>(take));
        wire.erase(0, take);
      }
      if (!moved) return;
    }
    FAIL("pump never settled");
  }
  // What the client can read now.
  std::string client_reads() {
    std::string out;
    char buf[16384];
    int n;
    while ((n = SSL_read(client, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  void client_writes(const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      const int n = SSL_write(client, s.data() + off, static_cast<int>(std::min<size_t>(s.size() - off, 1 << 20)));
      REQUIRE(n > 0);
      off += static_cast<size_t>(n);
      pump();
    }
  }
};

Logger quiet_log(const Pki& pki) {
  Logger log;
  log.configure("warning", pki.path("server.log"));
  return log;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("tls session: handshake, then bytes both ways, in pieces of any size") {
  Pki pki;
  Logger log = quiet_log(pki);
  TlsContext ctx;
  REQUIRE(ctx.configure(pki.values("yes"), log));
  for (size_t piece : {size_t{1}, size_t{7}, size_t{1000}, size_t{1} << 20}) {
    CAPTURE(piece);
    Pair p(pki.client_ctx, ctx.new_ssl("yes"));
    p.piece = piece;
    // Nothing is sealed before the handshake: the reply waits.
    p.server_out = "early";
    p.pump();
    REQUIRE(p.server.handshake_done());
    CHECK(SSL_is_init_finished(p.client));
    p.client_writes("*1\r\n$4\r\nPING\r\n");
    CHECK(p.received == "*1\r\n$4\r\nPING\r\n");
    p.server_out += "+PONG\r\n";
    p.pump();
    CHECK(p.client_reads() == "early+PONG\r\n");
    CHECK(p.server_out.empty());
  }
}

TEST_CASE("tls session: several MB each way") {
  Pki pki;
  Logger log = quiet_log(pki);
  TlsContext ctx;
  REQUIRE(ctx.configure(pki.values("no"), log));
  Pair p(pki.anonymous_ctx, ctx.new_ssl("no"));
  p.piece = 5000;
  p.pump();
  std::string big(3 * 1024 * 1024 + 5, '\0');
  std::mt19937 rng(7);
  for (char& c : big) c = static_cast<char>(rng());
  p.client_writes(big);
  CHECK(p.received == big);
  p.server_out = big;
  p.pump();
  std::string back;
  for (int i = 0; i < 1000 && back.size() < big.size(); ++i) {
    back += p.client_reads();
    p.pump();
  }
  CHECK(back == big);
}

TEST_CASE("tls session: a client without a certificate fails under tls-auth-clients yes, passes under optional") {
  Pki pki;
  Logger log = quiet_log(pki);
  TlsContext ctx;
  REQUIRE(ctx.configure(pki.values("yes"), log));
  {
    Pair p(pki.anonymous_ctx, ctx.new_ssl("yes"));
    p.pump();
    CHECK(p.server_failed);
    CHECK(p.server.error().find("peer did not return a certificate") != std::string::npos);
  }
  {
    Pair p(pki.anonymous_ctx, ctx.new_ssl("optional"));
    p.pump();
    CHECK_FALSE(p.server_failed);
    CHECK(p.server.handshake_done());
  }
}

TEST_CASE("tls session: garbage, and an end in the middle of the handshake, fail that session only") {
  Pki pki;
  Logger log = quiet_log(pki);
  TlsContext ctx;
  REQUIRE(ctx.configure(pki.values("no"), log));
  {
    TlsSession s(ctx.new_ssl("no"));
    const std::string resp = "*1\r\n$4\r\nPING\r\n";
    s.feed(resp.data(), resp.size());
    char buf[64];
    CHECK(s.read(buf, sizeof(buf)) == -1);
    CHECK(s.error().find("wrong version number") != std::string::npos);
    std::string nothing;
    s.seal(nothing);  // the alert, if any: no crash, no plaintext
    CHECK(nothing.empty());
  }
  {
    // Half a ClientHello, then the end of the stream.
    SSL* c = SSL_new(pki.anonymous_ctx);
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(c, in, out);
    SSL_set_connect_state(c);
    SSL_do_handshake(c);
    std::string hello(BIO_ctrl_pending(out), '\0');
    BIO_read(out, hello.data(), static_cast<int>(hello.size()));
    SSL_free(c);
    TlsSession s(ctx.new_ssl("no"));
    s.feed(hello.data(), hello.size() / 2);
    char buf[64];
    CHECK(s.read(buf, sizeof(buf)) == 0);  // waits for more
    s.feed_eof();
    CHECK(s.read(buf, sizeof(buf)) == -1);
    CHECK(s.error().find("unexpected eof") != std::string::npos);
  }
  // The context serves the next client as before.
  Pair p(pki.anonymous_ctx, ctx.new_ssl("no"));
  p.pump();
  CHECK(p.server.handshake_done());
}

TEST_CASE("tls context: a configuration that fails keeps the context it had, with Redis's warnings") {
  Pki pki;
  Logger log = quiet_log(pki);
  TlsContext ctx;
  CHECK_FALSE(ctx.configured());
  config::Values v = pki.values("yes");
  v.tls_cert_file.clear();
  CHECK_FALSE(ctx.configure(v, log));
  CHECK_FALSE(ctx.configured());
  REQUIRE(ctx.configure(pki.values("yes"), log));
  v = pki.values("yes");
  v.tls_cert_file = pki.path("missing.crt");
  CHECK_FALSE(ctx.configure(v, log));
  v = pki.values("yes");
  v.tls_ca_cert_file.clear();
  CHECK_FALSE(ctx.configure(v, log));
  v = pki.values("yes");
  v.tls_protocols = "TLSv1.2 TLSv9";
  CHECK_FALSE(ctx.configure(v, log));
  v = pki.values("yes");
  v.tls_key_file = pki.path("client.key");  // not the certificate's key
  CHECK_FALSE(ctx.configure(v, log));
  v = pki.values("yes");
  v.tls_ciphersuites = "NOPE";
  CHECK_FALSE(ctx.configure(v, log));
  CHECK(ctx.configured());
  // Still the first context: it serves clients.
  Pair p(pki.client_ctx, ctx.new_ssl("yes"));
  p.pump();
  CHECK(p.server.handshake_done());
  // No CA is needed when no client certificate is asked for.
  v = pki.values("no");
  v.tls_ca_cert_file.clear();
  CHECK(ctx.configure(v, log));
  const std::string text = read_text(pki.path("server.log"));
  CHECK(text.find("No tls-cert-file configured!") != std::string::npos);
  CHECK(text.find("Failed to load certificate: " + pki.path("missing.crt")) != std::string::npos);
  CHECK(text.find("Either tls-ca-cert-file or tls-ca-cert-dir must be specified") != std::string::npos);
  CHECK(text.find("Invalid tls-protocols specified.") != std::string::npos);
  CHECK(text.find("Failed to load private key: " + pki.path("client.key")) != std::string::npos);
  CHECK(text.find("Failed to configure ciphersuites: NOPE") != std::string::npos);
}

}  // namespace
}  // namespace lawnkv::server
