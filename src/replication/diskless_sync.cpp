#include "replication/diskless_sync.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "durability/snapshots.hpp"

namespace lawnkv::replication {

namespace {

// The pipe holds this much, so the child writes in large steps and the
// parent reads in few calls (Linux's default limit for an unprivileged
// F_SETPIPE_SZ; a smaller pipe only means more reads).
constexpr int kPipeBytes = 1 << 20;

std::string random_mark() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string mark(DisklessSync::kMarkLen, '0');
  for (char& c : mark) c = kHex[rd() % 16];
  return mark;
}

}  // namespace

std::string DisklessSync::start(ServerState& server) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::string("Can't create the pipe for the diskless sync: ") + std::strerror(errno);
  // Only the parent's end is non-blocking: the child writes and waits.
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  ::fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes);
  mark_ = random_mark();
  const Snapshots::Bg bg = server.snapshots().start_bgsave_to_fd(server, fds[1]);
  ::close(fds[1]);
  if (bg != Snapshots::Bg::kStarted) {
    ::close(fds[0]);
    return "Can't start the child for the diskless sync";
  }
  fd_ = fds[0];
  if (watcher_) watcher_->watch(fd_);
  return {};
}

DisklessSync::Read DisklessSync::read(std::string* out, size_t max) {
  out->resize(max);
  while (fd_ >= 0) {
    const ssize_t n = ::read(fd_, out->data(), max);
    if (n > 0) {
      out->resize(static_cast<size_t>(n));
      relayed_ += static_cast<uint64_t>(n);
      return Read::kData;
    }
    if (n < 0 && errno == EINTR) continue;
    out->clear();
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Read::kEmpty;
    close();
    return n == 0 ? Read::kEof : Read::kError;
  }
  out->clear();
  return Read::kError;
}

void DisklessSync::close() {
  if (fd_ < 0) return;
  if (watcher_) watcher_->unwatch();
  ::close(fd_);
  fd_ = -1;
}

}  // namespace lawnkv::replication
