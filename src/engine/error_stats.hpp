#pragma once
// INFO's error statistics, as Redis 7.0 keeps them (afterErrorReply): every
// error reply counts once in total_error_replies and once under its code,
// the text up to the first space when that comes within its first 31 bytes
// ("WRONGTYPE", "EXECABORT"), else "ERR". Errors of a muted reply (CLIENT
// REPLY OFF) count too. INFO errorstats lists the codes in byte order
// (Redis keeps them in a rax): errorstat_ERR:count=3.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "resp/writer.hpp"

namespace lawnkv {

class ErrorStats final : public resp::ErrorObserver {
 public:
  void on_error_reply(std::string_view text) override;
  uint64_t total() const { return total_; }
  const std::map<std::string, uint64_t, std::less<>>& by_code() const { return by_code_; }
  // CONFIG RESETSTAT.
  void reset() {
    total_ = 0;
    by_code_.clear();
  }

 private:
  uint64_t total_ = 0;
  std::map<std::string, uint64_t, std::less<>> by_code_;
};

}  // namespace lawnkv
