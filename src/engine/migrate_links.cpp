#include "engine/migrate_links.hpp"

#include <cstdlib>

namespace lawnkv {

namespace {

std::string link_name(const std::string& host, const std::string& port) { return host + ":" + port; }

}  // namespace

MigrateLinks::Link* MigrateLinks::get(const std::string& host, const std::string& port, int64_t now_ms,
                                      int64_t timeout_ms) {
  close_idle(now_ms);
  const std::string name = link_name(host, port);
  if (auto it = links_.find(name); it != links_.end()) {
    it->second.last_use_ms = now_ms;
    return &it->second;
  }
  if (links_.size() >= kMaxLinks) {
    auto oldest = links_.begin();
    for (auto it = links_.begin(); it != links_.end(); ++it)
      if (it->second.last_use_ms < oldest->second.last_use_ms) oldest = it;
    links_.erase(oldest);
  }
  // As Redis's atoi of the port: what does not parse connects to port 0.
  std::unique_ptr<SyncSocket> socket = SyncSocket::connect(host, std::atoi(port.c_str()), timeout_ms);
  if (!socket) return nullptr;
  Link& link = links_[name];
  link.socket = std::move(socket);
  link.last_use_ms = now_ms;
  return &link;
}

void MigrateLinks::close(const std::string& host, const std::string& port) { links_.erase(link_name(host, port)); }

void MigrateLinks::close_idle(int64_t now_ms) {
  for (auto it = links_.begin(); it != links_.end();) {
    if (now_ms - it->second.last_use_ms > kIdleCloseMs) it = links_.erase(it);
    else ++it;
  }
}

}  // namespace lawnkv
