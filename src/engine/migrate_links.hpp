#pragma once
// The connections MIGRATE keeps to its targets, one per "host:port" as the
// client wrote them, as Redis's migrate_cached_sockets: reused by the next
// MIGRATE to the same target (with the db it last selected there, so SELECT
// is sent only when the db changes), dropped after an error, and closed
// once unused for more than 10 s. At most 64 are kept; a new one past that
// replaces the least recently used (Redis drops one at random).
//
// Redis closes the idle ones in its cron; here the next MIGRATE closes
// them before it looks for its own, so an idle server keeps them open
// until then.

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/sync_socket.hpp"

namespace lawnkv {

class MigrateLinks {
 public:
  static constexpr size_t kMaxLinks = 64;
  static constexpr int64_t kIdleCloseMs = 10'000;

  struct Link {
    std::unique_ptr<SyncSocket> socket;
    long long last_db = -1;   // the db selected on the target; -1: unknown
    int64_t last_use_ms = 0;
  };

  // The link to host:port, connected now within timeout_ms if there is
  // none; nullptr when it cannot connect.
  Link* get(const std::string& host, const std::string& port, int64_t now_ms, int64_t timeout_ms);
  // Closes the link to host:port, if any (after an error on it).
  void close(const std::string& host, const std::string& port);
  size_t size() const { return links_.size(); }

 private:
  void close_idle(int64_t now_ms);

  std::map<std::string, Link> links_;
};

}  // namespace lawnkv
