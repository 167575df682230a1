#include "persistence/aof_writer.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

namespace lawnkv::persistence {

AofWriter::AofWriter() : syncer_([this] { sync_loop(); }) {}

AofWriter::~AofWriter() {
  close();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  syncer_.join();
}

std::string AofWriter::open(const std::string& path) {
  close();
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return "Can't open the append-only file " + path + ": " + std::strerror(errno);
  struct stat st;
  const uint64_t size = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  std::lock_guard<std::mutex> lock(mu_);
  fd_ = fd;
  size_ = size;
  return "";
}

void AofWriter::close() {
  if (fd_ < 0) return;
  flush();
  sync();
  std::lock_guard<std::mutex> lock(mu_);
  ::close(fd_);
  fd_ = -1;
  dirty_ = false;
}

bool AofWriter::flush() {
  if (fd_ < 0 || buf_.empty()) return true;
  size_t done = 0;
  while (done < buf_.size()) {
    const ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      last_write_ok_ = false;
      last_error_ = std::strerror(errno);
      buf_.erase(0, done);
      size_ += done;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  size_ += done;
  buf_.clear();
  last_write_ok_ = true;
  if (policy_ == FsyncPolicy::kAlways) {
    ::fdatasync(fd_);
  } else if (policy_ == FsyncPolicy::kEverySec) {
    dirty_ = true;
  }
  return true;
}

void AofWriter::sync() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) ::fdatasync(fd_);
  dirty_ = false;
}

void AofWriter::sync_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::seconds(1));
    if (stopping_) break;
    if (dirty_.exchange(false) && fd_ >= 0) ::fdatasync(fd_);
  }
}

}  // namespace lawnkv::persistence
