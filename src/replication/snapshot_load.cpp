#include "replication/snapshot_load.hpp"

#include <unistd.h>

#include "core/clock.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"

namespace lawnkv::replication {

SnapshotLoad::SnapshotLoad(ServerState& server) : server_(server), fresh_(server.data.keyspace.databases()) {}

SnapshotLoad::~SnapshotLoad() {
  if (load_ || stream_) finish_loading();
}

void SnapshotLoad::finish_loading() {
  server_.facts.loading = false;
  server_.facts.async_loading = false;
  server_.facts.loading_total_bytes = 0;
  server_.facts.loading_loaded_bytes = 0;
}

std::string SnapshotLoad::begin(const std::string& temp, int64_t now_ms) {
  std::string data;
  if (std::string error = server_.snapshots().take_master_file(server_, temp, &data); !error.empty()) return error;
  start(std::move(data), now_ms, false);
  return {};
}

void SnapshotLoad::begin_streaming(int64_t now_ms, bool async) {
  set_loading(now_ms, async, 0);  // the size is not known
  stream_ = std::make_unique<persistence::RdbStreamLoad>(fresh_, server_.snapshots().load_options(server_, 0));
}

void SnapshotLoad::set_loading(int64_t now_ms, bool async, size_t total_bytes) {
  ServerFacts& f = server_.facts;
  f.loading = true;
  f.async_loading = async;
  f.loading_start_s = now_ms / 1000;
  f.loading_total_bytes = total_bytes;
  f.loading_loaded_bytes = 0;
}

void SnapshotLoad::start(std::string data, int64_t now_ms, bool async) {
  set_loading(now_ms, async, data.size());
  // At now_ms 0 no key is dropped as expired: the primary's DELs remove them.
  load_ = std::make_unique<persistence::RdbLoad>(std::move(data), fresh_, server_.snapshots().load_options(server_, 0));
}

SnapshotLoad::Status SnapshotLoad::step() {
  if (!load_ && !stream_) return Status::kFailed;
  const int64_t delay = server_.config.values().key_load_delay;
  const int64_t until = Clock::steady_ns() + kStepNs;
  uint64_t keys = 0;
  auto enough = [&] {
    if (delay > 0) {
      ::usleep(static_cast<useconds_t>(delay));
    } else if (delay < 0 && ++delay_calls_ >= static_cast<uint64_t>(-delay)) {
      delay_calls_ = 0;
      ::usleep(1);
    }
    // The clock is read every 64 keys unless each key sleeps.
    return (delay != 0 || ++keys % 64 == 0) && Clock::steady_ns() >= until;
  };
  if (stream_) {
    const persistence::RdbStreamLoad::Step st = stream_->step(enough);
    server_.facts.loading_loaded_bytes = stream_->loaded_bytes();
    switch (st) {
      case persistence::RdbStreamLoad::Step::kMore:
        return Status::kMore;
      case persistence::RdbStreamLoad::Step::kStarved:
        return Status::kStarved;
      case persistence::RdbStreamLoad::Step::kFailed:
        finish_loading();
        error_ = stream_->result().error;
        return Status::kFailed;
      case persistence::RdbStreamLoad::Step::kDone:
        break;
    }
    finish_loading();
    adopt();
    return Status::kDone;
  }
  const persistence::RdbLoad::Step st = load_->step(enough);
  server_.facts.loading_loaded_bytes = load_->loaded_bytes();
  if (st == persistence::RdbLoad::Step::kMore) return Status::kMore;
  finish_loading();
  if (st == persistence::RdbLoad::Step::kFailed) {
    error_ = load_->result().error;
    return Status::kFailed;
  }
  adopt();
  return Status::kDone;
}

void SnapshotLoad::adopt() {
  // The append-only file holds the old dataset: it starts anew from the new
  // one (its rewrite's base), as Redis's restartAOFAfterSYNC.
  const bool aof = server_.aof().enabled();
  if (aof) server_.aof().turn_off(server_);
  server_.snapshots().adopt_dataset(server_, fresh_, result());
  if (aof) {
    if (std::string error = server_.aof().turn_on(server_); !error.empty() && server_.log)
      server_.log->log(LogLevel::kWarning, "Failed enabling the AOF after successful master synchronization! " + error);
  }
}

}  // namespace lawnkv::replication
