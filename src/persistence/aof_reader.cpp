#include "persistence/aof_reader.hpp"

#include <algorithm>

namespace lawnkv::persistence {

namespace {

// Redis's limits for a loaded command: as many arguments and as long a bulk
// as a client may send (proto-max-bulk-len's ceiling).
constexpr int64_t kMaxArgs = 2147483647;
constexpr int64_t kMaxBulk = int64_t{1} << 40;

}  // namespace

bool AofReader::read_exact(char* out, size_t n) {
  const size_t got = std::fread(out, 1, n, f_);
  offset_ += got;
  return got == n;
}

bool AofReader::read_header(char prefix, int64_t max, int64_t* value, bool* eof) {
  *eof = false;
  int c = std::fgetc(f_);
  if (c == EOF) {
    *eof = true;
    return false;
  }
  ++offset_;
  if (c != prefix) return false;
  int64_t v = 0;
  int digits = 0;
  for (;;) {
    c = std::fgetc(f_);
    if (c == EOF) {
      *eof = true;
      return false;
    }
    ++offset_;
    if (c == '\r') break;
    if (c < '0' || c > '9' || digits >= 18) return false;
    v = v * 10 + (c - '0');
    ++digits;
  }
  c = std::fgetc(f_);
  if (c == EOF) {
    *eof = true;
    return false;
  }
  ++offset_;
  if (c != '\n' || digits == 0 || v > max) return false;
  *value = v;
  return true;
}

AofReader::Status AofReader::corrupt(const std::string& why) {
  error_ = why + " at offset " + std::to_string(offset_);
  return Status::kCorrupt;
}

AofReader::Status AofReader::next(std::vector<std::string>* argv) {
  argv->clear();
  int64_t n;
  bool eof;
  if (!read_header('*', kMaxArgs, &n, &eof)) {
    if (eof && offset_ == good_) return Status::kEnd;
    return eof ? Status::kTruncated : corrupt("Bad file format reading the append only file (not a command)");
  }
  if (n < 1) return corrupt("Bad file format reading the append only file (empty command)");
  argv->reserve(static_cast<size_t>(std::min<int64_t>(n, 1024)));
  for (int64_t i = 0; i < n; ++i) {
    int64_t len;
    if (!read_header('$', kMaxBulk, &len, &eof))
      return eof ? Status::kTruncated : corrupt("Bad file format reading the append only file (bulk length)");
    // Grown as the bytes arrive: a length that a damaged file overstates
    // costs no more memory than the file holds.
    std::string arg;
    for (size_t left = static_cast<size_t>(len); left > 0;) {
      const size_t chunk = std::min<size_t>(left, size_t{1} << 20);
      const size_t at = arg.size();
      arg.resize(at + chunk);
      if (!read_exact(arg.data() + at, chunk)) return Status::kTruncated;
      left -= chunk;
    }
    char crlf[2];
    if (!read_exact(crlf, 2)) return Status::kTruncated;
    if (crlf[0] != '\r' || crlf[1] != '\n')
      return corrupt("Bad file format reading the append only file (bulk not ended by CRLF)");
    argv->push_back(std::move(arg));
  }
  good_ = offset_;
  return Status::kCommand;
}

}  // namespace lawnkv::persistence
