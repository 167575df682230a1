#include "server/expiry_cycle.hpp"

#include <algorithm>
#include <chrono>

#include "core/deadline.hpp"

namespace lawnkv::server {

ExpiryCycle::ExpiryCycle(uv_loop_t* loop, ServerState& state) : state_(state) {
  uv_timer_init(loop, &timer_);
  uv_idle_init(loop, &idle_);
  timer_.data = this;
  idle_.data = this;
  uv_unref(reinterpret_cast<uv_handle_t*>(&timer_));
}

void ExpiryCycle::on_timer(uv_timer_t* t) {
  static_cast<ExpiryCycle*>(t->data)->run();
}

void ExpiryCycle::on_idle(uv_idle_t* h) { static_cast<ExpiryCycle*>(h->data)->run(); }

void ExpiryCycle::run() {
  backlog_ = false;
  if (!state_.active_expire) return;
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::microseconds(state_.config.values().expiry_budget_us);
  for (;;) {
    const size_t reaped = state_.keyspace.reap(state_.clock.now_ms(), kChunk);
    if (reaped < kChunk) return;
    if (std::chrono::steady_clock::now() - start >= budget) {
      backlog_ = true;
      return;
    }
  }
}

void ExpiryCycle::arm() {
  if (backlog_ && state_.active_expire) {
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) uv_idle_start(&idle_, on_idle);
    return;
  }
  uv_idle_stop(&idle_);
  int64_t next = state_.active_expire ? state_.keyspace.next_deadline() : expiry::kNever;
  if (!state_.blocked.empty())
    next = std::min(next, state_.blocked.next_wakeup(state_.keyspace, state_.clock.now_ms()));
  if (next == expiry::kNever) {
    uv_timer_stop(&timer_);
    return;
  }
  const uint64_t wait_ms = ms_until_due(next, state_.clock.now_us());
  // libuv counts from its cached loop time: refresh it so the work done in
  // this iteration does not make the timer fire early.
  uv_update_time(timer_.loop);
  uv_timer_start(&timer_, on_timer, wait_ms, 0);
}

void ExpiryCycle::close() {
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
}

}  // namespace lawnkv::server
