#pragma once
// The expiry index: "Lawn on a wheel" (DESIGN.md). Pure data structure: it
// knows nothing of keys, sockets or the loop; it links caller-owned Timers and
// hands them back once due (deadline < now, never at ==).
//
// Two tiers behind one interface:
//   - Lawn queues (lawn_queue.hpp): a FIFO per hot TTL. Same TTL => deadlines
//     arrive in order, so add is an append and the head is the earliest.
//   - A hierarchical timing wheel (wheel.hpp) over absolute Unix ms: absolute
//     deadlines (EXPIREAT/PXAT), rare TTLs, and any add that would break a
//     queue's order (clock stepped back). Plus ONE proxy per non-empty queue,
//     at its head's deadline: a tick costs the same with 1 or 1,000,000 TTLs.
//   - The TTL frequency table (ttl_table.hpp) decides when a TTL gets a queue:
//     after 4 recent arrivals. A TTL seen once costs a wheel insert.
//
// Worked example (pinned by tests/unit/expiry_index_test.cpp). The wheel's
// cursor is at T = 1,700,000,000,000 (the last drain ran with now = T), and
// TTL 5000 is hot (queue q5000); TTL 1234 was never seen:
//
//   call                          where the Timer goes
//   add(a, T + 5000, 5000)        q5000 (empty): a is its head; q5000's proxy
//                                 goes in the wheel at T+5000: level 2, slot 23
//   add(b, T + 5001, 5000)        q5000 tail (5001 >= 5000). Wheel untouched.
//   add(c, T + 1234, 1234)        1234 is cold (sketch count 1): wheel, level 1,
//                                 slot 51 (the slot starts at T + 1216)
//   add(d, T + 40, 0)             PXAT: wheel, level 0, slot 40 (exactly T+40)
//   add(e, T + 3000, 5000)        now stepped back 2 s: 3000 < tail 5001, so
//                                 e goes to the wheel: level 2, slot 23 (the
//                                 proxy's slot; cascading separates them)
//
//   next_deadline() = T + 40 (level 0 is exact).
//   drain(T + 41) yields d. drain(T + 5002) yields c, e, a, b in that order:
//   the proxy comes due at T+5000, a is taken and the proxy re-armed at b's
//   T+5001. cancel(a) before that would have moved the proxy to T+5001 in O(1)
//   (a's predecessor is q5000's sentinel, whose field names q5000).
//
// Memory. Per scheduled timer: the caller's 16-byte Timer, nothing else.
// Per hot TTL: a 48-byte LawnQueue (with its proxy) + 32..64 bytes of hot map.
// Per index: 47 KB of wheel sentinels, a 16 KiB sketch once a TTL is seen,
// queue chunks of 12 KiB. memory_bytes() reports all of it.
//
// Arena. Links are 32-bit arena::Refs (timer.hpp): every Timer passed to
// add/reschedule must live in the arena, and the index allocates its
// sentinels and queues there. They never move, so an Index may be moved.
//
// Bounded work. drain(now, max) yields at most max Timers and cascades at most
// kMovesPerYield * max wheel Timers, each in O(1) (plus O(levels) per slot it
// looks at). A cascade that does not fit resumes on the next call;
// next_deadline() then returns a value < now, so the caller knows to come back
// without sleeping. Every Timer cascades at most 10 times between add and
// drain, so cascading is also amortised O(1) per timer. The price of the
// bound: when the cursor enters a slot holding very many wheel Timers (say
// 100,000 PXAT keys within 4 s), the first of them wait for that slot's
// cascade, spread over several drains (~100 ns per Timer when the Timers are
// scattered in memory, bench/expiry_results.md). Hot-TTL entries never
// cascade; only their queue's proxy does.
//
// Clock steps. Only drain's `now` decides what is due. A deadline below the
// wheel's cursor rewinds the cursor (wheel.hpp): nothing is lost, nothing is
// yielded before its deadline, and the rewind costs O(non-empty low slots).
//
// Not thread-safe; one Index per loop (the keyspace keeps one per db, the
// dehydrator its own). Destroying an Index leaves the Timers it still holds
// pointing into freed memory: cancel them first, or drop them with it (clear).

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "expiry/lawn_queue.hpp"
#include "expiry/timer.hpp"
#include "expiry/ttl_table.hpp"
#include "expiry/wheel.hpp"

namespace lawnkv::expiry {

class Index {
 public:
  // Cascade moves one drain may do per Timer it may yield.
  static constexpr size_t kMovesPerYield = 4;
  // Idle (empty) queues kept hot beyond the busy ones.
  static constexpr size_t kMinIdleQueues = 64;

  Index() = default;
  Index(Index&&) noexcept = default;  // the moved-from Index may only be destroyed
  Index& operator=(Index&&) noexcept = default;

  // Schedules the unscheduled t, which lives in the arena (timer.hpp), at
  // deadline (>= 0, absolute Unix ms; asserted: callers validate client
  // input before it gets here, see the Makefile on asserts).
  // ttl_ms > 0: the entry was given a relative TTL (EXPIRE/PX/SET EX); it may
  // go in that TTL's Lawn queue. ttl_ms <= 0: an absolute deadline
  // (EXPIREAT/PXAT): wheel. O(1).
  void add(Timer* t, int64_t deadline, int64_t ttl_ms) {
    assert(t->next == nullptr && deadline >= 0);
    t->deadline = deadline;
    ++size_;
    if (ttl_ms > 0 && deadline < detail::kQueueDeadlineLimit) {
      // Inline: a hot TTL whose queue's tail is not later than deadline.
      LawnQueue* q = ttls_.find(ttl_ms);
      if (q != nullptr) {
        Timer* tail = q->tail();
        if (tail != &q->list && deadline >= tail->deadline) {
          detail::link_before(&q->list, t);
          return;
        }
      }
      add_ttl_slow(t, q, ttl_ms);
      return;
    }
    wheel_.insert(t);
  }

  // Unschedules t; no-op if it is not scheduled. O(1).
  void cancel(Timer* t) {
    if (t->next == nullptr) return;
    Timer* p = detail::unlink(t);
    --size_;
    // Only a sentinel predecessor (t was a head) needs more: a wheel slot may
    // be empty now, a queue's proxy must follow its new head.
    if (detail::is_sentinel_field(p->deadline)) [[unlikely]] head_removed(p);
  }

  // cancel + add. O(1).
  void reschedule(Timer* t, int64_t deadline, int64_t ttl_ms) {
    cancel(t);
    add(t, deadline, ttl_ms);
  }

  static bool scheduled(const Timer* t) { return t->next != nullptr; }

  // The scheduled timer `from` is about to be freed, its owner copied to a
  // new block: `to` (unscheduled) takes its deadline and its place, in O(1)
  // and without changing what any list holds in which order.
  static void relocate(Timer* from, Timer* to) {
    assert(scheduled(from) && !scheduled(to));
    to->deadline = from->deadline;
    to->prev = from->prev;
    to->next = from->next;
    to->prev->next = to;
    to->next->prev = to;
    from->prev = nullptr;
    from->next = nullptr;
  }

  // Earliest deadline of any scheduled timer, or a lower bound of it (never
  // later than the true earliest), kNever if empty. O(levels); O(1) when
  // empty (the loop asks every db's index at every iteration, and most
  // dbs are empty).
  int64_t next_deadline() const { return size_ == 0 ? kNever : wheel_.next_deadline(); }

  // Unlinks up to max timers with deadline < now, in deadline order (exact to
  // the ms, any order within one ms), calling on_due(Timer*) after each
  // is unlinked. on_due may add/cancel/reschedule other timers, or re-add this
  // one. An on_due that returns bool stops the drain by returning false (the
  // caller's time bound): the timer it was given counts as yielded, and the
  // rest stay where they are, in order. Returns how many were yielded. What
  // is left due carries over to the next call. Never yields a timer with now
  // <= deadline. May return fewer than max while due timers remain only if
  // its cascade bound ran out (then next_deadline() < now) or on_due stopped
  // it.
  template <class F>
  size_t drain(int64_t now, size_t max, F&& on_due) {
    size_t yielded = 0;
    size_t moves = max > SIZE_MAX / kMovesPerYield ? SIZE_MAX : max * kMovesPerYield;
    while (yielded < max) {
      Timer* t = wheel_.pop_due(now, moves);
      if (t == nullptr) break;
      if (detail::is_proxy_field(t->deadline)) t = take_head(LawnQueue::from_proxy(t));
      --size_;
      ++yielded;
      if constexpr (std::is_same_v<decltype(on_due(t)), bool>) {
        // Stopped: its time is spent, staging included.
        if (!on_due(t)) return yielded;
      } else {
        on_due(t);
      }
    }
    // What the bound leaves is spent sorting the next slot the wheel will
    // enter ahead of its time (Wheel's staging): work its cascade would
    // otherwise do at once.
    wheel_.stage(moves);
    return yielded;
  }

  // Spends up to moves_left (decremented) sorting the next wheel slot ahead
  // of its time, as drain() spends what its bound leaves: a caller with time
  // to spare (the expiry cycle, caught up) keeps a slot that holds many
  // timers from being cascaded at once when it is entered. Each move is one
  // timer, O(1); nothing moves when nothing is left to sort.
  void stage(size_t& moves_left) { wheel_.stage(moves_left); }

  // The earliest deadline of any scheduled timer, exactly (kNever if empty):
  // a queue's head stands in the wheel as its proxy. Cost: see Wheel::earliest.
  int64_t earliest() const { return wheel_.earliest(); }

  // Scheduled timers (not counting internal proxies).
  size_t size() const { return size_; }
  // Bytes the index itself allocated (not the Timers).
  size_t memory_bytes() const;

  // Forgets every scheduled timer without touching it (their memory may
  // already be gone, as after FLUSHALL); they must not be cancelled after.
  void clear();

  // For tests and INFO: how many Lawn queues exist, and the wheel itself.
  size_t queues() const { return queues_.live(); }
  const Wheel& wheel() const { return wheel_; }

 private:
  // add() of a TTL timer that is not an append to a non-empty queue: the
  // first of its queue, a cold TTL's arrival (which may make it hot), or a
  // deadline below its queue's tail (clock stepped back): wheel.
  void add_ttl_slow(Timer* t, LawnQueue* q, int64_t ttl);
  LawnQueue* make_hot(int64_t ttl);

  // First Timer of the empty (hence idle) queue q.
  void start_queue(LawnQueue* q, Timer* t) {
    queues_.remove_idle(q);
    detail::link_before(&q->list, t);
    arm_proxy(q, t->deadline);
  }
  void arm_proxy(LawnQueue* q, int64_t head_deadline) {
    q->proxy.deadline = detail::proxy_field(head_deadline);
    wheel_.insert(&q->proxy);
  }

  // q's proxy came due (and left the wheel): unlinks and returns q's head,
  // leaving q consistent (proxy re-armed at the new head, or q idle).
  Timer* take_head(LawnQueue* q) {
    Timer* t = q->head();
    detail::unlink(t);
    if (q->empty()) {
      queue_emptied(q);
    } else {
      Timer* h = q->head();
      // The head after this one will be read when h is taken: start its
      // cache miss now, while other queues are served.
      __builtin_prefetch(h->next);
      arm_proxy(q, h->deadline);
    }
    return t;
  }

  // A cancel unlinked the head of the list whose sentinel is s.
  void head_removed(Timer* s);
  void queue_emptied(LawnQueue* q);

  Wheel wheel_;
  LawnQueues queues_;
  TtlTable ttls_;
  size_t size_ = 0;
};

}  // namespace lawnkv::expiry
