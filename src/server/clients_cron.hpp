#pragma once
// The periodic pass over the clients (Redis's clientsCron), paced by `hz`:
// a libuv timer fires every 1000/hz ms while there is something for it to
// do, and each tick looks at clients_per_tick() clients from where the last
// tick stopped, in id order (with 10,000 clients and hz 10 a tick looks at
// 1,000, and every client is seen about once a second), and
//   - closes those idle too long (`timeout`, client_limits.hpp:
//     idle_timed_out);
//   - resizes their query buffers (Connection::resize_query_buffer): an
//     idle client's is released, one much larger than needed trimmed;
//   - checks again the clients seen over their soft output limit, whose
//     output may have stopped growing (a paused client sends nothing more):
//     closes those over it for longer than its seconds, forgets those back
//     under it.
// With `timeout 0`, no client holding a query buffer and none over a soft
// limit the timer is stopped: an idle server (its clients' buffers released)
// still sleeps until its next key deadline.

#include <uv.h>

#include <cstdint>
#include <vector>

namespace lawnkv::server {

class ServerHost;

class ClientsCron {
 public:
  ClientsCron(uv_loop_t* loop, ServerHost& server);
  // Starts the timer if there is work and it is not running; stops it if
  // there is none. Called before every poll.
  void arm();
  void close();

  // Client `id` was first seen over its soft output limit: check it on
  // every tick until it is closed or back under it.
  void watch_soft_limit(uint64_t id) { soft_limited_.push_back(id); }

 private:
  static void on_timer(uv_timer_t* t);
  void run();
  void visit_clients(int64_t now_ms, int64_t timeout_s, int64_t hz);
  void check_soft_limits();

  ServerHost& server_;
  uv_timer_t timer_;
  uint64_t cursor_ = 0;                 // the next tick starts at the first id >= cursor_
  std::vector<uint64_t> soft_limited_;  // ids, possibly stale or closed
};

}  // namespace lawnkv::server
