#pragma once
// Lawn queues: one FIFO of Timers per hot TTL, and the store that owns them.
//
// Every Timer appended to the queue of TTL t was added as "now + t" with a now
// that only grows, so the queue is sorted by deadline for free: add is an
// append, cancel an O(1) unlink, the earliest is the head. (If the clock steps
// back, a new deadline can fall below the tail's; the index then sends that
// Timer to the wheel instead, so a queue is always sorted.)
//
// A non-empty queue is represented in the wheel by ONE proxy Timer whose
// position is its head's deadline. The wheel never looks inside a queue, so the
// cost of a tick does not depend on how many queues exist; when the proxy comes
// due the index takes the head and re-arms the proxy at the next head.
//
//   LawnQueue (48 bytes)
//   +-----------------+-----------------+-------+------------+------------+
//   | proxy (Timer)   | list (sentinel) | ttl   | idle_prev  | idle_next  |
//   | 16 B, in wheel  | 16 B            | 8 B   | 4 B        | 4 B        |
//   +-----------------+-----------------+-------+------------+------------+
//
// The list sentinel's deadline field encodes the queue's id (timer.hpp), so a
// Timer whose predecessor is that sentinel (the head) finds its queue in O(1)
// when cancelled, with no pointer back from the Timer. The proxy is the first
// member, so a proxy popped from the wheel is its queue.
//
// Queues live in arena chunks of 256 (12 KiB) that never move (Timers link
// into them by 32-bit Refs; growing chunks_ moves only the vectors); ids
// of retired queues are reused. A queue that becomes empty goes to an idle
// FIFO and keeps its TTL hot for a while; the index retires the oldest idle
// queues once they outnumber max(64, busy queues), so queues stay within
// 2 x (scheduled timers) + 64.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/arena.hpp"
#include "expiry/timer.hpp"

namespace lawnkv::expiry {

inline constexpr uint32_t kNoQueue = UINT32_MAX;

struct LawnQueue {
  Timer proxy;    // in the wheel at proxy_field(head deadline) iff the list is non-empty
  Timer list;     // sentinel: list.next = head (earliest), list.prev = tail
  int64_t ttl = 0;  // 0 = this slot is free
  uint32_t idle_prev = kNoQueue;  // idle FIFO links (ids), meaningful while empty
  uint32_t idle_next = kNoQueue;

  bool empty() const { return list.next == &list; }
  Timer* head() { return list.next; }
  Timer* tail() { return list.prev; }
  uint32_t id() const {
    return static_cast<uint32_t>(detail::sentinel_code(list.deadline) - detail::kWheelSlotCodes);
  }
  // The queue whose proxy p is.
  static LawnQueue* from_proxy(Timer* p) { return reinterpret_cast<LawnQueue*>(p); }
};
static_assert(sizeof(LawnQueue) == 48);

class LawnQueues {
 public:
  static constexpr uint32_t kChunk = 256;

  LawnQueue* at(uint32_t id) { return &chunks_[id / kChunk][id % kChunk]; }
  // The queue whose list sentinel has this code.
  LawnQueue* from_sentinel_code(int64_t code) {
    return at(static_cast<uint32_t>(code - detail::kWheelSlotCodes));
  }

  // A new empty queue for ttl (> 0), not yet on the idle FIFO.
  LawnQueue* create(int64_t ttl);
  // Frees an empty queue that is not on the idle FIFO; its id is reused.
  void destroy(LawnQueue* q);

  // The idle FIFO: empty queues, oldest first.
  void push_idle(LawnQueue* q);
  void remove_idle(LawnQueue* q);
  LawnQueue* oldest_idle() { return idle_head_ == kNoQueue ? nullptr : at(idle_head_); }

  size_t live() const { return live_; }
  size_t idle() const { return idle_; }
  size_t memory_bytes() const;
  // Forgets every queue (their Timers are not touched).
  void clear();

 private:
  using Chunk = std::vector<LawnQueue, arena::Allocator<LawnQueue>>;  // kChunk queues
  std::vector<Chunk> chunks_;
  std::vector<uint32_t> free_;
  uint32_t next_id_ = 0;
  uint32_t idle_head_ = kNoQueue;
  uint32_t idle_tail_ = kNoQueue;
  size_t live_ = 0;
  size_t idle_ = 0;
};

}  // namespace lawnkv::expiry
