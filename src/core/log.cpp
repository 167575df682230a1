#include "core/log.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace lawnkv {

void Logger::configure(std::string_view level, const std::string& path) {
  if (level == "debug") min_ = LogLevel::kDebug;
  else if (level == "verbose") min_ = LogLevel::kVerbose;
  else if (level == "warning") min_ = LogLevel::kWarning;
  else min_ = LogLevel::kNotice;
  path_ = path;
}

void Logger::log(LogLevel level, std::string_view text) const {
  if (level < min_) return;
  static constexpr char kMarks[] = {'.', '-', '*', '#'};
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm t;
  localtime_r(&tv.tv_sec, &t);
  char stamp[64];
  const size_t n = strftime(stamp, sizeof(stamp), "%d %b %Y %H:%M:%S", &t);
  snprintf(stamp + n, sizeof(stamp) - n, ".%03d", static_cast<int>(tv.tv_usec / 1000));
  FILE* f = path_.empty() ? stdout : fopen(path_.c_str(), "a");
  if (!f) return;
  fprintf(f, "%d:M %s %c %.*s\n", static_cast<int>(getpid()), stamp, kMarks[static_cast<int>(level)],
          static_cast<int>(text.size()), text.data());
  if (f == stdout) fflush(f);
  else fclose(f);
}

}  // namespace lawnkv
