#pragma once
// Reads the commands of an append-only file: each a RESP array of bulk
// strings ("*<n>\r\n" then n times "$<len>\r\n<bytes>\r\n"), as Redis
// writes and reads them; nothing else is allowed (Redis's loadSingleAppendOnlyFile
// is as strict).
//
// A file that ends inside a command was cut by a crash mid-write: next()
// says kTruncated and good_bytes() is where the last whole command ended,
// for the caller to cut the file there (aof-load-truncated). Anything else
// that is not a command is kCorrupt, with the offset in error().

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace lawnkv::persistence {

class AofReader {
 public:
  enum class Status { kCommand, kEnd, kTruncated, kCorrupt };

  // Reads from f (owned by the caller) from its current position, which is
  // offset `start` of the file (for the offsets reported).
  explicit AofReader(std::FILE* f, uint64_t start = 0) : f_(f), offset_(start), good_(start) {}

  // The next command into *argv.
  Status next(std::vector<std::string>* argv);
  // Where the last whole command ended.
  uint64_t good_bytes() const { return good_; }
  const std::string& error() const { return error_; }

 private:
  // Reads "<prefix><digits>\r\n"; false at EOF (*eof) or on a malformed line.
  bool read_header(char prefix, int64_t max, int64_t* value, bool* eof);
  bool read_exact(char* out, size_t n);
  Status corrupt(const std::string& why);

  std::FILE* f_;
  uint64_t offset_;
  uint64_t good_;
  std::string error_;
};

}  // namespace lawnkv::persistence
