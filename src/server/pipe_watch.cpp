#include "server/pipe_watch.hpp"

namespace lawnkv::server {

void PipeWatch::watch(int fd) {
  unwatch();
  poll_ = new uv_poll_t;
  if (uv_poll_init(loop_, poll_, fd) != 0) {
    delete poll_;
    poll_ = nullptr;
    return;
  }
  poll_->data = this;
  active_ = false;
  set_active(true);
}

void PipeWatch::unwatch() {
  if (poll_ == nullptr) return;
  uv_poll_stop(poll_);
  uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
  poll_ = nullptr;
  active_ = false;
}

void PipeWatch::set_active(bool on) {
  if (poll_ == nullptr || on == active_) return;
  active_ = on;
  if (on) uv_poll_start(poll_, UV_READABLE | UV_DISCONNECT, on_poll);
  else uv_poll_stop(poll_);
}

void PipeWatch::on_poll(uv_poll_t* h, int, int) {
  auto* self = static_cast<PipeWatch*>(h->data);
  // A hang-up reads as EOF, an error as a failed read: the relay sees both.
  self->ready_();
}

}  // namespace lawnkv::server
