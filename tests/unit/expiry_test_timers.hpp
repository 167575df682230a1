#pragma once
// Timers for the expiry tests. The index links only Timers that live in the
// arena (expiry/timer.hpp), so tests take them from there, not the stack:
//
//   Timers ts(1000);                        // a vector in the arena
//   NamedTimers<3> box({10, 10, 70});       // a few, to name one by one
//   auto& [a, b, c] = *box;                 // (deadlines optional)

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/arena.hpp"
#include "expiry/timer.hpp"

namespace lawnkv::expiry {

using Timers = std::vector<Timer, arena::Allocator<Timer>>;

template <size_t N>
class NamedTimers {
 public:
  NamedTimers() : timers_(arena::create<std::array<Timer, N>>()) {}
  explicit NamedTimers(const std::array<int64_t, N>& deadlines) : NamedTimers() {
    for (size_t i = 0; i < N; ++i) (*timers_)[i].deadline = deadlines[i];
  }
  ~NamedTimers() { arena::destroy(timers_); }
  NamedTimers(const NamedTimers&) = delete;
  NamedTimers& operator=(const NamedTimers&) = delete;

  std::array<Timer, N>& operator*() { return *timers_; }

 private:
  std::array<Timer, N>* timers_;
};

}  // namespace lawnkv::expiry
