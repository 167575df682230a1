#include "server/expiry_cycle.hpp"

#include <algorithm>
#include <chrono>

#include "core/deadline.hpp"

namespace lawnkv::server {

std::optional<uint64_t> timer_delay_ms(int64_t now_us, int64_t deadline_ms) {
  if (deadline_ms == expiry::kNever) return std::nullopt;
  return std::min<uint64_t>(ms_until_due(deadline_ms, now_us), kMaxTimerDelayMs);
}

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
  using std::chrono::steady_clock;
  backlog_ = false;
  if (!state_.facts.active_expire) return;
  store::KeyspaceStats& stats = state_.data.keyspace.stats();
  const auto start = steady_clock::now();
  const auto budget = std::chrono::microseconds(state_.config.values().expiry_budget_us);
  auto now = start;
  size_t reaped_total = 0;
  // The cycle is one pass: each hash's reaped fields are reported once.
  const store::Keyspace::ReapPass pass(state_.data.keyspace);
  for (;;) {
    const size_t reaped = state_.data.keyspace.reap(state_.clock.now_ms(), kChunk);
    reaped_total += reaped;
    now = steady_clock::now();
    if (reaped < kChunk) break;
    if (now - start >= budget) {
      backlog_ = true;
      ++stats.expired_time_cap_reached_count;
      break;
    }
  }
  if (reaped_total > 0) ++stats.expire_cycles;
  stats.expire_cycle_time_us +=
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now - start).count());
}

void ExpiryCycle::arm() {
  if (backlog_ && state_.facts.active_expire) {
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) uv_idle_start(&idle_, on_idle);
    return;
  }
  uv_idle_stop(&idle_);
  int64_t next = state_.facts.active_expire ? state_.data.keyspace.next_deadline() : expiry::kNever;
  if (!state_.data.blocking.empty()) next = std::min(next, state_.data.blocking.next_wakeup());
  const std::optional<uint64_t> delay_ms = timer_delay_ms(state_.clock.now_us(), next);
  if (!delay_ms) {
    uv_timer_stop(&timer_);
    return;
  }
  // libuv counts from its cached loop time: refresh it so the work done in
  // this iteration does not make the timer fire early.
  uv_update_time(timer_.loop);
  uv_timer_start(&timer_, on_timer, *delay_ms, 0);
}

void ExpiryCycle::close() {
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
}

}  // namespace lawnkv::server
