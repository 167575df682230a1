#include "replication/snapshot_load.hpp"

#include <unistd.h>

#include "core/clock.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"

namespace lawnkv::replication {

SnapshotLoad::SnapshotLoad(ServerState& server) : server_(server), fresh_(server.data.keyspace.databases()) {}

SnapshotLoad::~SnapshotLoad() {
  if (load_) finish_loading();
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

void SnapshotLoad::begin_in_memory(std::string data, int64_t now_ms, bool async) {
  start(std::move(data), now_ms, async);
}

void SnapshotLoad::start(std::string data, int64_t now_ms, bool async) {
  ServerFacts& f = server_.facts;
  f.loading = true;
  f.async_loading = async;
  f.loading_start_s = now_ms / 1000;
  f.loading_total_bytes = data.size();
  f.loading_loaded_bytes = 0;
  // At now_ms 0 no key is dropped as expired: the primary's DELs remove them.
  load_ = std::make_unique<persistence::RdbLoad>(std::move(data), fresh_, server_.snapshots().load_options(server_, 0));
}

SnapshotLoad::Status SnapshotLoad::step() {
  if (!load_) return Status::kFailed;
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
  const persistence::RdbLoad::Step st = load_->step(enough);
  server_.facts.loading_loaded_bytes = load_->loaded_bytes();
  if (st == persistence::RdbLoad::Step::kMore) return Status::kMore;
  finish_loading();
  if (st == persistence::RdbLoad::Step::kFailed) {
    error_ = load_->result().error;
    return Status::kFailed;
  }
  // The append-only file holds the old dataset: it starts anew from the new
  // one (its rewrite's base), as Redis's restartAOFAfterSYNC.
  const bool aof = server_.aof().enabled();
  if (aof) server_.aof().turn_off(server_);
  server_.snapshots().adopt_dataset(server_, fresh_, load_->result());
  if (aof) {
    if (std::string error = server_.aof().turn_on(server_); !error.empty() && server_.log)
      server_.log->log(LogLevel::kWarning, "Failed enabling the AOF after successful master synchronization! " + error);
  }
  return Status::kDone;
}

}  // namespace lawnkv::replication
