#pragma once
// The hierarchical timing wheel of the expiry index: absolute Unix ms, 64
// slots a level, 11 levels (6 bits each: 66 >= 63 bits, so any non-negative
// int64 deadline fits, kNever included), one 64-bit occupancy bitmap per
// level.
//
// Placement. The wheel keeps a cursor: every deadline below it has been handed
// out, every Timer in the wheel has key >= cursor. A key k is placed at the
// highest 6-bit digit where it differs from the cursor:
//
//   level = (bit_width((k ^ cursor) | 63) - 1) / 6     slot = (k >> 6*level) & 63
//
// so the digits of k above `level` equal the cursor's, and at `level` k's digit
// is greater (or, at level 0, equal). Consequences the code relies on:
//   - a level-0 slot holds exactly one millisecond: (cursor & ~63) | slot;
//   - every Timer at a lower level is earlier than every Timer at a higher one,
//     and within a level, a lower slot is earlier: the earliest Timer is in the
//     lowest set bit of the lowest non-empty level (std::countr_zero);
//   - slot (l, s) starts at slot_start(cursor, l, s) = cursor's digits above l,
//     then s, then zeros; for l > 0 that is > cursor.
//
// Worked example (pinned by tests/unit/expiry_wheel_test.cpp), cursor =
// 1,700,000,000,000 (2023-11-14T22:13:20Z), whose 6-bit digits, level 0 up,
// are 0, 32, 22, 57, 15, 47, 24, 0, 0, 0, 0:
//
//   key                        after cursor  level  slot  slot starts at
//   1,700,000,000,000          0                 0     0  1,700,000,000,000
//   1,700,000,000,037          37 ms             0    37  1,700,000,000,037
//   1,700,000,000,064          64 ms             1    33  1,700,000,000,064
//   1,700,000,001,234          1,234 ms          1    51  1,700,000,001,216
//   1,700,000,010,000          10 s              2    24  1,700,000,006,144
//   1,700,003,600,000          1 h               4    16  1,700,001,742,848
//   1,700,086,400,000          1 day             4    21  1,700,085,628,928
//   1,731,536,000,000          1 year            6    25  1,717,986,918,400
//   kNever = 2^63 - 1                           10     7  8,070,450,532,247,928,832
//
// (1 h lands at level 4, not 3, because the cursor's digit 3 is 57: T + 1 h
// crosses a level-4 boundary. Placement depends on the cursor, not on the
// distance alone.)
//
// Advancing. pop_due(now) takes the lowest set slot: at level 0 it hands out
// its Timers (all due once the slot's ms < now); at a higher level it cascades
// the slot: the cursor moves to the slot's start and each Timer is placed
// again, necessarily at a lower level. A Timer cascades at most 10 times in
// its life (levels strictly decrease), so cascading is amortised O(1) per
// timer. It is also bounded per call: pop_due moves at most `moves_left`
// Timers and resumes a half-done cascade on the next call; meanwhile
// next_deadline() reports the cursor, so the caller knows work is pending.
//
// Sublists. Walking a list is a chain of dependent cache misses (each next
// pointer is in the Timer just fetched): at 1M timers that is a full memory
// latency per Timer cascaded. So a slot above level 0 holds kSubLists lists
// (chosen by the Timer's memory page), and a cascade walks all of them from both ends at once:
// 2 x kSubLists independent chains whose misses overlap. Level-0 slots (one ms,
// handed out one Timer per call) keep a single list.
//
// Staging. Entering a slot above level 0 moves all of its Timers before the
// first of them can be handed out. With 1,000 Timers due a millisecond, a
// level-1 slot (64 ms) is 64,000 cache misses, a stall of 2-3 ms every
// 64 ms, and a level-2 slot (4,096 ms) up to 4M, a stall of tens of ms every
// 4 s. So the next slot the cursor will enter, when it is at level 1 or 2,
// is spread ahead of time with the moves a drain has left over (stage()):
// each Timer goes where entering the slot would put it, into one of two
// staging rings laid out as level 0 (64 lists, one a millisecond) and level 1
// (64 slots of kSubLists lists). Entering the slot splices the rings into
// levels 0 and 1, which are empty then, in O(64 + 256), and cascades only
// what arrived since. The slot's occupancy bit stays set while the rings
// hold Timers of it, so everything that reads the bitmaps sees them as part
// of the slot. Slots of level 3 and up (entered every 262 s or less often)
// are not staged.
//
// Going back in time. A key below the cursor (the wall clock stepped back
// after the cursor advanced, or a past absolute deadline) rewinds the cursor
// to it instead of going to a fallback structure. With m the level of
// (cursor ^ key), levels above m keep their placement unchanged, and every
// Timer below level m now belongs to slot (m, cursor's digit m): whole lists
// are spliced there. A rewind costs O(non-empty lists below m) <= 2,368 O(1)
// splices, loses nothing, and keeps "every key >= cursor", so drain(now) still
// yields exactly the keys < now whatever the clock did.
//
// Memory: 64 + 640 x 4 + 64 + 64 x 4 = 2,944 sentinels x 16 bytes = 47,104 bytes per wheel,
// in the arena (Timers link to them by 32-bit Refs), plus 88 bytes of bitmaps.
// Nothing per Timer beyond its own 16 bytes.
//
// Moving a Wheel moves the vector that owns the sentinels, not the sentinels:
// the links into them stay valid.

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/arena.hpp"
#include "expiry/timer.hpp"

namespace lawnkv::expiry {

class Wheel {
 public:
  static constexpr int kSlotBits = 6;
  static constexpr int kSlots = 64;
  static constexpr int kLevels = 11;
  static constexpr int kSubLists = 4;  // lists per slot above level 0
  // Sentinel codes: level 0 slot s is s; above, (level, slot, sub) is
  // kSlots + ((level - 1) * kSlots + slot) * kSubLists + sub; the staging
  // rings follow: kRing0 + slot, then kRing1 + slot * kSubLists + sub.
  static constexpr int kRing0 = kSlots + (kLevels - 1) * kSlots * kSubLists;
  static constexpr int kRing1 = kRing0 + kSlots;
  static constexpr int kLists = kRing1 + kSlots * kSubLists;
  static_assert(kLists == detail::kWheelSlotCodes);

  struct Place {
    int level;
    int slot;
    friend bool operator==(Place, Place) = default;
  };

  // Where key (>= cursor) lands for this cursor.
  static constexpr Place place(int64_t cursor, int64_t key) {
    const uint64_t x = (static_cast<uint64_t>(cursor) ^ static_cast<uint64_t>(key)) | 63;
    const int level = (std::bit_width(x) - 1) / kSlotBits;
    return {level, static_cast<int>((static_cast<uint64_t>(key) >> (kSlotBits * level)) & 63)};
  }

  // The first millisecond slot (level, slot) stands for, given this cursor.
  static constexpr int64_t slot_start(int64_t cursor, int level, int slot) {
    const int above = kSlotBits * (level + 1);
    const uint64_t prefix =
        above >= 64 ? 0 : (static_cast<uint64_t>(cursor) >> above) << above;
    return static_cast<int64_t>(prefix | (static_cast<uint64_t>(slot) << (kSlotBits * level)));
  }

  Wheel();
  Wheel(Wheel&&) noexcept = default;
  Wheel& operator=(Wheel&&) noexcept = default;

  // Every key below the cursor has been handed out; every Timer held is >= it.
  int64_t cursor() const { return cursor_; }
  bool empty() const;
  uint64_t occupied(int level) const { return occupied_[level]; }
  bool cascading() const { return cascading_; }

  // Links an unscheduled t at wheel_key(t), rewinding the cursor first if the
  // key is below it. O(1) (a rewind: O(non-empty low slots), see above).
  void insert(Timer* t) {
    const int64_t key = detail::wheel_key(t);
    if (key < cursor_) [[unlikely]] rewind(key);
    link(t, place(cursor_, key));
  }

  // Unlinks t, which this wheel holds. O(1).
  void remove(Timer* t) {
    Timer* p = detail::unlink(t);
    if (p->next == p) list_emptied(detail::sentinel_code(p->deadline));
  }

  // Called when the list with this sentinel code lost its last Timer (by an
  // unlink done elsewhere): clears the slot's bit if all its lists are empty.
  void list_emptied(int64_t code) {
    if (code < kSlots) {
      occupied_[0] &= ~(uint64_t{1} << code);
      return;
    }
    if (code >= kRing0) return ring_list_emptied(static_cast<int>(code));
    const int64_t c = (code - kSlots) / kSubLists;
    const int level = 1 + static_cast<int>(c / kSlots);
    const int slot = static_cast<int>(c % kSlots);
    if (slot_empty(level, slot)) occupied_[level] &= ~(uint64_t{1} << slot);
  }

  // Unlinks and returns the earliest Timer with key < now (any order within
  // one millisecond), or nullptr when none is due or when
  // cascading used up moves_left (then next_deadline() < now says so).
  // Advances the cursor toward now; never moves it back.
  Timer* pop_due(int64_t now, size_t& moves_left) {
    if (now <= cursor_) return nullptr;
    if (!cascading_ && occupied_[0] != 0) return take_level0(now);
    return pop_due_slow(now, moves_left);
  }

  // The earliest key held, or a lower bound of it (the start of the earliest
  // slot above level 0; the cursor while a cascade is half done); kNever when
  // empty. O(levels).
  int64_t next_deadline() const;

  // The earliest key held, exactly (kNever when empty): the first key of the
  // earliest level-0 slot, or else the least key of the earliest slot above
  // level 0. O(levels + length of that slot's list), so for occasional exact
  // answers (REDE.TTN), not for every loop iteration.
  int64_t earliest() const;

  // Forgets every Timer without touching them (their memory may be gone).
  void clear();

  // Moves up to moves_left Timers of the next slot the cursor will enter
  // into the staging rings, if that slot is at level 1 or 2 (see Staging
  // above); nothing while a cascade is half done, or while another slot than
  // the one staged has become the next.
  void stage(size_t& moves_left);
  // What is staged (tests): the rings' non-empty slots, and for which slot.
  uint64_t staged(int ring) const { return ring == 0 ? staged0_ : staged1_; }
  int stage_level() const { return staged() ? stage_level_ : 0; }
  int stage_slot() const { return stage_slot_; }

  size_t memory_bytes() const { return lists_.size() * sizeof(Timer); }

 private:
  // The code of the first sentinel of slot (level, slot); a slot above level 0
  // has kSubLists of them in a row.
  static int first_list(int level, int slot) {
    return level == 0 ? slot : kSlots + ((level - 1) * kSlots + slot) * kSubLists;
  }
  Timer* lists_of(int level, int slot) { return &lists_[first_list(level, slot)]; }
  const Timer* lists_of(int level, int slot) const { return &lists_[first_list(level, slot)]; }
  static int lists_per_slot(int level) { return level == 0 ? 1 : kSubLists; }
  // No Timer in the slot's lists, nor staged for it.
  bool slot_empty(int level, int slot) const;
  bool staged() const { return (staged0_ | staged1_) != 0; }
  bool is_staged(int level, int slot) const { return staged() && level == stage_level_ && slot == stage_slot_; }
  // The sublist of a slot above level 0 that t goes to (see link()).
  static int sublist(const Timer* t) { return static_cast<int>((reinterpret_cast<uintptr_t>(t) >> 12) & (kSubLists - 1)); }
  // A staging list lost its last Timer (list_emptied with a ring's code).
  void ring_list_emptied(int code);
  // Puts the staged Timers in levels 0 and 1 (the cursor has just entered
  // their slot; both levels are empty), or back in their slot (a rewind).
  void unstage_into_levels();
  void unstage_to_slot();
  // Unlinks up to moves_left Timers from the lists of slot (level, slot),
  // all sublists from both ends at once (2 x kSubLists independent chains of
  // cache misses), and hands each to put(Timer*); true once they are empty.
  template <class Put>
  bool move_out(int level, int slot, size_t& moves_left, Put&& put);
  void link(Timer* t, Place p) {
    Timer* list = lists_of(p.level, p.slot);
    // The sublist follows the Timer's 4 KiB page: list neighbours stay close
    // in memory (Timers are usually allocated in arrival order), and the
    // sublists of a slot still hold disjoint chains for a cascade to overlap.
    if (p.level > 0) list += sublist(t);
    detail::link_before(list, t);
    occupied_[p.level] |= uint64_t{1} << p.slot;
  }
  // The earliest level-0 Timer if it is due (now > its ms), else nullptr with
  // the cursor moved up to now. Only when occupied_[0] != 0 and no cascade is
  // half done.
  Timer* take_level0(int64_t now) {
    const int s = std::countr_zero(occupied_[0]);
    const int64_t start = (cursor_ & ~int64_t{63}) | s;
    if (start >= now) {
      cursor_ = now;
      return nullptr;
    }
    cursor_ = start;
    Timer* head = &lists_[s];
    Timer* t = head->next;
    detail::unlink(t);
    if (head->next == head) occupied_[0] &= ~(uint64_t{1} << s);
    return t;
  }
  Timer* pop_due_slow(int64_t now, size_t& moves_left);
  int64_t least_key(int level, int slot) const;
  // Re-places the rest of the cascading slot; false if moves_left ran out.
  bool run_cascade(size_t& moves_left);
  void rewind(int64_t key);

  int64_t cursor_ = 0;
  bool cascading_ = false;  // slot (cascade_level_, cascade_slot_) is being spread below
  int cascade_level_ = 0;
  int cascade_slot_ = 0;
  int stage_level_ = 0;  // the slot the rings hold Timers of, while staged()
  int stage_slot_ = 0;
  uint64_t staged0_ = 0;  // non-empty lists of ring 0
  uint64_t staged1_ = 0;  // slots of ring 1 with a non-empty list
  uint64_t occupied_[kLevels] = {};
  std::vector<Timer, arena::Allocator<Timer>> lists_;  // sentinels, by code
};

}  // namespace lawnkv::expiry
