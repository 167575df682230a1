#pragma once
// FAILOVER (Redis 7.0's coordinated failover, replication.c's
// failoverCommand and updateFailoverStatus): a primary hands its role to
// one of its replicas without losing a write.
//
//   kNone            no failover (INFO master_failover_state: no-failover)
//   kWaitingForSync  FAILOVER answered +OK: clients' writes are paused
//                    (CLIENT PAUSE WRITE, with no end) until a replica
//                    (the TO one, or any) has acknowledged every byte of
//                    the stream (waiting-for-sync). Past TIMEOUT ms: with
//                    FORCE the failover goes on regardless, without it it
//                    is aborted ("Replica never caught up before timeout").
//  kInProgress       this server is made a replica of the target, whose
//                    handshake sends PSYNC <our replid> <offset+1> FAILOVER:
//                    the target, whose replid is ours, becomes a primary
//                    and continues our history (failover-in-progress). Its
//                    +CONTINUE (or +FULLRESYNC) ends the failover; a refused
//                    PSYNC aborts it: this server is a primary again.
//
// Ending, or aborting, unpauses the clients. While a failover runs,
// REPLICAOF and replicas' (P)SYNC are refused, and the stream's PINGs stop
// when a TIMEOUT was given (they would move the offset the replica must
// reach), as in Redis. The pause is the server's one CLIENT PAUSE: CLIENT
// UNPAUSE ends it too (Redis keeps the failover's pause apart).

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/server_state.hpp"
#include "replication/primary.hpp"
#include "replication/replication_state.hpp"

namespace lawnkv::replication {

class Failover {
 public:
  enum class State { kNone, kWaitingForSync, kInProgress };

  // FAILOVER's arguments, parsed.
  struct Request {
    bool to = false;         // TO host port given; else any replica
    std::string host;
    int64_t port = 0;
    bool force = false;      // FORCE
    int64_t timeout_ms = 0;  // TIMEOUT ms; 0 = none
  };

  Failover(ServerState& server, ReplicationState& history, Primary& primary)
      : server_(server), history_(history), primary_(primary) {}

  // FAILOVER [TO host port [FORCE]] [TIMEOUT ms] after its syntax checks:
  // "" (started) or the error to reply, as Redis's, in its order.
  std::string start(const Request& request, int64_t now_ms);
  // FAILOVER ABORT: "" or "ERR No failover in progress.".
  std::string abort_by_user();
  // Before the loop waits: a replica caught up, or the timeout passed.
  void tick(int64_t now_ms);
  // The target answered our PSYNC ... FAILOVER: ok (+CONTINUE, +FULLRESYNC)
  // ends the failover; a refusal aborts it.
  void psync_done(bool ok);

  State state() const { return state_; }
  bool running() const { return state_ != State::kNone; }
  // INFO replication's master_failover_state.
  std::string_view state_name() const;
  // The stream's PINGs wait while a failover with a timeout pauses writes.
  bool holds_pings() const { return state_ != State::kNone && end_ms_ != 0; }

 private:
  void abort(std::string_view why);
  void clear();
  // Makes this server a replica of the target, the handshake's PSYNC
  // carrying FAILOVER.
  void go(int64_t now_ms);
  std::string target_name() const { return host_ + ":" + std::to_string(port_); }
  void log(std::string_view text) const;

  ServerState& server_;
  ReplicationState& history_;
  Primary& primary_;
  State state_ = State::kNone;
  bool any_ = false;  // no target chosen yet (FAILOVER without TO)
  std::string host_;  // the target
  int64_t port_ = 0;
  bool force_ = false;
  int64_t end_ms_ = 0;  // the timeout's end; 0 = none
};

}  // namespace lawnkv::replication
