#include "expiry/wheel.hpp"

#include <algorithm>

namespace lawnkv::expiry {

Wheel::Wheel() : slots_(std::make_unique<Timer[]>(kLevels * kSlots)) {
  for (int code = 0; code < kLevels * kSlots; ++code) detail::make_empty_list(&slots_[code], code);
}

bool Wheel::empty() const {
  for (uint64_t occ : occupied_) {
    if (occ != 0) return false;
  }
  return true;
}

Timer* Wheel::pop_due_slow(int64_t now, size_t& moves_left) {
  // Invariant of the loop: cursor_ < now.
  for (;;) {
    if (cascading_ && !run_cascade(moves_left)) return nullptr;
    if (const uint64_t occ = occupied_[0]) {
      const int s = std::countr_zero(occ);
      const int64_t start = (cursor_ & ~int64_t{63}) | s;
      if (start >= now) {
        cursor_ = now;
        return nullptr;
      }
      cursor_ = start;
      Timer* head = &slots_[s];
      Timer* t = head->next;
      detail::unlink(t);
      if (head->next == head) occupied_[0] &= ~(uint64_t{1} << s);
      return t;
    }
    int level = 1;
    while (level < kLevels && occupied_[level] == 0) ++level;
    if (level == kLevels) {
      cursor_ = now;
      return nullptr;
    }
    const int s = std::countr_zero(occupied_[level]);
    const int64_t start = slot_start(cursor_, level, s);
    if (start >= now) {
      // The cursor may approach the slot but not enter it: entering means
      // its Timers belong lower.
      cursor_ = std::min(now, start - 1);
      return nullptr;
    }
    cursor_ = start;
    cascading_ = true;
    cascade_code_ = level * kSlots + s;
  }
}

bool Wheel::run_cascade(size_t& moves_left) {
  // The slot's list is walked from both ends at once: each end is a chain of
  // dependent cache misses, and two chains overlap where one cannot.
  Timer* head = &slots_[cascade_code_];
  while (head->next != head) {
    if (moves_left == 0) return false;
    --moves_left;
    Timer* t = head->next;
    head->next = t->next;
    t->next->prev = head;
    Timer* u = nullptr;
    if (head->prev != head && moves_left > 0) {
      --moves_left;
      u = head->prev;
      head->prev = u->prev;
      u->prev->next = head;
    }
    const Place p = place(cursor_, detail::wheel_key(t));
    assert(p.level < cascade_code_ / kSlots);
    link(t, p.level * kSlots + p.slot);
    if (u != nullptr) {
      const Place q = place(cursor_, detail::wheel_key(u));
      link(u, q.level * kSlots + q.slot);
    }
  }
  slot_emptied(cascade_code_);
  cascading_ = false;
  return true;
}

void Wheel::rewind(int64_t key) {
  // A half-done cascade holds Timers whose right level is not known without
  // placing them: finish it first (rare: only a clock step meets one).
  if (cascading_) {
    size_t unlimited = SIZE_MAX;
    run_cascade(unlimited);
  }
  const int m = place(cursor_, key).level;
  if (m > 0) {
    const int dest = m * kSlots + static_cast<int>((static_cast<uint64_t>(cursor_) >> (kSlotBits * m)) & 63);
    for (int level = 0; level < m; ++level) {
      if (occupied_[level] == 0) continue;
      for (uint64_t occ = occupied_[level]; occ != 0; occ &= occ - 1) {
        detail::splice_tail(&slots_[level * kSlots + std::countr_zero(occ)], &slots_[dest]);
      }
      occupied_[level] = 0;
      occupied_[m] |= uint64_t{1} << (dest & 63);
    }
  }
  cursor_ = key;
}

int64_t Wheel::next_deadline() const {
  // A half-done cascade holds keys >= cursor whose level is not known yet.
  if (cascading_ && slots_[cascade_code_].next != &slots_[cascade_code_]) return cursor_;
  for (int level = 0; level < kLevels; ++level) {
    if (occupied_[level] != 0) return slot_start(cursor_, level, std::countr_zero(occupied_[level]));
  }
  return kNever;
}

int64_t Wheel::least_key(int code) const {
  int64_t least = kNever;
  for (const Timer* t = slots_[code].next; t != &slots_[code]; t = t->next)
    least = std::min(least, detail::wheel_key(t));
  return least;
}

int64_t Wheel::earliest() const {
  // A half-done cascade's slot holds keys not yet placed: they count too.
  int64_t least = cascading_ ? least_key(cascade_code_) : kNever;
  for (int level = 0; level < kLevels; ++level) {
    uint64_t occ = occupied_[level];
    if (cascading_ && cascade_code_ / kSlots == level) occ &= ~(uint64_t{1} << (cascade_code_ & 63));
    if (occ == 0) continue;
    const int s = std::countr_zero(occ);
    // A level-0 slot is one millisecond: its start is every key in it.
    const int64_t first = level == 0 ? slot_start(cursor_, 0, s) : least_key(level * kSlots + s);
    return std::min(least, first);
  }
  return least;
}

void Wheel::clear() {
  for (int code = 0; code < kLevels * kSlots; ++code) detail::make_empty_list(&slots_[code], code);
  std::fill(std::begin(occupied_), std::end(occupied_), 0);
  cascading_ = false;
}

}  // namespace lawnkv::expiry
