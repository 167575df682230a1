#pragma once
// One connection's TLS: an OpenSSL SSL that never touches the socket. It
// reads ciphertext from a memory BIO the connection fills with what the
// socket gave (feed) and writes ciphertext to another the connection
// drains to the socket (seal), so TLS runs on the same non-blocking libuv
// stream as plain TCP and the loop never waits on OpenSSL:
//
//   socket --read--> feed() --rbio--> SSL --read()--> query buffer
//   out_ (replies) --seal()--> SSL --wbio--> wire() --write--> socket
//
// The handshake happens inside read(): a ClientHello fed in produces the
// server's flight in wbio, which the next seal() hands out with whatever
// else is pending. On the client side (a connect-state SSL: the replica's
// link) the first read(), with nothing fed, writes the ClientHello. Replies are sealed only once the handshake is done
// (before, seal() leaves the plaintext where it is).

#include <openssl/ssl.h>

#include <string>

namespace lawnkv::server {

class TlsSession {
 public:
  // Takes ownership of ssl (accept or connect state; not null).
  explicit TlsSession(SSL* ssl);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // Where the socket's next read of ciphertext goes, and how much of it.
  char* read_room() { return read_room_; }
  static constexpr size_t kReadRoom = 16 * 1024;
  // Ciphertext the socket gave.
  void feed(const char* data, size_t n);
  // The socket reached its end: the next read() reports what OpenSSL makes
  // of it (mid-handshake: "unexpected eof while reading").
  void feed_eof() { BIO_set_mem_eof_return(rbio_, 0); }

  // Decrypts up to n bytes into dst. > 0: bytes of plaintext; 0: nothing
  // until more ciphertext comes (the handshake may have moved on); -1: the
  // peer closed the session or it failed (error() says why, "" for a clean
  // close).
  long read(char* dst, size_t n);
  const std::string& error() const { return error_; }
  bool handshake_done() const { return SSL_is_init_finished(ssl_) == 1; }
  // Ciphertext waits to be sent (handshake records, alerts, tickets).
  bool has_output() const { return BIO_ctrl_pending(wbio_) > 0; }

  // Encrypts plain (then empties it) once the handshake is done, and
  // returns every byte of ciphertext pending, in order, to be written to
  // the socket (the caller may swap it out or clear it).
  std::string& seal(std::string& plain);

 private:
  SSL* ssl_;
  BIO* rbio_;  // owned by ssl_
  BIO* wbio_;  // owned by ssl_
  std::string wire_;
  std::string error_;
  char read_room_[kReadRoom];
};

}  // namespace lawnkv::server
