#pragma once
// Server log lines in redis-server's shape: "pid:M dd Mon yyyy hh:mm:ss.mmm * text".
// Levels as Redis's loglevel: debug, verbose, notice, warning.

#include <string>
#include <string_view>

namespace lawnkv {

enum class LogLevel { kDebug, kVerbose, kNotice, kWarning };

class Logger {
 public:
  // path "" logs to stdout.
  void configure(std::string_view level, const std::string& path);
  void log(LogLevel level, std::string_view text) const;

 private:
  LogLevel min_ = LogLevel::kNotice;
  std::string path_;
};

}  // namespace lawnkv
