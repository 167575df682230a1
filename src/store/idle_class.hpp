#pragma once
// How long a key has gone unused (OBJECT IDLETIME), in 4 spare bits of its
// header: a logarithmic idle class (Entry::idle_class()), at no memory per
// key. Redis keeps 24 bits of seconds per key instead.
//
// An access that counts (Db::lookup: where Redis updates a key's LRU clock)
// sets the class to 0. An aging pass over the whole keyspace starts every
// kPassPeriodMs (store/idle_aging.hpp), and pass number F (1, 2, 3...) raises a
// key found at class c to c + 1 iff F has exactly c trailing zero bits:
//
//   pass F       1  2  3  4  5  6  7  8  9 ...
//   raises c     0  1  0  2  0  1  0  3  0 ...
//
// Each pass raises one class only, so a key the pass meets twice (SCAN's
// cursor may return a key twice after the table shrinks) is raised once.
// A key reaches class c >= 1 on a pass whose F has c - 1 trailing zeros,
// and leaves it no sooner than 2^(c-1) passes later (the next F with c
// trailing zeros). Counting back the shortest stays, a key at class c has
// been idle at least
//
//   floor(c) = 60 s * (2^(c-1) - 1)   (c >= 1; 0 for c = 0)
//
//   class   0  1  2   3    4    5 ...   15
//   floor   0  0  60  180  420  900 ... 982,980 s (11.4 days)
//
// and at most 60 s * (3 * 2^(c-1) - 1) when it got there (a key used just
// after pass 0 reaches class 1 on pass 1, class 2 on pass 2, class 3 on
// pass 4: idle 60, 120, 240 s; used just before pass 1: idle ~0, 60, 180 s).
// OBJECT IDLETIME answers floor(class). The bound holds up to the length of
// one pass (a key is met at about the same point of each pass, and a pass
// runs in steps of IdleAging::kPassStep keys, one a loop iteration, far
// shorter than a minute), and when passes come late (a long pass, a fork
// running) keys are only older than their class says.
//
// Cost: a pass reads every key's header once a minute (one cache miss a key
// at most), writing only those it raises; an access writes the header only
// when its class is not 0 already.

#include <cstddef>
#include <cstdint>

#include "store/entry.hpp"

namespace lawnkv::store {

inline constexpr int64_t kPassPeriodMs = 60'000;
inline constexpr uint8_t kMaxIdleClass = Entry::kMaxIdleClass;

// Whether pass number pass (>= 1) raises a key at class c.
constexpr bool pass_raises(uint8_t c, uint64_t pass) {
  return c < kMaxIdleClass && pass != 0 && static_cast<uint8_t>(__builtin_ctzll(pass)) == c;
}

// The fewest seconds a key at class c has been idle (OBJECT IDLETIME).
constexpr int64_t idle_floor_s(uint8_t c) {
  return c == 0 ? 0 : (kPassPeriodMs / 1000) * ((int64_t{1} << (c - 1)) - 1);
}

// The class to give a key idle for idle_s seconds now (RESTORE ... IDLETIME):
// the highest whose floor is at most idle_s and whose next raise cannot come
// before the key is old enough for the class above. last_pass: the number
// of the last pass started (0: none yet); next_pass_in_ms: how long until
// the next one starts (>= 0).
uint8_t idle_class_for(int64_t idle_s, uint64_t last_pass, int64_t next_pass_in_ms);

}  // namespace lawnkv::store
