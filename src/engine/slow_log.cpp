#include "engine/slow_log.hpp"

#include <utility>

namespace lawnkv {

void SlowLog::push(std::span<const std::string_view> argv, int64_t duration_us, int64_t time_s, std::string peer,
                   std::string name, int64_t max_len) {
  SlowLogEntry e;
  e.id = next_id_++;
  e.time_s = time_s;
  e.duration_us = duration_us;
  e.peer = std::move(peer);
  e.name = std::move(name);
  const size_t argc = argv.size();
  const size_t kept = argc > kMaxArgs ? kMaxArgs : argc;
  e.argv.reserve(kept);
  for (size_t j = 0; j < kept; ++j) {
    if (kept != argc && j == kept - 1) {
      e.argv.push_back("... (" + std::to_string(argc - kept + 1) + " more arguments)");
    } else if (argv[j].size() > kMaxString) {
      e.argv.push_back(std::string(argv[j].substr(0, kMaxString)) + "... (" +
                       std::to_string(argv[j].size() - kMaxString) + " more bytes)");
    } else {
      e.argv.emplace_back(argv[j]);
    }
  }
  entries_.push_front(std::move(e));
  trim(max_len);
}

void SlowLog::trim(int64_t max_len) {
  while (!entries_.empty() && static_cast<int64_t>(entries_.size()) > max_len) entries_.pop_back();
}

}  // namespace lawnkv
