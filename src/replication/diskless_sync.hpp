#pragma once
// The primary's side of a diskless full sync (repl-diskless-sync yes), as
// Redis 7.0's rdbSaveToSlavesSockets: a forked child writes the snapshot
// into a pipe, and the parent relays what it reads from the pipe to every
// replica of the batch, framed as
//
//   $EOF:<40 random hex chars>\r\n <the RDB image> <the same 40 chars>
//
// (sync_payload.hpp reads that form on a replica). The size is not known
// in advance, hence the mark. The parent never blocks: the pipe's read end
// is non-blocking, and Primary reads it only while every replica of the
// batch has room in its output (a slow replica slows the batch, as in
// Redis, and a replica that goes leaves the others alone). When the last
// replica of the batch is gone the read end is closed: the child's next
// write fails and it ends.
//
// The end: the pipe at EOF and the child exited well (Snapshots' listener).
// Only then does the mark go out; a child that failed leaves the replicas
// without one, and the primary closes their links.

#include <cstddef>
#include <string>

#include "engine/server_state.hpp"

namespace lawnkv::replication {

// The loop's watch on the pipe (the server's, server/pipe_watch.hpp): it
// wakes the loop when the child wrote, so the relay needs no timer. The
// descriptor is closed only after unwatch(), so the loop never polls a
// closed (or reused) descriptor.
class PipeWatcher {
 public:
  virtual void watch(int fd) = 0;
  virtual void unwatch() = 0;

 protected:
  ~PipeWatcher() = default;
};

class DisklessSync {
 public:
  static constexpr size_t kMarkLen = 40;

  // watcher: may be null (no loop: the relay is driven by before_sleep).
  explicit DisklessSync(PipeWatcher* watcher) : watcher_(watcher) {}
  ~DisklessSync() { close(); }
  DisklessSync(const DisklessSync&) = delete;
  DisklessSync& operator=(const DisklessSync&) = delete;

  // Makes the pipe and forks the child that writes into it. "" or why not.
  std::string start(ServerState& server);
  // "$EOF:<mark>\r\n", what a replica of the batch hears before the image.
  std::string header() const { return "$EOF:" + mark_ + "\r\n"; }
  // What ends the payload.
  const std::string& mark() const { return mark_; }

  enum class Read { kData, kEmpty, kEof, kError };
  // Reads up to max bytes the child wrote into *out (replaced); kEmpty: none
  // now; kEof: the child closed its end (the pipe is closed here then).
  Read read(std::string* out, size_t max);
  // The pipe's read end while open (-1 after EOF or close()), for the loop
  // to wake when the child wrote more.
  int fd() const { return fd_; }
  bool pipe_open() const { return fd_ >= 0; }
  // Closes the read end: the child's next write fails (EPIPE) and it ends.
  void close();
  // The watcher is going (the server's shutdown): no more calls to it.
  void forget_watcher() { watcher_ = nullptr; }

  // The child ended (well or not); the transfer is over once the pipe is
  // at EOF too.
  void child_exited(bool ok) {
    child_exited_ = true;
    child_ok_ = ok;
  }
  bool child_exited() const { return child_exited_; }
  bool child_ok() const { return child_ok_; }
  uint64_t relayed() const { return relayed_; }

 private:
  PipeWatcher* watcher_;
  int fd_ = -1;
  std::string mark_;
  bool child_exited_ = false;
  bool child_ok_ = false;
  uint64_t relayed_ = 0;  // image bytes read from the pipe
};

}  // namespace lawnkv::replication
