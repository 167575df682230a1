#include "server/expiry_cycle.hpp"

#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/clock.hpp"
#include "core/deadline.hpp"
#include "engine/client_pause.hpp"

namespace lawnkv::server {

namespace {

int64_t monotonic_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

}  // namespace

std::optional<uint64_t> timer_delay_us(int64_t now_us, int64_t deadline_ms) {
  if (deadline_ms == expiry::kNever) return std::nullopt;
  return std::min<uint64_t>(us_until_due(deadline_ms, now_us), kMaxTimerDelayUs);
}

ExpiryCycle::ExpiryCycle(uv_loop_t* loop, ServerState& state, LoopTrace& trace, std::function<void()> flush_first,
                         std::function<void()> between_chunks)
    : state_(state), trace_(trace), flush_first_(std::move(flush_first)), between_chunks_(std::move(between_chunks)) {
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) {
    std::perror("lawnkv: cannot create the expiry timer (timerfd_create)");
    std::exit(1);
  }
  uv_poll_init(loop, &timer_, timer_fd_);
  uv_idle_init(loop, &idle_);
  timer_.data = this;
  idle_.data = this;
  uv_poll_start(&timer_, UV_READABLE, on_timer);
  // The timer alone never keeps the loop running (the listeners do).
  uv_unref(reinterpret_cast<uv_handle_t*>(&timer_));
}

ExpiryCycle::~ExpiryCycle() {
  if (timer_fd_ >= 0) ::close(timer_fd_);
}

void ExpiryCycle::on_timer(uv_poll_t* p, int status, int events) {
  auto* self = static_cast<ExpiryCycle*>(p->data);
  uint64_t expirations;
  while (read(self->timer_fd_, &expirations, sizeof expirations) > 0) {
  }
  self->armed_at_us_ = -1;
  // The cycle runs from the idle handle, as a backlog's chunks do: at the
  // start of the next iteration, before the prepare phase flushes what it
  // published.
  self->backlog_ = true;
  uv_idle_start(&self->idle_, on_idle);
}

void ExpiryCycle::on_idle(uv_idle_t* h) { static_cast<ExpiryCycle*>(h->data)->run(); }

void ExpiryCycle::run() {
  backlog_ = false;
  if (!reaps() || clients_paused(state_, state_.clock.now_ms())) return;
  const LoopTrace::Span span(trace_, LoopTrace::kExpiry);
  store::KeyspaceStats& stats = state_.data.keyspace.stats();
  const int64_t start_cpu_ns = Clock::thread_cpu_ns();
  // The budget counts the flush too: a client waits behind one budget, not
  // a flush and a budget.
  const int64_t start_ns = Clock::steady_ns();
  if (flush_first_) flush_first_();
  // Each chunk stops at the budget's end too, however many of its keys
  // are left (store/reap_limit.hpp).
  const store::SteadyReapClock clock;
  const store::ReapLimit limit{kChunk, &clock, start_ns + state_.config.values().expiry_budget_us * 1000};
  int64_t now_ns = start_ns;
  size_t reaped_total = 0;
  store::Keyspace& keyspace = state_.data.keyspace;
  {
    // The cycle's deletions reach the append-only file and the replicas in
    // one write each per chunk (engine/effects.hpp); the last chunk's go as
    // the cycle ends, and the prepare phase that follows sends them.
    Effects::Batch batch(state_.data.effects);
    // The cycle is one pass: each hash's reaped fields are reported once.
    const store::Keyspace::ReapPass pass(keyspace);
    for (;;) {
      const int64_t now_ms = state_.clock.now_ms();
      const uint64_t chunk_start = trace_.on() ? LoopTrace::now_ns() : 0;
      const int64_t lag_before = chunk_start != 0 ? stats.lag.max() : 0;
      const size_t reaped = keyspace.reap(now_ms, limit);
      if (chunk_start != 0) {
        const uint64_t chunk_end = LoopTrace::now_ns();
        if (chunk_end - chunk_start > kTracedChunkNs) trace_.record(LoopTrace::kChunk, chunk_start, chunk_end);
        if (const int64_t lag = stats.lag.max(); lag > lag_before && lag > 2)
          trace_.record(LoopTrace::kLate, chunk_end - static_cast<uint64_t>(lag) * 1'000'000, chunk_end);
      }
      reaped_total += reaped;
      now_ns = Clock::steady_ns();
      // Done when the chunk was not full and the index has nothing left to
      // move either: a cascade cut short by its bound yields less than a chunk
      // and leaves next_deadline() < now, and is carried on here, within the
      // budget, rather than one loop iteration (and wake-up) per chunk.
      if (reaped < kChunk && keyspace.next_deadline() >= now_ms) break;
      if (now_ns >= limit.stop_ns) {
        backlog_ = true;
        ++stats.expired_time_cap_reached_count;
        break;
      }
      if (between_chunks_ && reaped > 0) {
        batch.flush();
        between_chunks_();
      }
    }
  }
  // Caught up: up to a quarter of the budget more (within the budget) sorts
  // the wheel's next slot ahead of time, a step of kStageMoves at a time (one
  // at least), so that entering a slot that holds many keys (a level-2 slot:
  // 4,096 ms of a flood) costs no burst of cascading, during which its keys
  // would be late.
  if (!backlog_) {
    const int64_t budget_ns = state_.config.values().expiry_budget_us * 1000;
    const int64_t stage_stop = std::min(now_ns + budget_ns / kStageShareOfBudget, start_ns + budget_ns);
    const uint64_t stage_start = trace_.on() ? LoopTrace::now_ns() : 0;
    while (keyspace.stage_ahead(kStageMoves) == kStageMoves && (now_ns = Clock::steady_ns()) < stage_stop) {
    }
    now_ns = Clock::steady_ns();
    if (stage_start != 0) {
      const uint64_t stage_end = LoopTrace::now_ns();
      if (stage_end - stage_start > kTracedChunkNs) trace_.record(LoopTrace::kChunk, stage_start, stage_end);
    }
  }
  if (reaped_total > 0) ++stats.expire_cycles;
  const auto wall_us = static_cast<uint64_t>(now_ns - start_ns) / 1000;
  stats.expire_cycle_time_us += wall_us;
  state_.facts.stats.expire_cycle.add(static_cast<uint64_t>(Clock::thread_cpu_ns() - start_cpu_ns) / 1000,
                                      wall_us);
  // Redis's latency event for a run of its active expiry cycle, in whole ms.
  state_.latency.add_if_needed("expire-cycle", static_cast<int64_t>(wall_us / 1000),
                               state_.config.values().latency_monitor_threshold, state_.clock.now_ms() / 1000);
}

void ExpiryCycle::arm() {
  if (backlog_ && reaps()) {
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) uv_idle_start(&idle_, on_idle);
    return;
  }
  uv_idle_stop(&idle_);
  int64_t next = reaps() ? state_.data.keyspace.next_deadline() : expiry::kNever;
  if (!state_.data.blocking.empty()) next = std::min(next, state_.data.blocking.next_wakeup());
  // While clients are paused nothing is due but the pause's end (the loop
  // ends it, and what fell due meanwhile is served after).
  if (state_.pause.on()) next = state_.pause.end_ms();
  const std::optional<uint64_t> delay_us = timer_delay_us(state_.clock.now_us(), next);
  if (!delay_us) return set_timer(-1);
  // A frozen clock (DEBUG FREEZE-TIME) reaches nothing by waiting: only a
  // command moves it (ADVANCE-TIME, or the thaw), and the arm() of that
  // command's iteration finds what it made due (delay 0).
  if (*delay_us > 0 && state_.clock.frozen()) return set_timer(-1);
  // The wake-up on the monotonic clock: the server clock (wall time plus
  // DEBUG ADVANCE-TIME's offset) may jump; the delay is taken from it anew
  // at every arm(), so a jump moves the wake-up at the next iteration.
  const int64_t at_us = monotonic_us() + static_cast<int64_t>(*delay_us);
  if (armed_at_us_ >= 0 && std::abs(at_us - armed_at_us_) <= kRearmSlackUs) return;
  set_timer(at_us);
}

void ExpiryCycle::set_timer(int64_t at_us) {
  if (at_us < 0 && armed_at_us_ < 0) return;
  itimerspec spec{};
  if (at_us >= 0) {
    // 0 would disarm: a wake-up due now is set 1 ns after the epoch, long past.
    spec.it_value.tv_sec = at_us / 1'000'000;
    spec.it_value.tv_nsec = (at_us % 1'000'000) * 1000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_at_us_ = at_us;
}

void ExpiryCycle::close() {
  uv_poll_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
}

}  // namespace lawnkv::server
