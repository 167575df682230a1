#pragma once
// What a command sees of the client that sent it: protocol version, selected
// db, name, transaction and WATCH state, and its Pub/Sub counts (as a
// pubsub::Subscriber). The server's connection derives from
// Session and supplies the I/O facts (addresses, buffer sizes) and actions
// (close, deliver a push message); commands never see sockets or libuv.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/reply_buffer_figures.hpp"
#include "engine/tracking_state.hpp"
#include "pubsub/subscriber.hpp"
#include "store/watch.hpp"

namespace lawnkv {

struct CommandSpec;
namespace acl {
class User;
}

class Session : public pubsub::Subscriber {
 public:
  virtual ~Session() = default;

  uint64_t id = 0;
  int db = 0;
  int protocol = 2;             // RESP2 or RESP3 (HELLO 3)
  std::string name;             // CLIENT SETNAME
  // CLIENT SETINFO LIB-NAME / LIB-VER (Redis 7.2): the client library
  // behind the connection; kept by RESET, as in Redis.
  std::string lib_name;
  std::string lib_ver;
  bool authenticated = false;   // true at connect when the default user needs no password
  // The ACL user it runs as (engine/acl_users.hpp): the default user at
  // connect, AUTH's user after. nullptr: an internal client (the AOF
  // loader, a script's client) that every command may run as.
  const acl::User* user = nullptr;
  int64_t created_ms = 0;       // for CLIENT LIST age
  int64_t last_interaction_ms = 0;
  // CLIENT LIST rbs and rbp, as Redis's fixed reply buffer would show them
  // (a connection feeds it what it writes).
  ReplyBufferFigures reply_buffer;
  const CommandSpec* last_command = nullptr;  // CLIENT LIST cmd= (nullptr: NULL)
  bool close_after_reply = false;  // QUIT, CLIENT KILL, protocol errors
  bool no_evict = false;           // CLIENT NO-EVICT: maxmemory-clients never disconnects it
  // CLIENT REPLY: OFF mutes every reply until ON; SKIP mutes the next
  // command's (dispatch moves reply_skip_next to reply_skip after each
  // command). Pub/Sub messages and confirmations still come.
  bool reply_off = false;
  bool reply_skip = false;
  bool reply_skip_next = false;

  // MULTI ... EXEC
  bool in_multi = false;
  bool multi_aborted = false;   // a command failed to queue: EXEC replies EXECABORT
  bool in_exec = false;         // EXEC is running the queue (blocking commands don't block)
  // No socket behind it (DetachedSession: the AOF loader, scripts, the
  // replica link): its commands never block.
  bool detached = false;
  // A script's client (Redis's CLIENT_SCRIPT): XREAD ... BLOCK is refused.
  bool in_script = false;
  std::vector<std::vector<std::string>> queued;
  bool queued_denyoom = false;  // a queued command has the denyoom flag (EXEC is refused on OOM)
  store::Watcher watcher;

  // Blocked on keys (engine/blocking.hpp): no further request is read
  // until it is served or its timeout passes.
  bool blocked = false;
  // Its command waits for CLIENT PAUSE to end (engine/client_pause.hpp): it
  // is run again from the unconsumed input then, and nothing else before.
  bool postponed = false;

  // Replication (src/replication/): a replica's link to this server, from
  // its SYNC/PSYNC on (CLIENT LIST flags=S, type replica); the link to this
  // server's own primary (flags=M, type master: obeyed whatever
  // replica-read-only says, never answered, and no socket of the server's
  // connections, replication/primary_session.hpp); and the stream's offset
  // after this client's last write that went to the replicas (WAIT waits
  // for replicas to acknowledge it, as Redis's c->woff).
  bool replica = false;
  bool master = false;
  int64_t write_offset = 0;

  // CLIENT TRACKING (engine/tracking.hpp).
  TrackingState tracking;

  int protocol_version() const override { return protocol; }

  // I/O facts for CLIENT LIST / CLIENT INFO.
  virtual std::string peer_address() const = 0;   // "127.0.0.1:52546"
  virtual std::string local_address() const = 0;  // "127.0.0.1:6379"
  virtual int fd() const = 0;
  virtual size_t query_buffer_bytes() const = 0;
  virtual size_t query_buffer_free() const = 0;
  virtual size_t output_buffer_bytes() const = 0;
  // All this client's memory (CLIENT LIST tot-mem): buffers and itself.
  virtual size_t memory_bytes() const { return 0; }

  // deliver() (pubsub::Subscriber) appends a complete RESP frame to this
  // client's output (a message, a blocked command's reply); the server
  // flushes it.

  // A blocked command's reply, now that it is served: delivered unless
  // CLIENT REPLY mutes it (a SKIP that came before the command lasts until
  // then, as in Redis).
  void deliver_reply(std::string_view frame) {
    if (!reply_off && !reply_skip) deliver(frame);
    reply_skip = false;
  }

  // Closes the connection once pending output is written (CLIENT KILL).
  virtual void close_soon() = 0;
  // The client was unblocked (its reply delivered): serve what it sent since.
  virtual void resume() = 0;
};

}  // namespace lawnkv
