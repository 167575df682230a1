#pragma once
// A TCP connection used synchronously, each step bounded by a timeout, as
// Redis's connBlockingConnect and syncio.c: MIGRATE talks to its target
// this way, holding the event loop for at most the timeout per step.
//
// Redis's ways are kept where a client can see them: connect() waits for
// the socket to become writable and does not ask whether the connection
// succeeded (a refused connection shows as a failed write, so MIGRATE to a
// closed port answers "error or timeout writing"); a write goes out in
// chunks of 64 KiB, each with the whole timeout; a line read has the whole
// timeout.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace lawnkv {

class SyncSocket {
 public:
  // Connects to host (a name or an address) at port within timeout_ms;
  // nullptr when no address of host could be connected to in time.
  static std::unique_ptr<SyncSocket> connect(const std::string& host, int port, int64_t timeout_ms);

  ~SyncSocket();
  SyncSocket(const SyncSocket&) = delete;
  SyncSocket& operator=(const SyncSocket&) = delete;

  // Writes all of data, each 64 KiB chunk within timeout_ms. False on an
  // error or a timeout (timed_out() says which).
  bool write_all(std::string_view data, int64_t timeout_ms);
  // Reads one line within timeout_ms into line, without its "\r\n" (or
  // "\n"). False on an error, the peer closing, or a timeout.
  bool read_line(std::string& line, int64_t timeout_ms);
  // Whether the last failed step ran out of time (Redis retries a MIGRATE
  // once after an error, never after a timeout).
  bool timed_out() const { return timed_out_; }

 private:
  explicit SyncSocket(int fd) : fd_(fd) {}
  // Waits until fd_ is ready for events (POLLIN or POLLOUT) or the
  // deadline (steady clock, ms) passes; false on timeout.
  bool wait(short events, int64_t deadline_ms);

  int fd_;
  std::string buffer_;  // read but not yet returned as a line
  bool timed_out_ = false;
};

}  // namespace lawnkv
