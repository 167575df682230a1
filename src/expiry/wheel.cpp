#include "expiry/wheel.hpp"

#include <algorithm>

namespace lawnkv::expiry {

Wheel::Wheel() : lists_(kLists) {
  for (int code = 0; code < kLists; ++code) detail::make_empty_list(&lists_[code], code);
}

bool Wheel::empty() const {
  for (uint64_t occ : occupied_) {
    if (occ != 0) return false;
  }
  return true;
}

bool Wheel::slot_empty(int level, int slot) const {
  const Timer* list = lists_of(level, slot);
  for (int k = 0; k < lists_per_slot(level); ++k) {
    if (list[k].next != &list[k]) return false;
  }
  return true;
}

Timer* Wheel::pop_due_slow(int64_t now, size_t& moves_left) {
  // Invariant of the loop: cursor_ < now.
  for (;;) {
    if (cascading_ && !run_cascade(moves_left)) return nullptr;
    if (occupied_[0] != 0) return take_level0(now);
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
    cascade_level_ = level;
    cascade_slot_ = s;
  }
}

bool Wheel::run_cascade(size_t& moves_left) {
  // Every sublist is walked from both ends, one Timer from each end of each
  // sublist per round: 2 x kSubLists independent chains of cache misses.
  Timer* lists = lists_of(cascade_level_, cascade_slot_);
  for (bool more = true; more;) {
    more = false;
    for (int k = 0; k < kSubLists; ++k) {
      Timer* head = &lists[k];
      if (head->next == head) continue;
      if (moves_left == 0) return false;
      more = true;
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
      assert(p.level < cascade_level_);
      link(t, p);
      if (u != nullptr) link(u, place(cursor_, detail::wheel_key(u)));
    }
  }
  occupied_[cascade_level_] &= ~(uint64_t{1} << cascade_slot_);
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
    const int dest_slot = static_cast<int>((static_cast<uint64_t>(cursor_) >> (kSlotBits * m)) & 63);
    Timer* dest = lists_of(m, dest_slot);
    for (int level = 0; level < m; ++level) {
      if (occupied_[level] == 0) continue;
      for (uint64_t occ = occupied_[level]; occ != 0; occ &= occ - 1) {
        Timer* from = lists_of(level, std::countr_zero(occ));
        for (int k = 0; k < lists_per_slot(level); ++k) {
          if (from[k].next != &from[k]) detail::splice_tail(&from[k], &dest[k]);
        }
      }
      occupied_[level] = 0;
      occupied_[m] |= uint64_t{1} << dest_slot;
    }
  }
  cursor_ = key;
}

int64_t Wheel::next_deadline() const {
  // A half-done cascade holds keys >= cursor whose level is not known yet.
  if (cascading_ && !slot_empty(cascade_level_, cascade_slot_)) return cursor_;
  for (int level = 0; level < kLevels; ++level) {
    if (occupied_[level] != 0) return slot_start(cursor_, level, std::countr_zero(occupied_[level]));
  }
  return kNever;
}

int64_t Wheel::least_key(int level, int slot) const {
  int64_t least = kNever;
  const Timer* lists = lists_of(level, slot);
  for (int k = 0; k < lists_per_slot(level); ++k) {
    for (const Timer* t = lists[k].next; t != &lists[k]; t = t->next) {
      least = std::min(least, detail::wheel_key(t));
    }
  }
  return least;
}

int64_t Wheel::earliest() const {
  // A half-done cascade's slot holds keys not yet placed: they count too.
  int64_t least = cascading_ ? least_key(cascade_level_, cascade_slot_) : kNever;
  for (int level = 0; level < kLevels; ++level) {
    uint64_t occ = occupied_[level];
    if (cascading_ && cascade_level_ == level) occ &= ~(uint64_t{1} << cascade_slot_);
    if (occ == 0) continue;
    const int s = std::countr_zero(occ);
    // A level-0 slot is one millisecond: its start is every key in it.
    const int64_t first = level == 0 ? slot_start(cursor_, 0, s) : least_key(level, s);
    return std::min(least, first);
  }
  return least;
}

void Wheel::clear() {
  for (int code = 0; code < kLists; ++code) detail::make_empty_list(&lists_[code], code);
  std::fill(std::begin(occupied_), std::end(occupied_), 0);
  cascading_ = false;
}

}  // namespace lawnkv::expiry
