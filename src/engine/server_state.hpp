#pragma once
// Everything the server owns that commands may read or change (no sockets,
// no libuv), in three parts:
//   Dataset      what commands change: the keyspace, keyspace notifications,
//                Pub/Sub, the clients blocked on keys, eviction, and the
//                record of changes (effects.hpp);
//   Clients      the connected clients (clients.hpp);
//   ServerFacts  server-wide facts and counters for INFO, and debug switches.
// The services above the engine that commands reach (the RDB snapshots and
// the append-only file of src/durability/, the Lua runtime of
// src/scripting/) are Services this state owns, reached through pointers to
// their own types: the engine never includes them. make_server_state() (src/commands/server_factory.hpp) builds and
// wires everything; main and every test fixture build their server with it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/acl_users.hpp"
#include "engine/blocking.hpp"
#include "engine/busy_loop.hpp"
#include "engine/client_pause.hpp"
#include "engine/clients.hpp"
#include "engine/effects.hpp"
#include "engine/error_stats.hpp"
#include "engine/evictor.hpp"
#include "engine/latency_monitor.hpp"
#include "engine/migrate_links.hpp"
#include "engine/slow_log.hpp"
#include "engine/table.hpp"
#include "engine/tracking.hpp"
#include "pubsub/hub.hpp"
#include "pubsub/notifier.hpp"
#include "store/idle_aging.hpp"
#include "store/keyspace.hpp"

namespace lawnkv {

class Snapshots;   // durability/snapshots.hpp
class AppendOnly;  // durability/append_only.hpp
class Replication;  // replication/replication.hpp
namespace replication {
class Replica;     // replication/replica.hpp
}

// A server-wide part that lives above the engine, owned by ServerState
// (ServerState::adopt), the one kind of owned part for every room above.
class Service {
 public:
  virtual ~Service() = default;
  // Whether it has a forked child running (a BGSAVE, an AOF rewrite): one
  // child at a time, as Redis.
  virtual bool has_child() const { return false; }
};

struct Dataset final : EvictionListener {
  explicit Dataset(const config::Config& cfg);

  store::Keyspace keyspace;
  store::IdleAging aging;  // the passes that age keyspace's idle classes
  pubsub::Notifier notifier;   // publishes to hub
  pubsub::Hub hub;
  BlockingTable blocking;
  Evictor eviction;
  Effects effects;  // hears of expiries before the tracking table and the notifier
  Tracking tracking;  // client-side caching: invalidations (expiries after the notifier)
  // Changes to the data since the server started (Redis's server.dirty): a
  // write command that moves it has its effect recorded.
  uint64_t dirty = 0;

  // key in db changed: WATCH sees it and the clients that cache it are told
  // (Redis's signalModifiedKey), and the clients blocked on it are tried
  // again (signalKeyAsReady). Counts as one unsaved change.
  void modified(int db, std::string_view key) {
    ++dirty;
    keyspace.modified(db, key);
    tracking.invalidate(key, tracking.current());
    if (!blocking.empty()) blocking.signal(db, key);
  }
  // A change that no single key stands for (FLUSHALL, SWAPDB).
  void changed() { ++dirty; }
  // Evicts until memory is under maxmemory (evictor.hpp).
  Evictor::Result evict(const config::Values& cfg) { return eviction.perform(keyspace, *this, cfg); }
  // EvictionListener, in Redis's order: the DEL record, WATCH and blocked
  // clients, then `evicted`.
  void key_evicted(int db, std::string_view key) override;
};

// The longest single run of one kind of work the loop thread did, in us of
// the thread's CPU time (what the server itself spent, whatever else runs on
// the machine) and of wall time (what a client waiting behind it felt).
struct StepMax {
  uint64_t cpu_us = 0;
  uint64_t wall_us = 0;
  void add(uint64_t cpu, uint64_t wall) {
    if (cpu > cpu_us) cpu_us = cpu;
    if (wall > wall_us) wall_us = wall;
  }
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
  // io-threads > 1 (server/io_threads.hpp): the reads the I/O threads handed
  // to the main thread, and the write jobs it handed to them (Redis counts
  // the clients of its threaded read and write batches).
  uint64_t io_threaded_reads_processed = 0;
  uint64_t io_threaded_writes_processed = 0;
  uint64_t evicted_clients = 0;         // disconnected by maxmemory-clients
  // What a client may wait behind (INFO expiry, lawnkv's own): one loop
  // iteration (its wait in poll left out; wall time only), one expiry
  // cycle, one step giving memory back to the system.
  StepMax loop_iteration;
  StepMax expire_cycle;
  StepMax release_step;
  void reset() { *this = ServerStats(); }
};

struct ServerFacts {
  ServerStats stats;         // CONFIG RESETSTAT zeroes these
  ErrorStats errors;         // every error reply (INFO errorstats); RESETSTAT too
  int64_t start_ms = 0;
  std::string executable;    // absolute path, for INFO
  std::string run_id;        // 40 hex chars, for INFO
  int listening_port = 0;
  bool loading = false;       // a file is being loaded into the dataset (nothing is evicted)
  // With loading: the old dataset serves clients meanwhile (a replica's
  // repl-diskless-load swapdb), only no-async-loading commands are refused.
  bool async_loading = false;
  // A load that serves clients meanwhile (a replica's full sync): for INFO
  // persistence's loading_* lines.
  int64_t loading_start_s = 0;
  uint64_t loading_total_bytes = 0;
  uint64_t loading_loaded_bytes = 0;
  bool active_expire = true;  // DEBUG SET-ACTIVE-EXPIRE
  // A replica of a primary (REPLICAOF host port; src/replication/): clients'
  // writes are refused under replica-read-only, and while the link is not
  // up (primary_link_up) under replica-serve-stale-data no, every command
  // without the stale flag. Commands from the primary itself always run.
  bool replica = false;
  bool primary_link_up = false;
  // Online replicas that acknowledged within min-replicas-max-lag seconds,
  // counted by the replication service (engine/good_replicas.hpp).
  int64_t good_replicas = 0;
  uint64_t used_memory_startup = 0;  // allocator::used_bytes() once built
  uint64_t used_memory_peak = 0;     // the most seen (each loop iteration, INFO)
};

// The replication stream's offset (master_repl_offset), which dispatch
// reads around each command to remember a client's last replicated write
// (WAIT). Implemented by the replication service.
class StreamOffset {
 public:
  virtual int64_t stream_offset() const = 0;

 protected:
  ~StreamOffset() = default;
};

// What dump.rdb keeps of the scripting service: its FUNCTION libraries.
// Saving a file reads them and loading one replaces them, through the two
// calls below. Not an owner: the service that implements it is owned as a
// Service.
class FunctionLibraries {
 public:
  virtual std::vector<std::string> function_libraries() const = 0;
  // Replaces every library with these; "" or why one failed to load.
  virtual std::string replace_function_libraries(const std::vector<std::string>& codes) = 0;

 protected:
  ~FunctionLibraries() = default;
};

struct ServerState {
  explicit ServerState(config::Config cfg);
  ~ServerState();
  // Parts refer to each other (the notifier reads the live config): never moved.
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;

  config::Config config;
  Clock clock;
  CommandTable commands;
  acl::Users acl;           // ACL users and the ACL LOG
  Dataset data;
  Clients clients;
  ServerFacts facts;
  SlowLog slowlog;          // SLOWLOG, fed by dispatch
  LatencyMonitor latency;   // LATENCY, fed by dispatch
  MigrateLinks migrate_links;  // MIGRATE's cached connections to its targets
  ClientPause pause;        // CLIENT PAUSE (client_pause.hpp)
  bool shutdown_requested = false;  // SHUTDOWN: the server stops after this reply
  const Logger* log = nullptr;      // the server log (scripts' redis.log), when there is one
  // A client's CLIENT INFO line, for ACL LOG entries (set by
  // make_server_state: the line is the commands room's).
  std::string (*client_info)(const ServerState& server, const Session& s, int64_t now_ms) = nullptr;
  // The server's loop, for a script past busy-reply-threshold (busy_loop.hpp);
  // nullptr without one (tests without sockets).
  BusyLoop* busy_loop = nullptr;
  // While a script runs past busy-reply-threshold: what dispatch answers
  // every command without the allow-busy flag (err::kBusyScript or
  // kBusyFunction); empty otherwise.
  std::string_view busy_error;
  // Libraries a loaded file held while no runtime existed: the runtime
  // loads them when it is built.
  std::vector<std::string> pending_functions;

  // The FUNCTION libraries' code, for dump.rdb.
  std::vector<std::string> function_libraries() const {
    return scripting_ ? scripting_->function_libraries() : pending_functions;
  }
  // A loaded file's libraries replace the current ones; "" or an error.
  std::string replace_function_libraries(std::vector<std::string> codes) {
    if (scripting_) return scripting_->replace_function_libraries(codes);
    pending_functions = std::move(codes);
    return {};
  }

  // The durability services, set once by make_server_state.
  Snapshots& snapshots() const { return *snapshots_; }
  AppendOnly& aof() const { return *aof_; }  // the append-only file, when appendonly is on
  // Replication (replication/replication.hpp), set once by make_server_state.
  Replication& replication() const { return *replication_; }
  void set_replication(Replication* r, const StreamOffset* offset) {
    replication_ = r;
    stream_offset_ = offset;
  }
  int64_t stream_offset() const { return stream_offset_ ? stream_offset_->stream_offset() : 0; }
  // The replica's side of replication (REPLICAOF), set once by make_server_state.
  replication::Replica& replica() const { return *replica_; }
  void set_replica(replication::Replica* r) { replica_ = r; }
  // The Lua runtime (scripting/runtime.hpp), set by the first script; null
  // before.
  FunctionLibraries* scripting() const { return scripting_; }

  bool child_running() const {
    for (const auto& s : services_)
      if (s->has_child()) return true;
    return false;
  }
  // Takes ownership of service and returns it. Services go before the rest
  // of the state, the last adopted first.
  template <class T>
  T& adopt(std::unique_ptr<T> service) {
    T& kept = *service;
    services_.push_back(std::move(service));
    return kept;
  }
  void set_durability(Snapshots* snapshots, AppendOnly* aof) {
    snapshots_ = snapshots;
    aof_ = aof;
  }
  void set_scripting(FunctionLibraries* runtime) { scripting_ = runtime; }

 private:
  Snapshots* snapshots_ = nullptr;
  AppendOnly* aof_ = nullptr;
  Replication* replication_ = nullptr;
  const StreamOffset* stream_offset_ = nullptr;
  replication::Replica* replica_ = nullptr;
  FunctionLibraries* scripting_ = nullptr;
  std::vector<std::unique_ptr<Service>> services_;
};

// Wires a state's parts to each other (notifications to the hub, expiries
// to effects then the notifier) and stamps its start time, run id and
// startup memory; make_server_state calls it once every part is in place.
void start_server_state(ServerState& state);

}  // namespace lawnkv
