#include "engine/server_state.hpp"

#include <random>

#include "core/allocator.hpp"

namespace lawnkv {

namespace {

std::string random_run_id() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (char& c : id) c = kHex[rd() % 16];
  return id;
}

}  // namespace

Dataset::Dataset(const config::Config& cfg)
    : keyspace(static_cast<int>(cfg.values().databases)), notifier(cfg.values().notify_keyspace_events) {
  notifier.set_publisher(&hub);
  effects.set_next(&tracking);
  tracking.set_next(&notifier);
  keyspace.set_listener(&effects);
}

void Dataset::key_evicted(int db, std::string_view key) {
  effects.add(db, {"DEL", key});
  // As Redis's signalModifiedKey(NULL, ...): no client made this change.
  ++dirty;
  keyspace.modified(db, key);
  tracking.invalidate(key, nullptr);
  if (!blocking.empty()) blocking.signal(db, key);
  notifier.notify(pubsub::kEvicted, "evicted", key, db);
}

ServerState::ServerState(config::Config cfg) : config(std::move(cfg)), data(config) { data.tracking.attach(clients); }

ServerState::~ServerState() {
  while (!services_.empty()) services_.pop_back();
}

void start_server_state(ServerState& state) {
  state.data.eviction.configure(state.config.values(), state.data.keyspace);
  state.facts.start_ms = state.clock.now_ms();
  state.facts.run_id = random_run_id();
  state.facts.used_memory_startup = allocator::used_bytes();
}

}  // namespace lawnkv
