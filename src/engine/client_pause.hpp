#pragma once
// CLIENT PAUSE as Redis 7.0 (networking.c pauseClients, server.c
// processCommand): while a pause is on, a client's command that it holds
// waits, unanswered and unqueued, and nothing more is read from that client;
// when the pause ends (CLIENT UNPAUSE, or its end time passes) the waiting
// clients run their command again, in the order they began to wait, and
// may wait again if a new pause holds them.
//
// What a pause holds: ALL every command (CLIENT UNPAUSE included, as in
// Redis: only the end time ends such a pause); WRITE the commands that may
// write or replicate (the write and may_replicate flags, an EXEC whose queue
// holds one, an EVAL or FCALL whose script may write: pause_flags below).
// Clients without a socket (the AOF loader, scripts) are never held.
//
// While paused the dataset stands still, as Redis keeps it: no active
// expiry, no eviction, and a key found expired reads as absent but is not
// deleted (store::Keyspace::keep_expired); what fell due is reaped once the
// pause ends.
//
// A pause whose end passed ends when it is next looked at (dispatch before
// each command, the loop before it waits): Redis's
// checkClientPauseTimeoutAndReturnIfPaused. The end is the server clock's,
// so DEBUG ADVANCE-TIME moves it too.
//
// Each purpose (Redis 7.0's pause_purpose: CLIENT PAUSE, FAILOVER) keeps
// its own pause: a new one of the same purpose keeps the more restrictive
// type and the later end (pauseClients), and ending one (CLIENT UNPAUSE,
// a FAILOVER that ends) leaves the others on. What holds clients is the
// most restrictive type among the purposes, until the latest end among
// those of that type (updateClientPauseTypeAndEndTime); when it becomes
// less restrictive the waiting clients run again (and may wait again).

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string_view>
#include <vector>

namespace lawnkv {

struct ServerState;
struct CommandSpec;
class Session;

class ClientPause {
 public:
  enum class Type { kOff = 0, kWrite = 1, kAll = 2 };
  enum class Purpose { kClientCommand = 0, kFailover = 1 };

  // Pauses for `purpose` until end_ms (inclusive: the pause is on while
  // now <= end_ms); now_ms ends the pauses whose end has passed.
  void pause(Purpose purpose, Type type, int64_t end_ms, int64_t now_ms);
  // Ends the pause of `purpose` alone.
  void unpause(Purpose purpose, int64_t now_ms);
  // Whether a pause is on at now_ms; one whose end passed ends here.
  bool active(int64_t now_ms);
  // Whether a pause is on, as last decided (without looking at the time).
  bool on() const { return type_ != Type::kOff; }
  Type type() const { return type_; }
  int64_t end_ms() const { return end_ms_; }

  // Whether a command with these (effective) command flags waits now.
  bool holds(uint32_t flags) const;

  // The client with this id waits for the pause to end.
  void postpone(uint64_t id) { waiting_.push_back(id); }
  // The waiting client with this id is gone (it disconnected): no longer
  // counted (INFO blocked_clients), nothing to release. O(waiting).
  void forget(uint64_t id);
  size_t waiting() const { return waiting_.size(); }
  // The clients to run again, in the order they began to wait: all of them
  // once the pause has ended or become less restrictive (empty while it
  // lasts as it was); they are no longer counted as waiting.
  std::vector<uint64_t> take_released();

 private:
  struct Event {
    Type type = Type::kOff;
    int64_t end_ms = 0;
  };
  // Recomputes type_ and end_ms_ from the purposes, ending those whose end
  // is before now_ms.
  void update(int64_t now_ms);

  std::array<Event, 2> purposes_{};  // indexed by Purpose
  Type type_ = Type::kOff;            // the most restrictive purpose's
  int64_t end_ms_ = 0;                // the latest end among purposes of type_
  bool release_ = false;              // type_ became less restrictive
  std::deque<uint64_t> waiting_;
};

// The server's pause, kept in step with the keyspace (which keeps expired
// keys while a pause is on). Defined in pause_control.cpp, which sees
// ServerState (whose header includes this one).
void pause_clients(ServerState& server, ClientPause::Purpose purpose, ClientPause::Type type, int64_t end_ms,
                   int64_t now_ms);
void unpause_clients(ServerState& server, ClientPause::Purpose purpose, int64_t now_ms);
// Whether a pause is on at now_ms (one whose end passed ends here).
bool clients_paused(ServerState& server, int64_t now_ms);
// The flags that decide whether this call waits: the row's, an EXEC's
// queued commands' together, a script's (CommandSpec::call_flags).
uint32_t pause_flags(ServerState& server, const Session& session, const CommandSpec& spec,
                     std::span<const std::string_view> argv);

}  // namespace lawnkv
