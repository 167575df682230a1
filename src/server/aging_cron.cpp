#include "server/aging_cron.hpp"

#include <algorithm>

namespace lawnkv::server {

AgingCron::AgingCron(uv_loop_t* loop, ServerState& state, LoopTrace& trace) : state_(state), trace_(trace) {
  uv_timer_init(loop, &timer_);
  uv_idle_init(loop, &idle_);
  timer_.data = this;
  idle_.data = this;
  // The timer alone never keeps the loop running (the listeners do).
  uv_unref(reinterpret_cast<uv_handle_t*>(&timer_));
}

void AgingCron::stop() {
  uv_timer_stop(&timer_);
  uv_idle_stop(&idle_);
}

void AgingCron::arm() {
  const store::Keyspace& ks = state_.data.keyspace;
  const store::IdleAging& aging = state_.data.aging;
  if (state_.child_running() || (!aging.running() && ks.total_keys() == 0)) return stop();
  if (aging.running()) {
    uv_timer_stop(&timer_);
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) uv_idle_start(&idle_, on_idle);
    return;
  }
  uv_idle_stop(&idle_);
  const int64_t wait_ms = std::max<int64_t>(0, aging.next_start_ms() - state_.clock.now_ms());
  uv_update_time(timer_.loop);
  const uint64_t at = uv_now(timer_.loop) + static_cast<uint64_t>(wait_ms);
  const bool active = uv_is_active(reinterpret_cast<uv_handle_t*>(&timer_));
  if (active && (at > armed_at_ ? at - armed_at_ : armed_at_ - at) <= kRearmSlackMs) return;
  uv_timer_start(&timer_, on_timer, static_cast<uint64_t>(wait_ms), 0);
  armed_at_ = at;
}

void AgingCron::close() {
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
}

void AgingCron::on_timer(uv_timer_t* t) { static_cast<AgingCron*>(t->data)->step(); }

void AgingCron::on_idle(uv_idle_t* h) { static_cast<AgingCron*>(h->data)->step(); }

void AgingCron::step() {
  const LoopTrace::Span span(trace_, LoopTrace::kAging);
  if (state_.child_running()) return stop();
  if (!state_.data.aging.step(state_.data.keyspace, state_.clock.now_ms()))
    uv_idle_stop(&idle_);
  else if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_)))
    uv_idle_start(&idle_, on_idle);
}

}  // namespace lawnkv::server
