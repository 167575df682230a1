#pragma once
// Everything the server owns that commands may read or change (no sockets,
// no libuv), in three parts:
//   Dataset      what commands change: the keyspace, keyspace notifications,
//                Pub/Sub, the clients blocked on keys, eviction, and the
//                record of changes (effects.hpp);
//   Clients      the connected clients (clients.hpp);
//   ServerFacts  server-wide facts and counters for INFO, and debug switches.
// make_server_state() builds and wires them; main and every test fixture
// build their server with it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "commands/append_only.hpp"
#include "commands/blocking.hpp"
#include "commands/clients.hpp"
#include "commands/effects.hpp"
#include "commands/error_stats.hpp"
#include "commands/evictor.hpp"
#include "commands/snapshots.hpp"
#include "commands/table.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "pubsub/hub.hpp"
#include "pubsub/notifier.hpp"
#include "store/keyspace.hpp"

namespace lawnkv {

struct Dataset {
  explicit Dataset(const config::Config& cfg);

  store::Keyspace keyspace;
  pubsub::Notifier notifier;   // publishes to hub
  pubsub::Hub hub;
  BlockingTable blocking;
  Evictor eviction;
  Effects effects;  // hears of expiries before the notifier
  // Changes to the data since the server started (Redis's server.dirty): a
  // write command that moves it has its effect recorded.
  uint64_t dirty = 0;

  // key in db changed: WATCH sees it (Redis's signalModifiedKey) and the
  // clients blocked on it are tried again (signalKeyAsReady). Counts as one
  // unsaved change.
  void modified(int db, std::string_view key) {
    ++dirty;
    keyspace.modified(db, key);
    if (!blocking.empty()) blocking.signal(db, key);
  }
  // A change that no single key stands for (FLUSHALL, SWAPDB).
  void changed() { ++dirty; }
};

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_net_input_bytes = 0;
  uint64_t total_net_output_bytes = 0;
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  uint64_t total_reads_processed = 0;   // socket reads, the one that finds EOF too (Redis's count)
  uint64_t total_writes_processed = 0;  // socket writes of replies
  void reset() { *this = ServerStats(); }
};

struct ServerFacts {
  ServerStats stats;         // CONFIG RESETSTAT zeroes these
  ErrorStats errors;         // every error reply (INFO errorstats); RESETSTAT too
  int64_t start_ms = 0;
  std::string executable;    // absolute path, for INFO
  std::string run_id;        // 40 hex chars, for INFO
  int listening_port = 0;
  bool active_expire = true;  // DEBUG SET-ACTIVE-EXPIRE
  uint64_t used_memory_startup = 0;  // allocator::used_bytes() once built
  uint64_t used_memory_peak = 0;     // the most seen (each loop iteration, INFO)
};

struct ServerState {
  explicit ServerState(config::Config cfg);
  // Parts refer to each other (the notifier reads the live config): never moved.
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;

  config::Config config;
  Clock clock;
  CommandTable commands;
  Dataset data;
  Clients clients;
  ServerFacts facts;
  Snapshots snapshots;
  AppendOnly aof;  // the append-only file, when appendonly is on
  bool shutdown_requested = false;  // SHUTDOWN: the server stops after this reply
};

// A server's state with every command registered, keyspace notifications
// going to its Pub/Sub hub and `expired` events to the notifier, its start
// time and a random run id.
std::unique_ptr<ServerState> make_server_state(config::Config cfg);

}  // namespace lawnkv
