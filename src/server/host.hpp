#pragma once
// What a connection and the clients cron need of the server that owns them:
// the state commands work on, the loop, the log, the protocol limits, and three
// notices (output to flush before the next poll, a client over its soft
// output limit, a connection gone). Server implements it; its parts see
// only this, so they never include server.hpp.

#include <uv.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/server_state.hpp"
#include "resp/parser.hpp"
#include "server/loop_trace.hpp"

namespace lawnkv::server {

class Connection;
class IoThreads;

class ServerHost {
 public:
  ServerHost(ServerState& state, Logger& log) : state_(state), log_(log) {}
  virtual ~ServerHost() = default;

  ServerState& state() { return state_; }
  virtual uv_loop_t* loop() = 0;
  Logger& log() { return log_; }
  resp::Limits limits() const {
    resp::Limits l;
    l.max_bulk_len = state_.config.values().proto_max_bulk_len;
    return l;
  }

  // conn has output to flush before the next poll.
  virtual void queue_flush(Connection* conn) = 0;
  // conn, still queued, is being freed.
  virtual void forget_flush(Connection* conn) = 0;
  // Client id went over its soft output limit: the clients cron watches it.
  virtual void watch_soft_limit(uint64_t id) = 0;
  virtual void connection_closed(Connection* conn) = 0;
  // io-threads > 1: connections hand their socket's work to I/O threads
  // (connection.hpp); io_threads() only then.
  virtual bool io_threaded() const = 0;
  virtual IoThreads& io_threads() = 0;
  // What the I/O threads read of the configuration while they parse:
  // published by the main thread (publish_io_limits) before it hands them
  // work, since CONFIG SET may change it meanwhile.
  struct IoLimits {
    std::atomic<int64_t> query_buffer_limit{0};
    std::atomic<int64_t> max_bulk_len{0};
  };
  const IoLimits& io_limits() const { return io_limits_; }
  // The clock's now_ms(), read once for each batch of the I/O threads'
  // messages before it runs.
  int64_t io_batch_ms() const { return io_batch_ms_; }
  // The clock's now_ms() as of the latest batch or flush of the iteration
  // (a write handed to a thread is the client's interaction then).
  int64_t flush_ms() const { return std::max(io_batch_ms_, flush_ms_); }
  // The wall clock (Clock::wall_ns) as of steady_ns, a Clock::steady_ns()
  // reading just taken, for a command's time snapshot: the wall clock is
  // read at most once a millisecond, the steady clock's progress since
  // added (a time-stamp counter read where the kernel keeps time with it,
  // a third of a clock_gettime on a virtual machine: a command reads the
  // steady clock for its duration anyway).
  int64_t command_wall_ns(int64_t steady_ns) {
    if (steady_ns - anchor_steady_ns_ >= kWallAnchorNs || steady_ns < anchor_steady_ns_) {
      anchor_steady_ns_ = steady_ns;
      anchor_wall_ns_ = Clock::wall_ns();
    }
    return anchor_wall_ns_ + (steady_ns - anchor_steady_ns_);
  }
  void publish_io_limits() {
    const auto& cfg = state_.config.values();
    io_limits_.query_buffer_limit.store(cfg.client_query_buffer_limit, std::memory_order_relaxed);
    io_limits_.max_bulk_len.store(cfg.proto_max_bulk_len, std::memory_order_relaxed);
  }

  // How many connections hold a query buffer: while any does, the clients
  // cron runs, to release those of idle clients.
  size_t query_buffers_held() const { return query_buffers_held_; }
  void query_buffer_held(bool held) { held ? ++query_buffers_held_ : --query_buffers_held_; }
  // The memory of every open connection (Connection::memory_bytes), kept
  // current by each: what maxmemory-clients limits.
  size_t clients_memory() const { return clients_memory_; }
  void client_memory_changed(size_t before, size_t after) { clients_memory_ += after - before; }
  // Disconnects clients while clients_memory() is at or over
  // maxmemory-clients (client_eviction.hpp).
  virtual void evict_clients() = 0;
  // The bench-only trace of the loop's phases (loop_trace.hpp).
  LoopTrace& loop_trace() { return loop_trace_; }

 protected:
  ServerState& state_;
  Logger& log_;
  size_t query_buffers_held_ = 0;
  size_t clients_memory_ = 0;
  IoLimits io_limits_;
  int64_t io_batch_ms_ = 0;
  int64_t flush_ms_ = 0;
  LoopTrace loop_trace_;

 private:
  static constexpr int64_t kWallAnchorNs = 1'000'000;
  int64_t anchor_steady_ns_ = INT64_MIN / 2;  // none yet: the first call reads the wall clock
  int64_t anchor_wall_ns_ = 0;
};

}  // namespace lawnkv::server
