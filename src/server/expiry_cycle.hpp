#pragma once
// Active expiry driven by the event loop.
//
// Before the loop blocks in poll (arm()), one libuv timer is set for the
// earliest deadline + 1 ms (a key is due once now > deadline), so an idle
// server sleeps until the next key is due and wakes for nothing else. When it
// fires, run() reaps due keys in chunks until expiry-budget-us (default
// 1000 us) is spent. If due keys remain (a backlog, e.g. a million keys due
// in the same second), an idle handle keeps the next poll from blocking: the
// loop serves ready clients and comes straight back for the next chunk, so
// mass expiry never stalls other clients for more than one budget. Lazy
// expiry on access keeps replies right meanwhile.
//
// The same wake-up serves clients blocked in REDE.BPOLL: the timer is set for
// the earlier of the next key deadline and the next element or timeout a
// blocked client waits for (the server serves them before each poll).

#include <uv.h>

#include "commands/context.hpp"

namespace lawnkv::server {

class ExpiryCycle {
 public:
  ExpiryCycle(uv_loop_t* loop, ServerState& state);
  // Sets the wake-up for the next deadline, or keeps polling non-blocking
  // while a backlog remains. Called before every poll.
  void arm();
  void close();

 private:
  static void on_timer(uv_timer_t* t);
  static void on_idle(uv_idle_t* h);
  // Reaps due keys for at most one budget; records whether a backlog remains.
  void run();

  static constexpr size_t kChunk = 128;  // keys between two looks at the clock

  ServerState& state_;
  uv_timer_t timer_;
  uv_idle_t idle_;
  bool backlog_ = false;
};

}  // namespace lawnkv::server
