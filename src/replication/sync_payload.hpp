#pragma once
// The snapshot a primary sends after +FULLRESYNC, as Redis 7.0's
// readSyncBulkPayload reads it, written to a file as it arrives:
//
//   \n ... \n                 keepalives while the primary prepares it (skipped)
//   $<len>\r\n<len bytes>      from a file on the primary's disk
//   $EOF:<40 bytes>\r\n<bytes><the same 40 bytes>
//                              diskless: streamed from the primary's child; the
//                              end is the mark. The primary sends nothing after
//                              it until we ACK (it puts us online then), so the
//                              mark is always the last bytes received.
//   -<error>                   the primary gave up
//
// feed() takes the bytes read; what follows the payload (the replication
// stream, disk form) is left to the caller. Pure but for the file it writes;
// with no path and a body sink (repl-diskless-load) the snapshot's bytes go
// to the sink as they come (with the mark form, the last 40 bytes received
// wait until more come: they may be the mark), no file written; with
// neither it is kept in memory and take_data() hands it over.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace lawnkv::replication {

class SyncPayload {
 public:
  static constexpr size_t kMarkLen = 40;
  enum class Status { kMore, kDone, kFailed };

  using BodySink = std::function<void(std::string_view)>;
  // Writes the payload to path (created or truncated); "" hands it to
  // sink, or keeps it in memory without one.
  explicit SyncPayload(std::string path, BodySink sink = nullptr) : path_(std::move(path)), sink_(std::move(sink)) {}
  ~SyncPayload();
  SyncPayload(const SyncPayload&) = delete;
  SyncPayload& operator=(const SyncPayload&) = delete;

  // Takes what it can of bytes; *consumed says how many it took (all of
  // them until kDone). After kDone the file is complete and closed.
  Status feed(std::string_view bytes, size_t* consumed);

  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
  // -1 until the header is read, and with the mark form (size unknown).
  int64_t size() const { return size_; }
  uint64_t received() const { return received_; }
  bool diskless() const { return !mark_.empty(); }
  bool in_memory() const { return path_.empty(); }
  // In memory, after kDone: the snapshot (the mark removed).
  std::string take_data() { return std::move(data_); }

 private:
  Status header(std::string_view line);
  Status write(std::string_view bytes);
  Status fail(std::string text);
  Status finish();

  std::string path_;
  BodySink sink_;
  std::string held_;         // sink, mark form: the last bytes, not yet passed on
  std::FILE* file_ = nullptr;
  std::string line_;         // the header line so far
  bool in_body_ = false;
  int64_t size_ = -1;        // $<len>; -1 with the mark
  std::string mark_;         // $EOF:<mark>
  std::string tail_;         // the last kMarkLen bytes written (mark form)
  std::string data_;         // in memory: the body so far
  uint64_t received_ = 0;    // body bytes so far
  std::string error_;
};

}  // namespace lawnkv::replication
