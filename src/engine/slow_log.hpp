#pragma once
// The slow log (Redis's slowlog.c): commands that ran for at least
// slowlog-log-slower-than microseconds, newest first, at most
// slowlog-max-len of them. Each entry keeps what SLOWLOG GET answers: a
// running id, the Unix time in seconds, the duration in microseconds, the
// arguments (at most 32, the last saying "... (N more arguments)"; each at
// most 128 bytes, then "... (N more bytes)"), the client's address and name.

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lawnkv {

struct SlowLogEntry {
  uint64_t id = 0;
  int64_t time_s = 0;
  int64_t duration_us = 0;
  std::vector<std::string> argv;
  std::string peer;  // "127.0.0.1:52546"
  std::string name;  // CLIENT SETNAME, or ""
};

class SlowLog {
 public:
  static constexpr size_t kMaxArgs = 32;
  static constexpr size_t kMaxString = 128;

  // Whether a command that ran duration_us is logged: slower_than_us < 0
  // turns the log off, 0 logs every command.
  static bool wanted(int64_t duration_us, int64_t slower_than_us) {
    return slower_than_us >= 0 && duration_us >= slower_than_us;
  }
  // Logs a command (newest first), then drops the oldest past max_len.
  void push(std::span<const std::string_view> argv, int64_t duration_us, int64_t time_s, std::string peer,
            std::string name, int64_t max_len);
  // Drops the oldest past max_len (CONFIG SET slowlog-max-len takes effect
  // at the next push, as in Redis).
  void trim(int64_t max_len);
  void reset() { entries_.clear(); }
  const std::deque<SlowLogEntry>& entries() const { return entries_; }

 private:
  std::deque<SlowLogEntry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

}  // namespace lawnkv
