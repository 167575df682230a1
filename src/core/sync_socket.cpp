#include "core/sync_socket.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace lawnkv {

namespace {

constexpr size_t kWriteChunk = 64 * 1024;

int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// A non-blocking socket whose connect() to one of host's addresses is under
// way or done; -1 when every address failed at once.
int start_connect(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd == -1) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

std::unique_ptr<SyncSocket> SyncSocket::connect(const std::string& host, int port, int64_t timeout_ms) {
  const int fd = start_connect(host, port);
  if (fd == -1) return nullptr;
  std::unique_ptr<SyncSocket> s(new SyncSocket(fd));
  // Writable (or failed: poll reports that too) in time is enough, as in
  // Redis; a failed connection shows at the first write.
  if (!s->wait(POLLOUT, steady_ms() + timeout_ms)) return nullptr;
  const int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  return s;
}

SyncSocket::~SyncSocket() { close(fd_); }

bool SyncSocket::wait(short events, int64_t deadline_ms) {
  for (;;) {
    const int64_t left = deadline_ms - steady_ms();
    if (left <= 0) return false;
    pollfd p{.fd = fd_, .events = events, .revents = 0};
    const int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (n > 0) return true;
    if (n == -1 && errno != EINTR) return true;  // the next read or write reports it
  }
}

bool SyncSocket::write_all(std::string_view data, int64_t timeout_ms) {
  timed_out_ = false;
  while (!data.empty()) {
    std::string_view chunk = data.substr(0, kWriteChunk);
    const int64_t deadline = steady_ms() + timeout_ms;
    while (!chunk.empty()) {
      const ssize_t n = send(fd_, chunk.data(), chunk.size(), MSG_NOSIGNAL);
      if (n > 0) {
        chunk.remove_prefix(static_cast<size_t>(n));
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n == -1 && errno != EAGAIN && errno != EINTR) return false;
      if (!wait(POLLOUT, deadline)) return timed_out_ = true, false;
    }
  }
  return true;
}

bool SyncSocket::read_line(std::string& line, int64_t timeout_ms) {
  timed_out_ = false;
  const int64_t deadline = steady_ms() + timeout_ms;
  for (;;) {
    const size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      const size_t end = nl > 0 && buffer_[nl - 1] == '\r' ? nl - 1 : nl;
      line.assign(buffer_, 0, end);
      buffer_.erase(0, nl + 1);
      return true;
    }
    char chunk[4096];
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno != EAGAIN && errno != EINTR) return false;
    if (!wait(POLLIN, deadline)) return timed_out_ = true, false;
  }
}

}  // namespace lawnkv
