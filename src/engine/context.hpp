#pragma once
// What a command handler works with.
//
// DbContext is what an Op (the store half of a command) needs: the dataset,
// the db it acts in and the command's time snapshot, with the two signals a
// change sends (a keyspace notification, and "key modified" for WATCH and
// blocked clients). Call is one invocation: a DbContext for the client's
// selected db, plus its arguments, its client, its reply and the server.

#include <cstdint>
#include <span>
#include <string_view>

#include "engine/server_state.hpp"
#include "engine/session.hpp"
#include "engine/table.hpp"
#include "resp/writer.hpp"

namespace lawnkv {

struct DbContext {
  Dataset& data;
  int db_index;
  int64_t now_ms;  // the command's time snapshot

  store::Db& db() { return data.keyspace.db(db_index); }
  // Keyspace notification for key in this db.
  void notify(uint32_t cls, std::string_view event, std::string_view key) {
    data.notifier.notify(cls, event, key, db_index);
  }
  // key in this db changed (WATCH, blocked clients).
  void modified(std::string_view key) { data.modified(db_index, key); }
  // The pair every write sends after changing key: modified (WATCH,
  // blocked clients, one more unsaved change, which is what records the
  // write's effect) then the keyspace notification, in Redis's order.
  void modified(std::string_view key, uint32_t cls, std::string_view event) {
    modified(key);
    notify(cls, event, key);
  }
};

// Set while a blocked command runs again (blocking.hpp): block() then
// records that the client keeps waiting instead of blocking anew.
struct BlockRetry {
  bool blocked_again = false;
  int64_t ready_bound_ms = 0;
  // The key whose change runs the command again (empty when its time came).
  // A command waiting on several keys may serve itself from this one only,
  // as Redis 7.0 serves a client from the key that became ready.
  std::string_view ready_key;
  // CLIENT UNBLOCK ended the wait of a command that replies its own timeout
  // (BlockingTable::Wait::replies_own_timeout): it replies that now.
  bool timed_out = false;
};

struct Call : DbContext {
  ServerState& server;
  Session& session;
  resp::Writer& reply;
  std::span<const std::string_view> argv;
  const CommandSpec* spec = nullptr;
  BlockRetry* retry = nullptr;       // non-null: a blocked command run again
  bool failed = false;               // an error was replied (commandstats failed_calls)
  uint64_t redacted = 0;             // bit i: argv[i] is a secret MONITOR and SLOWLOG show as "(redacted)"

  const config::Values& cfg() const { return server.config.values(); }

  // argv[i] is a secret (a password): MONITOR and SLOWLOG never show it
  // (Redis's redactClientCommandArgument).
  void redact(size_t i) {
    if (i < 64) redacted |= uint64_t{1} << i;
  }

  // Replies an error (full text without '-', e.g. "ERR syntax error").
  void error(std::string_view text) {
    failed = true;
    reply.error(text);
  }
  // Whether the command may block its client: not inside EXEC, nor for a
  // client without a socket (a script, the AOF loader), nor when run again
  // for a blocked client (it keeps waiting instead).
  bool may_block() const { return !session.in_exec && !session.detached; }
  // The command cannot be served now: the client blocks until a key of
  // wait.keys changes, wait.ready_bound_ms passes, or its timeout (see
  // blocking.hpp). Where it may not block (may_block) the timeout's reply,
  // a null array, goes at once, as Redis does.
  void block(const BlockingTable::Wait& wait);
};

// The Call for a command of session run at now_ms.
inline Call make_call(ServerState& server, Session& session, resp::Writer& reply,
                      std::span<const std::string_view> argv, int64_t now_ms, const CommandSpec* spec) {
  return Call{{server.data, session.db, now_ms}, server, session, reply, argv, spec};
}

}  // namespace lawnkv
