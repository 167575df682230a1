#pragma once
// Active expiry driven by the event loop.
//
// Before the loop blocks in poll (arm()), one timer is set for the earliest
// deadline + 1 ms (a key is due once now > deadline), so an idle server
// sleeps until the next key is due and wakes for nothing else (a deadline
// centuries away gets the longest timer: timer_delay_us). The timer is a
// timerfd watched by the loop, armed to the microsecond on CLOCK_MONOTONIC:
// libuv's own timers count whole milliseconds from a truncated loop time,
// which made the wake-up up to a millisecond late (half of one on average),
// and every key and hash field due in that millisecond with it. arm() calls
// timerfd_settime only when the wake-up moves by more than kRearmSlackUs, so
// a busy loop whose next deadline stays put makes no system call for it.
// When it fires, run() reaps due keys in chunks until expiry-budget-us
// (default 1000 us) is spent; a chunk stops at the budget's end even midway
// (store/reap_limit.hpp), so a run of dear keys cannot stretch the cycle. If due keys remain (a backlog, e.g. a million
// keys due in the same second), an idle handle keeps the next poll from
// blocking: the loop serves ready clients and comes straight back for the
// next chunk, so mass expiry never stalls other clients for more than one
// budget. Lazy expiry on access keeps replies right meanwhile.
// Replies leave in the loop's prepare phase, after the idle phase a cycle
// runs in: a reply to a command read in the last poll would wait behind the
// whole cycle (and a client that sent it while the previous cycle ran, behind
// two budgets). So each cycle first calls flush_first, which sends what is
// waiting to be sent; a client then waits behind at most the cycle under way.
// The flush is part of the cycle's budget (a slow write leaves less time for
// reaping), so that cycle is one budget long, plus one key's overshoot.
// A cycle that caught up (no key left due) spends up to a quarter of its
// budget more (within the budget) sorting the wheel's next slot ahead of time
// (expiry::Wheel's staging; the reaper's drains stage only what their bound
// leaves): a level-2 slot holds 4,096 ms of deadlines, half a million keys of
// a flood, and staging only from the drains' leftovers did not finish before
// it was entered: the rest cascaded at once, several full budgets, and the
// keys of its first milliseconds were reaped 4-5 ms late.
// One run() is one pass of the reaper (store::Keyspace::ReapPass): a hash
// whose fields expire during it is reported once (one `hexpired`, one HDEL
// record), as Redis 7.4 reports once per hash and active-expire cycle.
//
// The same wake-up serves clients blocked on keys (engine/blocking.hpp): the
// timer is set for the earlier of the next key deadline and the next
// element or timeout a blocked client waits for (the server serves them
// before each poll).

#include <uv.h>

#include <cstdint>
#include <functional>
#include <optional>

#include "engine/context.hpp"
#include "server/loop_trace.hpp"

namespace lawnkv::server {

// The longest wait arm() sets, in us (24.8 days). A deadline further away
// (PXAT 1e16) gets this delay; the timer then fires with nothing due, and
// arm() sets the next one: an idle server wakes once in 24.8 days.
inline constexpr uint64_t kMaxTimerDelayUs = uint64_t{INT32_MAX} * 1000;

// The delay, in us, of a timer started at now_us (Unix us) that must fire
// once deadline_ms is due (now > deadline: at deadline + 1 ms, exactly); 0
// when already due; at most kMaxTimerDelayUs. nullopt for expiry::kNever: no
// timer. Defined for every int64 input.
//
//   now_us 5,000,000  deadline 5,000  -> 1,000 (due at 5,001 ms)
//   now_us 5,000,500  deadline 5,000  -> 500
//   now_us 5,000,000  deadline 4,999  -> 0     (due already)
//   now_us 5,000,000  deadline 1e16   -> kMaxTimerDelayUs
std::optional<uint64_t> timer_delay_us(int64_t now_us, int64_t deadline_ms);

class ExpiryCycle {
 public:
  // flush_first: called at the start of every cycle, before any key is
  // reaped (the server sends the replies and records waiting to go).
  // between_chunks: called after each chunk of a cycle that goes on, once
  // the chunk's deletions are in the replicas' outputs (the server sends
  // those), so the replicas apply a chunk while the next one is reaped.
  ExpiryCycle(uv_loop_t* loop, ServerState& state, LoopTrace& trace, std::function<void()> flush_first,
              std::function<void()> between_chunks = nullptr);
  ~ExpiryCycle();
  // Sets the wake-up for the next deadline, or keeps polling non-blocking
  // while a backlog remains. Called before every poll.
  void arm();
  void close();

  // A wake-up this close to the armed one is left as it is.
  static constexpr int64_t kRearmSlackUs = 50;

 private:
  static void on_timer(uv_poll_t* p, int status, int events);
  static void on_idle(uv_idle_t* h);
  // One cycle: reaps due keys for at most one budget; records whether a
  // backlog remains, and counts the cycle in the keyspace's stats (cycles,
  // time caps reached, time spent).
  void run();
  // Whether due keys are reaped: not after DEBUG SET-ACTIVE-EXPIRE 0, nor on
  // a replica (its primary's DELs expire its keys: store::Keyspace::
  // set_replica_expiry).
  bool reaps() const { return state_.facts.active_expire && !state_.data.keyspace.replica_expiry(); }
  // Arms the timerfd for CLOCK_MONOTONIC time at_us, or disarms it (-1).
  void set_timer(int64_t at_us);

  // Keys one chunk reaps at most; a chunk also stops at the budget's end.
  static constexpr size_t kChunk = 128;
  // A cycle that caught up stages the wheel's next slot ahead of time for up
  // to this share of its budget more (1/4: 250 us of 1,000; the cycle stays
  // within its budget), in steps of kStageMoves timers (5-50 us).
  static constexpr int64_t kStageShareOfBudget = 4;
  static constexpr size_t kStageMoves = 512;
  // A reap call longer than this is recorded in the loop trace.
  static constexpr uint64_t kTracedChunkNs = 100'000;

  ServerState& state_;
  LoopTrace& trace_;
  std::function<void()> flush_first_;
  std::function<void()> between_chunks_;
  int timer_fd_ = -1;
  uv_poll_t timer_;
  uv_idle_t idle_;
  int64_t armed_at_us_ = -1;  // CLOCK_MONOTONIC us the timer fires at; -1: none
  bool backlog_ = false;
};

}  // namespace lawnkv::server
