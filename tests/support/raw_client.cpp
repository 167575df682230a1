#include "raw_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "escape.hpp"
#include "net.hpp"
#include "resp_encode.hpp"
#include "resp_reply.hpp"

namespace lawnkv::test {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 256 * 1024;

// Milliseconds left until deadline, for poll(); never negative.
int poll_timeout(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count()) + 1;
}

}  // namespace

RawClient::RawClient(uint16_t port, std::chrono::milliseconds timeout)
    : port_(port), timeout_(timeout) {
  fd_ = connect_loopback(port);
  if (fd_ < 0) {
    throw std::runtime_error("RawClient: cannot connect to 127.0.0.1:" + std::to_string(port) +
                             ": " + std::strerror(errno));
  }
}

RawClient::~RawClient() { close(); }

RawClient::RawClient(RawClient&& other) noexcept { *this = std::move(other); }

RawClient& RawClient::operator=(RawClient&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    port_ = other.port_;
    timeout_ = other.timeout_;
    in_ = std::move(other.in_);
    in_pos_ = other.in_pos_;
    peer_closed_ = other.peer_closed_;
    other.fd_ = -1;
    other.in_pos_ = 0;
  }
  return *this;
}

void RawClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void RawClient::send(std::string_view bytes) {
  if (fd_ < 0) throw ConnectionClosed("RawClient: send on a closed client");
  auto deadline = Clock::now() + timeout_;
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      int ready = ::poll(&p, 1, poll_timeout(deadline));
      if (ready == 0 && Clock::now() >= deadline) {
        throw Timeout("RawClient: server took no bytes for " + std::to_string(timeout_.count()) +
                      " ms (" + std::to_string(bytes.size()) + " left to send)");
      }
      continue;
    }
    throw ConnectionClosed(std::string("RawClient: send failed: ") + std::strerror(errno));
  }
}

bool RawClient::fill(Clock::time_point deadline) {
  char chunk[kReadChunk];
  for (;;) {
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      if (in_pos_ > 0 && in_pos_ >= in_.size() / 2) {
        in_.erase(0, in_pos_);
        in_pos_ = 0;
      }
      in_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n == 0) {
      peer_closed_ = true;
      return true;
    }
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) {
      peer_closed_ = true;
      return true;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      throw std::runtime_error(std::string("RawClient: recv failed: ") + std::strerror(errno));
    }
    pollfd p{fd_, POLLIN, 0};
    int ready = ::poll(&p, 1, poll_timeout(deadline));
    if (ready == 0 && Clock::now() >= deadline) return false;
  }
}

std::string RawClient::read_reply() {
  auto deadline = Clock::now() + timeout_;
  for (;;) {
    std::string_view pending = std::string_view(in_).substr(in_pos_);
    if (size_t len = reply_length(pending); len > 0) {
      std::string reply(pending.substr(0, len));
      in_pos_ += len;
      return reply;
    }
    if (peer_closed_ || fd_ < 0) {
      throw ConnectionClosed("RawClient: connection closed" +
                             (pending.empty() ? std::string(" before a reply")
                                              : " in the middle of a reply: " + escape_bytes(pending)));
    }
    if (!fill(deadline)) {
      throw Timeout("RawClient: no complete reply within " + std::to_string(timeout_.count()) +
                    " ms" + (pending.empty() ? std::string() : "; have " + escape_bytes(pending)));
    }
  }
}

std::string RawClient::read_exactly(size_t n) {
  auto deadline = Clock::now() + timeout_;
  while (in_.size() - in_pos_ < n) {
    if (peer_closed_ || fd_ < 0) throw ConnectionClosed("RawClient: connection closed before " + std::to_string(n) + " bytes");
    if (!fill(deadline)) throw Timeout("RawClient: no " + std::to_string(n) + " bytes within " + std::to_string(timeout_.count()) + " ms");
  }
  std::string out = in_.substr(in_pos_, n);
  in_pos_ += n;
  return out;
}

std::string RawClient::call(std::span<const std::string> argv) {
  send(encode_command(argv));
  return read_reply();
}

std::string RawClient::call(std::initializer_list<std::string_view> argv) {
  send(encode_command(argv));
  return read_reply();
}

bool RawClient::wait_closed() {
  if (fd_ < 0) return true;
  auto deadline = Clock::now() + timeout_;
  while (!peer_closed_) {
    if (has_buffered_bytes()) return false;
    if (!fill(deadline)) return false;
  }
  return !has_buffered_bytes();
}

bool RawClient::wait_closed_discarding() {
  if (fd_ < 0) return true;
  auto deadline = Clock::now() + timeout_;
  while (!peer_closed_) {
    in_.clear();
    in_pos_ = 0;
    if (!fill(deadline)) return false;
  }
  return true;
}

}  // namespace lawnkv::test
