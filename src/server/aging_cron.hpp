#pragma once
// The keyspace's aging passes (store/idle_class.hpp: the idle classes that
// OBJECT IDLETIME reads) driven by the event loop.
//
// Before the loop blocks in poll (arm()), a one-shot timer is set for the
// start of the next pass, on the server clock (so DEBUG ADVANCE-TIME moves
// it at the next iteration). When it fires, the pass runs in steps of
// store::IdleAging::kPassStep keys from an idle handle, one step a loop
// iteration between the clients' events, until it ends. No timer is set
// while the keyspace is empty, nor while a child process (BGSAVE, AOF
// rewrite) runs: writing every key's header would copy every page of the
// dataset the child shares (Redis counts no access then either); the
// pass comes late, and keys are only older than their class says.

#include <uv.h>

#include <cstdint>

#include "engine/context.hpp"
#include "server/loop_trace.hpp"

namespace lawnkv::server {

class AgingCron {
 public:
  AgingCron(uv_loop_t* loop, ServerState& state, LoopTrace& trace);
  // Sets the wake-up for the next pass, or keeps the steps of the pass
  // under way coming. Called before every poll.
  void arm();
  void close();

  // A wake-up this close (ms of libuv's loop time) to the armed one is left
  // as it is.
  static constexpr uint64_t kRearmSlackMs = 10;

 private:
  static void on_timer(uv_timer_t* t);
  static void on_idle(uv_idle_t* h);
  void step();
  void stop();

  ServerState& state_;
  LoopTrace& trace_;
  uv_timer_t timer_;
  uv_idle_t idle_;
  uint64_t armed_at_ = 0;  // libuv loop time (ms) the timer fires at, while active
};

}  // namespace lawnkv::server
