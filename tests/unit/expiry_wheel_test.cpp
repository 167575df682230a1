// The wheel's math and mechanics: placement pinned by table tests (the worked
// example of wheel.hpp), popping in order, bounded cascades, rewinds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "expiry/wheel.hpp"
#include "expiry_test_timers.hpp"

namespace lawnkv::expiry {
namespace {

TEST_SUITE_BEGIN("expiry");

constexpr int64_t kT = 1'700'000'000'000;

// Pops everything left (as if at the end of time) and returns the
// deadlines in the order they came out.
std::vector<int64_t> pop_all(Wheel& w, size_t& moves) {
  std::vector<int64_t> out;
  while (Timer* t = w.pop_due(kNever, moves)) out.push_back(t->deadline);
  return out;
}

struct PlaceRow {
  int64_t cursor;
  int64_t key;
  int level;
  int slot;
  int64_t start;
};

TEST_CASE("expiry wheel: placement table (the worked example of wheel.hpp)") {
  const PlaceRow rows[] = {
      {kT, kT, 0, 0, kT},
      {kT, kT + 37, 0, 37, kT + 37},
      {kT, kT + 64, 1, 33, kT + 64},
      {kT, kT + 1'234, 1, 51, 1'700'000'001'216},
      {kT, kT + 10'000, 2, 24, 1'700'000'006'144},
      {kT, kT + 3'600'000, 4, 16, 1'700'001'742'848},
      {kT, kT + 86'400'000, 4, 21, 1'700'085'628'928},
      {kT, 1'731'536'000'000, 6, 25, 1'717'986'918'400},
      {kT, kNever, 10, 7, 8'070'450'532'247'928'832},
      // Small cursors: the digit boundaries themselves.
      {0, 0, 0, 0, 0},
      {0, 63, 0, 63, 63},
      {0, 64, 1, 1, 64},
      {0, 4095, 1, 63, 4032},
      {0, 4096, 2, 1, 4096},
      {0, int64_t{1} << 60, 10, 1, int64_t{1} << 60},
      {0, int64_t{1} << 59, 9, 32, int64_t{1} << 59},
      // Same distance, different cursor: placement follows the digits.
      {63, 64, 1, 1, 64},
      {64, 127, 0, 63, 127},
      {4095, 4096, 2, 1, 4096},
      {4096 + 100, 4096 + 130, 1, 2, 4096 + 128},
  };
  for (const PlaceRow& r : rows) {
    CAPTURE(r.cursor);
    CAPTURE(r.key);
    const Wheel::Place p = Wheel::place(r.cursor, r.key);
    CHECK(p.level == r.level);
    CHECK(p.slot == r.slot);
    CHECK(Wheel::slot_start(r.cursor, p.level, p.slot) == r.start);
    CHECK(r.start <= r.key);
    if (p.level > 0) CHECK(r.start > r.cursor);
  }
}

TEST_CASE("expiry wheel: the cursor's digits of the worked example") {
  const int digits[] = {0, 32, 22, 57, 15, 47, 24, 0, 0, 0, 0};
  for (int level = 0; level < Wheel::kLevels; ++level) {
    CHECK(((static_cast<uint64_t>(kT) >> (6 * level)) & 63) == static_cast<uint64_t>(digits[level]));
  }
}

// Places every key into a wheel whose cursor is at `cursor` (reached by an
// idle pop), then pops them all with a generous now: they come out sorted.
TEST_CASE("expiry wheel: pops in deadline order across levels and cascades") {
  Wheel w;
  size_t moves = SIZE_MAX;
  CHECK(w.pop_due(kT, moves) == nullptr);  // moves the cursor to kT
  CHECK(w.cursor() == kT);
  const int64_t keys[] = {kT + 86'400'000, kT + 37, kT + 10'000, kT, kT + 3'600'000,
                          kT + 64, kT + 1'234, kT + 37, 1'731'536'000'000};
  Timers timers(std::size(keys));
  for (size_t i = 0; i < timers.size(); ++i) {
    timers[i].deadline = keys[i];
    w.insert(&timers[i]);
  }
  CHECK(w.next_deadline() == kT);
  std::vector<int64_t> out;
  while (Timer* t = w.pop_due(kNever, moves)) {
    CHECK(t->next == nullptr);
    out.push_back(t->deadline);
  }
  CHECK(out.size() == std::size(keys));
  CHECK(std::is_sorted(out.begin(), out.end()));
  CHECK(w.empty());
  CHECK(w.next_deadline() == kNever);
}

TEST_CASE("expiry wheel: never pops at now == deadline; next_deadline is a lower bound") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(kT, moves);
  NamedTimers<1> box({kT + 10'000});
  auto& [a] = *box;
  w.insert(&a);
  // Level 2: next_deadline is the slot's start, earlier than the key.
  CHECK(w.next_deadline() == 1'700'000'006'144);
  CHECK(w.pop_due(kT + 10'000, moves) == nullptr);
  CHECK(w.next_deadline() == kT + 10'000);  // cascaded down to level 0 by now
  CHECK(w.cursor() == kT + 10'000);
  CHECK(w.pop_due(kT + 10'001, moves) == &a);
}

TEST_CASE("expiry wheel: an idle pop advances the cursor but never into an occupied slot") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  NamedTimers<1> box({4096 + 5});  // level 2, slot 1 (starts at 4096)
  auto& [a] = *box;
  w.insert(&a);
  CHECK(w.pop_due(4096, moves) == nullptr);
  CHECK(w.cursor() == 4095);  // stopped short of the slot: a still at level 2
  CHECK(w.occupied(2) == (uint64_t{1} << 1));
  CHECK(w.pop_due(4097, moves) == nullptr);  // cascades, a is not due
  CHECK(w.occupied(0) == (uint64_t{1} << 5));
  CHECK(w.pop_due(4102, moves) == &a);
}

TEST_CASE("expiry wheel: a cascade is bounded by moves_left and resumes") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  Timers timers(100);
  for (size_t i = 0; i < timers.size(); ++i) {
    timers[i].deadline = 64 * 64 + static_cast<int64_t>(i);  // all in level 2, slot 1
    w.insert(&timers[i]);
  }
  CHECK(w.occupied(2) == (uint64_t{1} << 1));
  size_t budget = 30;
  CHECK(w.pop_due(5000, budget) == nullptr);
  CHECK(budget == 0);
  CHECK(w.cascading());
  CHECK(w.next_deadline() == 4096);  // the cursor: work is pending
  budget = 30;
  CHECK(w.pop_due(5000, budget) == nullptr);
  budget = 100;
  Timer* first = w.pop_due(5000, budget);
  CHECK(first == &timers[0]);
  CHECK(!w.cascading());
  CHECK(budget == 60);  // 40 moves finished the cascade
}

TEST_CASE("expiry wheel: a key below the cursor rewinds it; nothing lost, nothing early") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(kT, moves);
  NamedTimers<3> later_box({kT + 5, kT + 900, kT + 200'000});
  auto& later = *later_box;
  for (Timer& t : later) w.insert(&t);
  // Wall clock stepped back one hour: a key far below the cursor.
  NamedTimers<1> back_box({kT - 3'600'000 + 10});
  auto& [back] = *back_box;
  w.insert(&back);
  CHECK(w.cursor() == back.deadline);
  CHECK(w.next_deadline() <= back.deadline);
  // Nothing is due at the stepped-back clock until back's deadline passes.
  CHECK(w.pop_due(back.deadline, moves) == nullptr);
  CHECK(w.pop_due(back.deadline + 1, moves) == &back);
  CHECK(w.pop_due(kT, moves) == nullptr);
  CHECK(w.pop_due(kT + 6, moves) == &later[0]);
  CHECK(w.pop_due(kT + 901, moves) == &later[1]);
  CHECK(w.pop_due(kT + 200'000, moves) == nullptr);
  CHECK(w.pop_due(kT + 200'001, moves) == &later[2]);
  CHECK(w.empty());
}

TEST_CASE("expiry wheel: a rewind during a half-done cascade loses nothing") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  Timers timers(50);
  for (size_t i = 0; i < timers.size(); ++i) {
    timers[i].deadline = 64 * 64 * 3 + static_cast<int64_t>(i) * 7;
    w.insert(&timers[i]);
  }
  size_t budget = 10;
  CHECK(w.pop_due(64 * 64 * 3 + 1000, budget) == nullptr);
  CHECK(w.cascading());
  NamedTimers<1> box({100});
  auto& [back] = *box;
  w.insert(&back);
  CHECK(!w.cascading());
  const std::vector<int64_t> out = pop_all(w, moves);
  CHECK(out.size() == 51);
  CHECK(out.front() == 100);
  CHECK(std::is_sorted(out.begin(), out.end()));
}

TEST_CASE("expiry wheel: remove keeps the occupancy bitmap exact") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  NamedTimers<3> box({10, 10, 70});
  auto& [a, b, c] = *box;
  w.insert(&a);
  w.insert(&b);
  w.insert(&c);
  CHECK(w.occupied(0) == (uint64_t{1} << 10));
  w.remove(&a);
  CHECK(w.occupied(0) == (uint64_t{1} << 10));
  w.remove(&b);
  CHECK(w.occupied(0) == 0);
  CHECK(w.next_deadline() == 64);
  w.remove(&c);
  CHECK(w.empty());
  CHECK(w.next_deadline() == kNever);
}

TEST_CASE("expiry wheel: a staged level-1 slot is entered without cascade moves") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  // 64 timers in level 1, slot 2 (ms 128..191), two per millisecond in
  // its first half, inserted in scrambled order.
  Timers timers(64);
  for (size_t i = 0; i < timers.size(); ++i) {
    timers[i].deadline = 128 + static_cast<int64_t>((i * 37) % 64) / 2;
    w.insert(&timers[i]);
  }
  CHECK(w.occupied(1) == (uint64_t{1} << 2));
  size_t budget = 10;
  w.stage(budget);
  CHECK(budget == 0);
  CHECK(w.staged(0) != 0);
  CHECK(w.stage_level() == 1);
  CHECK(w.stage_slot() == 2);
  // Half staged, the slot still reads as one slot.
  CHECK(w.occupied(1) == (uint64_t{1} << 2));
  CHECK(w.next_deadline() == 128);
  CHECK(w.earliest() == 128);
  budget = 100;
  w.stage(budget);
  CHECK(budget == 46);  // the other 54 moved
  CHECK(w.occupied(1) == (uint64_t{1} << 2));
  CHECK(w.earliest() == 128);
  // Nothing is due before the slot's first millisecond has passed.
  budget = 0;
  CHECK(w.pop_due(128, budget) == nullptr);
  CHECK(w.cursor() == 127);
  // Entering the slot costs no move: its timers are in level 0 already.
  const std::vector<int64_t> out = pop_all(w, budget);
  CHECK(out.size() == 64);
  CHECK(std::is_sorted(out.begin(), out.end()));
  CHECK(out.front() == 128);
  CHECK(w.empty());
}

TEST_CASE("expiry wheel: staging keeps order with late arrivals, removals and a rewind") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  Timers timers(40);
  for (size_t i = 0; i < 20; ++i) {
    timers[i].deadline = 200 + static_cast<int64_t>(i);  // level 1, slot 3 (192..255)
    w.insert(&timers[i]);
  }
  size_t budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.occupied(1) == (uint64_t{1} << 3));
  // Arrivals after staging: into the same slot (not staged), and an
  // earlier slot, which stops further staging of slot 3 until it is gone.
  for (size_t i = 20; i < 30; ++i) {
    timers[i].deadline = 192 + static_cast<int64_t>(i - 20);
    w.insert(&timers[i]);
  }
  timers[30].deadline = 70;  // level 1, slot 1
  w.insert(&timers[30]);
  budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.stage_slot() == 3);
  CHECK(w.earliest() == 70);
  // Removing every staged timer of one millisecond, then all of them,
  // keeps the slot's bit while anything of it remains.
  w.remove(&timers[0]);
  for (size_t i = 1; i < 20; ++i) w.remove(&timers[i]);
  CHECK(w.staged(0) == 0);
  CHECK(w.occupied(1) == ((uint64_t{1} << 3) | (uint64_t{1} << 1)));
  for (size_t i = 0; i < 20; ++i) {
    timers[i].deadline = 210 + static_cast<int64_t>(i);
    w.insert(&timers[i]);
  }
  budget = SIZE_MAX;
  w.stage(budget);  // nothing staged is left: the lowest slot, 1, goes next
  CHECK(w.stage_slot() == 1);
  CHECK(w.staged(0) == (uint64_t{1} << (70 & 63)));
  CHECK(w.pop_due(71, moves) == &timers[30]);
  budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.stage_slot() == 3);
  CHECK(w.staged(0) != 0);
  // The clock steps back below everything: staged timers go back to their
  // slot and come out in order with the rest.
  timers[31].deadline = 5;
  w.insert(&timers[31]);
  CHECK(w.staged(0) == 0);
  const std::vector<int64_t> out = pop_all(w, moves);
  CHECK(out.size() == 31);
  CHECK(out.front() == 5);
  CHECK(std::is_sorted(out.begin(), out.end()));
  CHECK(w.empty());
}

TEST_CASE("expiry wheel: a level-2 slot is staged into both rings and entered without cascade moves") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(0, moves);
  // Level 2, slot 1 (4096..8191): 100 timers in its first millisecond
  // window and over the rest of it, plus one in the current level-0 window.
  Timers timers(101);
  for (size_t i = 0; i < 100; ++i) {
    timers[i].deadline = 4096 + static_cast<int64_t>((i * 977) % 4096);
    w.insert(&timers[i]);
  }
  timers[100].deadline = 10;
  w.insert(&timers[100]);
  CHECK(w.occupied(1) == 0);
  CHECK(w.occupied(2) == (uint64_t{1} << 1));
  size_t budget = 40;
  w.stage(budget);
  CHECK(w.stage_level() == 2);
  CHECK(w.stage_slot() == 1);
  budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.staged(0) != 0);  // 4096, 4096 + 977 % 64...: the first 64 ms
  CHECK(w.staged(1) != 0);
  CHECK(w.occupied(1) == 0);  // the rings are not level 1 yet
  CHECK(w.occupied(2) == (uint64_t{1} << 1));
  CHECK(w.earliest() == 10);
  CHECK(w.pop_due(11, moves) == &timers[100]);
  CHECK(w.earliest() == 4096);
  CHECK(w.next_deadline() == 4096);
  // Entering the slot costs no move; everything comes out in order.
  budget = 0;
  std::vector<int64_t> out;
  while (Timer* t = w.pop_due(kNever, budget)) {
    out.push_back(t->deadline);
    if (out.size() == 1) {
      CHECK(w.occupied(2) == 0);
      CHECK(w.stage_level() == 0);
    }
    // Level 1 is staged in turn, a slot at a time, as a drain would.
    size_t spare = SIZE_MAX;
    w.stage(spare);
  }
  CHECK(out.size() == 100);
  CHECK(std::is_sorted(out.begin(), out.end()));
  CHECK(out.front() == 4096);
  CHECK(w.empty());
}

TEST_CASE("expiry wheel: staged level-2 timers survive removals and a rewind") {
  Wheel w;
  size_t moves = SIZE_MAX;
  w.pop_due(50, moves);  // the cursor at 50: a key below it rewinds
  Timers timers(60);
  for (size_t i = 0; i < 50; ++i) {
    timers[i].deadline = 8192 + static_cast<int64_t>(i) * 80;  // level 2, slot 2
    w.insert(&timers[i]);
  }
  size_t budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.stage_level() == 2);
  // Removing all but one keeps the slot; removing the last clears it.
  for (size_t i = 1; i < 50; ++i) w.remove(&timers[i]);
  CHECK(w.occupied(2) == (uint64_t{1} << 2));
  CHECK(w.earliest() == 8192);
  w.remove(&timers[0]);
  CHECK(w.stage_level() == 0);
  CHECK(w.empty());
  for (size_t i = 0; i < 50; ++i) w.insert(&timers[i]);
  budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.staged(1) != 0);
  // A later slot arriving first: nothing more is staged until it is gone.
  timers[50].deadline = 100;  // level 1
  w.insert(&timers[50]);
  budget = SIZE_MAX;
  w.stage(budget);
  CHECK(w.stage_level() == 2);
  // The clock steps back: the rings go back to their slot.
  timers[51].deadline = 3;
  w.insert(&timers[51]);
  CHECK(w.stage_level() == 0);
  const std::vector<int64_t> out = pop_all(w, moves);
  CHECK(out.size() == 52);
  CHECK(std::is_sorted(out.begin(), out.end()));
  CHECK(w.empty());
}

TEST_SUITE_END();

}  // namespace
}  // namespace lawnkv::expiry
