#include "server/clients_cron.hpp"

#include <algorithm>

#include "server/client_limits.hpp"
#include "server/connection.hpp"
#include "server/host.hpp"

namespace lawnkv::server {

ClientsCron::ClientsCron(uv_loop_t* loop, ServerHost& server) : server_(server) {
  uv_timer_init(loop, &timer_);
  timer_.data = this;
  uv_unref(reinterpret_cast<uv_handle_t*>(&timer_));
}

void ClientsCron::arm() {
  const ServerState& st = server_.state();
  const bool work = (st.config.values().timeout > 0 && st.clients.size() > 0) || !soft_limited_.empty() ||
                    server_.query_buffers_held() > 0;
  const bool active = uv_is_active(reinterpret_cast<uv_handle_t*>(&timer_));
  if (!work) {
    if (active) uv_timer_stop(&timer_);
    return;
  }
  if (active) return;
  // One shot, started again before the next poll: a CONFIG SET hz takes
  // effect at the next tick. libuv counts from its cached loop time.
  uv_update_time(timer_.loop);
  uv_timer_start(&timer_, on_timer, static_cast<uint64_t>(1000 / st.config.values().hz), 0);
}

void ClientsCron::close() { uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr); }

void ClientsCron::on_timer(uv_timer_t* t) { static_cast<ClientsCron*>(t->data)->run(); }

void ClientsCron::run() {
  const LoopTrace::Span span(server_.loop_trace(), LoopTrace::kCron);
  ServerState& st = server_.state();
  const auto& cfg = st.config.values();
  visit_clients(st.clock.now_ms(), cfg.timeout, cfg.hz);
  if (!soft_limited_.empty()) check_soft_limits();
}

void ClientsCron::visit_clients(int64_t now_ms, int64_t timeout_s, int64_t hz) {
  const auto& all = server_.state().clients.all();
  size_t left = clients_per_tick(all.size(), hz);
  std::vector<Connection*> idle;
  auto it = all.lower_bound(cursor_);
  while (left-- > 0) {
    if (it == all.end()) it = all.begin();
    // Every registered client is a Connection but the replica's link to
    // its primary (server/replica_link.hpp), which never idles out.
    if (!it->second->master) {
      auto* c = static_cast<Connection*>(it->second);
      if (idle_timed_out(*c, now_ms, timeout_s)) {
        idle.push_back(c);
      } else {
        c->resize_query_buffer(now_ms);
      }
    }
    ++it;
  }
  cursor_ = it == all.end() ? 0 : it->first;
  // Closing one client closes no other, and the objects live until libuv's
  // close callback: the pointers stay valid through this loop.
  for (Connection* c : idle) {
    server_.log().log(LogLevel::kVerbose, "Closing idle client");
    c->close();
  }
}

void ClientsCron::check_soft_limits() {
  std::vector<uint64_t> ids;
  ids.swap(soft_limited_);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const int64_t now_ms = server_.state().clock.now_ms();
  for (uint64_t id : ids) {
    Session* s = server_.state().clients.find(id);
    if (s == nullptr) continue;
    auto* c = static_cast<Connection*>(s);
    if (c->close_if_output_over_limit(now_ms, /*from_cron=*/true)) continue;
    if (c->over_soft_limit()) soft_limited_.push_back(id);
  }
}

}  // namespace lawnkv::server
