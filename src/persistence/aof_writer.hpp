#pragma once
// The open increment file of an append-only file, and its fsync policy
// (appendfsync):
//   always    flush() writes what was appended and fdatasyncs before it
//             returns: the caller sends the replies of those writes after.
//             One flush per event-loop iteration groups every write of the
//             iteration behind one fdatasync.
//   everysec  flush() writes; a background thread fdatasyncs at most once a
//             second when something was written since (Redis's bio thread):
//             a power failure loses about a second of writes.
//   no        flush() writes; the kernel decides when the data reaches disk.
// A failed write keeps the bytes for the next flush (last_write_ok() says so).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace lawnkv::persistence {

enum class FsyncPolicy { kAlways, kEverySec, kNo };

class AofWriter {
 public:
  AofWriter();
  ~AofWriter();
  AofWriter(const AofWriter&) = delete;
  AofWriter& operator=(const AofWriter&) = delete;

  // Appends to path (created if missing), after syncing and closing the file
  // open before. "" or why it failed.
  std::string open(const std::string& path);
  // Writes what is buffered, syncs and closes.
  void close();
  bool is_open() const { return fd_ >= 0; }

  void set_policy(FsyncPolicy p) { policy_ = p; }
  FsyncPolicy policy() const { return policy_; }

  void append(std::string_view bytes) { buf_.append(bytes); }
  size_t buffered() const { return buf_.size(); }
  // Writes the buffer (and fdatasyncs under kAlways). False on an error.
  bool flush();
  // fdatasync now, whatever the policy (a rewrite's switch, shutdown).
  void sync();

  // Bytes in the file (its size when opened, plus what was written since).
  uint64_t file_size() const { return size_; }
  bool last_write_ok() const { return last_write_ok_; }
  const std::string& last_error() const { return last_error_; }
  // everysec: a sync is waiting for the background thread (INFO aof_pending_bio_fsync).
  bool sync_pending() const { return dirty_.load(); }

 private:
  void sync_loop();

  int fd_ = -1;
  FsyncPolicy policy_ = FsyncPolicy::kEverySec;
  std::string buf_;
  uint64_t size_ = 0;
  bool last_write_ok_ = true;
  std::string last_error_;

  // everysec: the thread syncs fd_ once a second while dirty_; mu_ keeps
  // open/close from swapping fd_ under it.
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> dirty_{false};
  bool stopping_ = false;
  std::thread syncer_;
};

}  // namespace lawnkv::persistence
