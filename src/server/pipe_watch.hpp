#pragma once
// The loop's watch on a diskless sync's pipe (replication/diskless_sync.hpp):
// a uv_poll on the pipe's read end that calls ready() when the child wrote
// more or closed its end. The server pauses it (set_active(false)) while
// the replicas' sockets have no room, so a full pipe does not spin the
// loop; their writes finishing wake it instead.

#include <uv.h>

#include <functional>

#include "replication/diskless_sync.hpp"

namespace lawnkv::server {

class PipeWatch final : public replication::PipeWatcher {
 public:
  PipeWatch(uv_loop_t* loop, std::function<void()> ready) : loop_(loop), ready_(std::move(ready)) {}
  ~PipeWatch() { unwatch(); }
  PipeWatch(const PipeWatch&) = delete;
  PipeWatch& operator=(const PipeWatch&) = delete;

  void watch(int fd) override;
  // Stops polling at once (the descriptor may be closed after it); the
  // handle is freed by its close callback.
  void unwatch() override;
  // Polls while on (no effect without a watched pipe).
  void set_active(bool on);

 private:
  static void on_poll(uv_poll_t* h, int status, int events);

  uv_loop_t* loop_;
  std::function<void()> ready_;
  uv_poll_t* poll_ = nullptr;  // freed in its close callback
  bool active_ = false;
};

}  // namespace lawnkv::server
