#pragma once
// The intrusive link every expiring thing embeds (a key's entry, a dehydrator
// element), and how the expiry index reads the deadline field of the Timers it
// owns itself: list sentinels and Lawn-queue proxies.
//
// The index tells its own Timers from the caller's by the sign of `deadline`,
// so a Timer needs no `home` field and stays 16 bytes:
//
//   deadline field              what the Timer is
//   --------------------------  ------------------------------------------------
//   [0, INT64_MAX]              a caller's timer; the field is its deadline
//   [-2^62, -1]                 a list sentinel owned by the index;
//                               code = -field - 1: codes [0, 2944) are wheel
//                               lists (wheel.hpp), code 2944 + q is the
//                               sentinel of Lawn queue q
//   [INT64_MIN, -2^62)          a Lawn queue's proxy in the wheel; the field is
//                               INT64_MIN + (deadline of the queue's head), so
//                               `field & INT64_MAX` is its position in time.
//                               Hence queue entries need deadline < 2^62 (year
//                               146,138,514); later ones simply go to the wheel.

#include <cstdint>

#include "core/arena.hpp"
#include "core/deadline.hpp"

namespace lawnkv::expiry {

// Intrusive link embedded in whatever expires. 16 bytes, no allocation per
// timer. While scheduled, prev/next belong to the index; deadline is only
// written by add/reschedule and stays readable by the owner at any time.
//
// The links are 32-bit arena::Refs, so every Timer the index links must live
// in the arena (core/arena.hpp): inside an object allocated there (a key's
// entry, a dehydrator element), or in a container using arena::Allocator. The
// index's own sentinels and proxies live there too. A Timer on the stack or
// in malloc'd memory cannot be linked: its Ref would point elsewhere. Not
// asserted in Index::add, which stays small enough to inline.
struct Timer {
  int64_t deadline = 0;      // absolute Unix ms; due once now > deadline (never at ==)
  arena::Ref<Timer> prev;    // circular doubly-linked list through a sentinel
  arena::Ref<Timer> next;    // null = not scheduled
};
static_assert(sizeof(Timer) == 16);

inline constexpr int64_t kNever = kNoDeadline;  // INT64_MAX

namespace detail {

inline constexpr int64_t kWheelSlotCodes = 64 + 10 * 64 * 4 + 64 + 64 * 4;  // Wheel::kLists
inline constexpr int64_t kSentinelFloor = -(int64_t{1} << 62);
inline constexpr int64_t kQueueDeadlineLimit = int64_t{1} << 62;

// The deadline field a sentinel with this code carries, and back.
constexpr int64_t sentinel_field(int64_t code) { return -code - 1; }
constexpr int64_t sentinel_code(int64_t field) { return -field - 1; }
constexpr bool is_sentinel_field(int64_t field) { return field < 0 && field >= kSentinelFloor; }

// A proxy's field for a head deadline in [0, kQueueDeadlineLimit).
constexpr int64_t proxy_field(int64_t head_deadline) { return INT64_MIN + head_deadline; }
constexpr bool is_proxy_field(int64_t field) { return field < kSentinelFloor; }

// Where a Timer the wheel holds (a caller's timer or a proxy) sits in time.
inline int64_t wheel_key(const Timer* t) { return t->deadline & INT64_MAX; }

// Makes t a one-element circular list: an empty list's sentinel.
inline void make_empty_list(Timer* sentinel, int64_t code) {
  sentinel->deadline = sentinel_field(code);
  sentinel->prev = sentinel;
  sentinel->next = sentinel;
}

// Links t just before pos (at the tail when pos is the sentinel).
inline void link_before(Timer* pos, Timer* t) {
  Timer* p = pos->prev;
  t->prev = p;
  t->next = pos;
  p->next = t;
  pos->prev = t;
}

// Unlinks a linked t, marks it unscheduled, and returns what preceded it (the
// sentinel when t was the head; then `prev->next == prev` says the list is now
// empty).
inline Timer* unlink(Timer* t) {
  Timer* p = t->prev;
  Timer* n = t->next;
  p->next = n;
  n->prev = p;
  t->prev = nullptr;
  t->next = nullptr;
  return p;
}

// Moves every element of the non-empty list `from` to the tail of `to`, in
// O(1); `from` is left empty.
inline void splice_tail(Timer* from, Timer* to) {
  Timer* first = from->next;
  Timer* last = from->prev;
  Timer* tail = to->prev;
  tail->next = first;
  first->prev = tail;
  last->next = to;
  to->prev = last;
  from->next = from;
  from->prev = from;
}

}  // namespace detail
}  // namespace lawnkv::expiry
