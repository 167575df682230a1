#pragma once
// What a command handler works with. ServerState is everything the server
// owns that commands may read or change (no sockets, no libuv); Call is one
// invocation: its arguments, its client, its reply and its time snapshot.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "commands/session.hpp"
#include "commands/table.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "dehydrator/blocking.hpp"
#include "pubsub/notifier.hpp"
#include "resp/writer.hpp"
#include "store/keyspace.hpp"

namespace lawnkv {

namespace pubsub {
class Hub;
}

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_net_input_bytes = 0;
  uint64_t total_net_output_bytes = 0;
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  void reset() { *this = ServerStats(); }
};

struct ServerState {
  explicit ServerState(config::Config cfg);

  config::Config config;
  Clock clock;
  store::Keyspace keyspace;
  CommandTable commands;
  pubsub::Notifier notifier;
  pubsub::Hub* hub = nullptr;  // Pub/Sub channels; set by the server
  dehydrator::BlockedPollers blocked;  // clients waiting in REDE.BPOLL
  ServerStats stats;
  std::map<uint64_t, Session*> sessions;  // connected clients by id
  uint64_t next_session_id = 1;
  int64_t start_ms = 0;
  std::string executable;   // absolute path, for INFO
  std::string run_id;       // 40 hex chars, for INFO
  int listening_port = 0;
  bool active_expire = true;         // DEBUG SET-ACTIVE-EXPIRE
  bool shutdown_requested = false;   // SHUTDOWN: the server stops after this reply
};

struct Call {
  ServerState& server;
  Session& session;
  resp::Writer& reply;
  std::span<const std::string_view> argv;
  int64_t now_ms;                    // the command's time snapshot
  const CommandSpec* spec = nullptr;
  bool failed = false;               // an error was replied (commandstats failed_calls)

  store::Db& db() { return server.keyspace.db(session.db); }
  const config::Values& cfg() const { return server.config.values(); }

  // Replies an error (full text without '-', e.g. "ERR syntax error").
  void error(std::string_view text) {
    failed = true;
    reply.error(text);
  }
  // Keyspace notification for key in the selected db.
  void notify(uint32_t cls, std::string_view event, std::string_view key) {
    server.notifier.notify(cls, event, key, session.db);
  }
  // WATCH: key changed in the selected db (Redis's signalModifiedKey).
  void modified(std::string_view key) { server.keyspace.modified(session.db, key); }
};

}  // namespace lawnkv
