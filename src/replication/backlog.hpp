#pragma once
// The replication backlog (Redis's repl-backlog-size): the last bytes of the
// replication stream, so a replica that lost its link for a while can go on
// from where it stopped (PSYNC's partial resynchronisation) instead of
// loading a whole snapshot again.
//
// A ring of `size` bytes. Offsets are the stream's, as PSYNC counts them:
// the stream's first byte has offset 1, and master_repl_offset is the offset
// of the last byte fed. The backlog holds the bytes of offsets
// [first_byte_offset, first_byte_offset + histlen), histlen <= size.
//
// Worked example: size 4, created when master_repl_offset was 10 (first
// byte offset 11). Feeding "abc" holds offsets 11..13 (histlen 3); feeding
// "de" drops 'a': offsets 12..15 ("bcde"), histlen 4. A replica that has
// processed up to offset 13 asks for 14 and gets "de"; one that asks for 11
// is past the history and needs a full resynchronisation.

#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::replication {

class Backlog {
 public:
  // An empty backlog whose first byte will be the stream's offset next_offset.
  Backlog(uint64_t size, int64_t next_offset);

  void append(std::string_view bytes);
  // Whether offset (the first byte a replica wants) can be served: within
  // the history, or just past it (nothing to send yet).
  bool covers(int64_t offset) const {
    return offset >= first_byte_offset_ && offset <= first_byte_offset_ + static_cast<int64_t>(histlen_);
  }
  // Appends the bytes from offset to the end to out; covers(offset) must hold.
  void copy_from(int64_t offset, std::string& out) const;

  // repl-backlog-size changed: keeps the newest min(histlen, size) bytes.
  void resize(uint64_t size);

  uint64_t size() const { return buf_.size(); }
  uint64_t histlen() const { return histlen_; }
  int64_t first_byte_offset() const { return first_byte_offset_; }
  // Memory it holds (INFO memory's mem_replication_backlog).
  uint64_t memory_bytes() const { return buf_.capacity(); }

 private:
  std::string buf_;     // the ring; its size is the backlog's size
  size_t next_ = 0;     // where the next byte goes
  uint64_t histlen_ = 0;
  int64_t first_byte_offset_;
};

}  // namespace lawnkv::replication
