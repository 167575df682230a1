#pragma once
// A command that runs long (a script past busy-reply-threshold) keeps the
// server answering the other clients, as Redis's processEventsWhileBlocked:
// the server's loop implements BusyLoop, ServerState points at it, and the
// scripting room calls it from its Lua hook. Meanwhile
// ServerState::busy_error holds the reply dispatch gives to every command
// without the allow-busy flag (Redis's -BUSY).
//
// The running command owns the dataset and its frozen time until it ends:
// the loop reads and answers the other clients, but runs no timer (the
// expiry cycle, eviction, the crons) and serves no blocked client, and
// only allow-busy commands run, none of which touches a key's value.
// A server state without a loop (tests and fuzzers without sockets) has
// ServerState::busy_loop null: a script past the threshold is then stopped
// with an error, since nothing could ever kill it; so is a busy script
// whose loop is cleared meanwhile (the command fuzzer's gives up on one
// that wrote).

namespace lawnkv {

class BusyLoop {
 public:
  virtual ~BusyLoop() = default;
  // Serves the other clients once without waiting: accepts new ones, reads
  // what each sent and runs it, writes the replies. Never reads or writes
  // the clients whose commands are running. A SHUTDOWN NOSAVE it ran ends
  // the process here, as redis-server exits from inside the script.
  virtual void serve_while_busy() = 0;
};

}  // namespace lawnkv
