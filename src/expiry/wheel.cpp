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
  if (is_staged(level, slot)) return false;
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
    if (is_staged(level, s)) unstage_into_levels();
    cascading_ = true;
    cascade_level_ = level;
    cascade_slot_ = s;
  }
}

template <class Put>
bool Wheel::move_out(int level, int slot, size_t& moves_left, Put&& put) {
  // One Timer from each end of each sublist per round.
  Timer* lists = lists_of(level, slot);
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
      put(t);
      if (u != nullptr) put(u);
    }
  }
  return true;
}

bool Wheel::run_cascade(size_t& moves_left) {
  const bool done = move_out(cascade_level_, cascade_slot_, moves_left, [&](Timer* t) {
    const Place p = place(cursor_, detail::wheel_key(t));
    assert(p.level < cascade_level_);
    link(t, p);
  });
  if (!done) return false;
  occupied_[cascade_level_] &= ~(uint64_t{1} << cascade_slot_);
  cascading_ = false;
  return true;
}

void Wheel::stage(size_t& moves_left) {
  if (cascading_ || moves_left == 0) return;
  // The next slot entered is the earliest at the lowest level above 0.
  int level = 1;
  while (level < kLevels && occupied_[level] == 0) ++level;
  if (level > 2) return;
  const int s = std::countr_zero(occupied_[level]);
  if (staged() && (level != stage_level_ || s != stage_slot_)) return;
  stage_level_ = level;
  stage_slot_ = s;
  // Each Timer goes where entering the slot (the cursor at its start) would
  // place it: level 0 or, from a level-2 slot, level 1.
  const int64_t start = slot_start(cursor_, level, s);
  move_out(level, s, moves_left, [&](Timer* t) {
    const Place p = place(start, detail::wheel_key(t));
    if (p.level == 0) {
      detail::link_before(&lists_[kRing0 + p.slot], t);
      staged0_ |= uint64_t{1} << p.slot;
    } else {
      detail::link_before(&lists_[kRing1 + p.slot * kSubLists + sublist(t)], t);
      staged1_ |= uint64_t{1} << p.slot;
    }
  });
}

void Wheel::ring_list_emptied(int code) {
  if (code < kRing1) {
    staged0_ &= ~(uint64_t{1} << (code - kRing0));
  } else {
    const int slot = (code - kRing1) / kSubLists;
    const Timer* lists = &lists_[kRing1 + slot * kSubLists];
    bool empty = true;
    for (int k = 0; k < kSubLists; ++k) empty = empty && lists[k].next == &lists[k];
    if (empty) staged1_ &= ~(uint64_t{1} << slot);
  }
  if (slot_empty(stage_level_, stage_slot_)) occupied_[stage_level_] &= ~(uint64_t{1} << stage_slot_);
}

void Wheel::unstage_into_levels() {
  // The rings are laid out as levels 0 and 1 for a cursor at the slot's
  // start, where the cursor now is.
  for (uint64_t st = staged0_; st != 0; st &= st - 1) {
    const int m = std::countr_zero(st);
    detail::splice_tail(&lists_[kRing0 + m], lists_of(0, m));
  }
  for (uint64_t st = staged1_; st != 0; st &= st - 1) {
    const int m = std::countr_zero(st);
    for (int k = 0; k < kSubLists; ++k) {
      Timer* from = &lists_[kRing1 + m * kSubLists + k];
      if (from->next != from) detail::splice_tail(from, lists_of(1, m) + k);
    }
  }
  occupied_[0] |= staged0_;
  occupied_[1] |= staged1_;
  staged0_ = staged1_ = 0;
}

void Wheel::unstage_to_slot() {
  if (!staged()) return;
  Timer* dest = lists_of(stage_level_, stage_slot_);
  for (uint64_t st = staged0_; st != 0; st &= st - 1)
    detail::splice_tail(&lists_[kRing0 + std::countr_zero(st)], dest);
  for (uint64_t st = staged1_; st != 0; st &= st - 1) {
    for (int k = 0; k < kSubLists; ++k) {
      Timer* from = &lists_[kRing1 + std::countr_zero(st) * kSubLists + k];
      if (from->next != from) detail::splice_tail(from, dest + k);
    }
  }
  staged0_ = staged1_ = 0;
}

void Wheel::rewind(int64_t key) {
  // A half-done cascade holds Timers whose right level is not known without
  // placing them: finish it first (rare: only a clock step meets one).
  if (cascading_) {
    size_t unlimited = SIZE_MAX;
    run_cascade(unlimited);
  }
  // Staged Timers belong to their slot until the cursor enters it: put them
  // back, and the splices below carry them with the slot's own lists.
  unstage_to_slot();
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
  // Ring 0's lists are one millisecond each, all before ring 1's: the
  // first non-empty one's, or else the least key of ring 1's first slot.
  if (is_staged(level, slot)) {
    if (staged0_ != 0) {
      least = slot_start(cursor_, level, slot) + std::countr_zero(staged0_);
    } else {
      const Timer* lists = &lists_[kRing1 + std::countr_zero(staged1_) * kSubLists];
      for (int k = 0; k < kSubLists; ++k)
        for (const Timer* t = lists[k].next; t != &lists[k]; t = t->next) least = std::min(least, detail::wheel_key(t));
    }
  }
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
  staged0_ = staged1_ = 0;
}

}  // namespace lawnkv::expiry
