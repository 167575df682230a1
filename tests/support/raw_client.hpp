#pragma once
// A blocking test client that speaks raw bytes: send exactly what a test
// wants (partial requests, bad input, pipelines), read back exactly one
// complete reply at a time as its wire bytes. Every wait has a deadline: a
// server that does not answer fails the test with an exception instead of
// hanging it.

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lawnkv::test {

// The server closed the connection (or reset it) before the reply was whole.
struct ConnectionClosed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// No reply (or no room to send) within the client's timeout.
struct Timeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RawClient {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{10'000};

  // Connects to 127.0.0.1:port; throws std::runtime_error if it cannot.
  explicit RawClient(uint16_t port, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~RawClient();
  RawClient(RawClient&& other) noexcept;
  RawClient& operator=(RawClient&& other) noexcept;
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // Sends all of `bytes`. Throws ConnectionClosed or Timeout.
  void send(std::string_view bytes);

  // The wire bytes of the next complete reply (RESP2 or RESP3, an attribute
  // together with the reply it annotates). Bytes after it stay buffered for
  // the next call, so pipelined replies are read one by one. Throws
  // ConnectionClosed, Timeout, or RespError for bytes that are not RESP.
  std::string read_reply();

  // The next n bytes, whatever they are (a SYNC's snapshot, which ends
  // without CRLF). Throws ConnectionClosed or Timeout.
  std::string read_exactly(size_t n);

  // send(encode_command(argv)) then read_reply().
  std::string call(std::span<const std::string> argv);
  std::string call(std::initializer_list<std::string_view> argv);

  // Waits up to the timeout for the server to close the connection. True if
  // it closed; false if it is still open at the deadline or sent more bytes
  // (which stay buffered for read_reply).
  bool wait_closed();
  // The same, discarding whatever the server sends before it closes (a
  // client evicted mid-reply gets part of its replies first).
  bool wait_closed_discarding();

  // Whether the server has closed the connection (seen by a read so far).
  bool peer_closed() const { return peer_closed_; }

  // Whether bytes of a next reply are already buffered.
  bool has_buffered_bytes() const { return in_pos_ < in_.size(); }

  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  uint16_t port() const { return port_; }

  // Closes the socket now (the destructor also does).
  void close();

 private:
  // Reads what is available, waiting until `deadline` for at least one byte.
  // Returns false at the deadline; sets peer_closed_ on end of stream.
  bool fill(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  uint16_t port_ = 0;
  std::chrono::milliseconds timeout_;
  std::string in_;       // received bytes; in_[in_pos_..] not yet returned
  size_t in_pos_ = 0;
  bool peer_closed_ = false;
};

}  // namespace lawnkv::test
