#pragma once
// Synchronisation by polling: ask a condition again and again with a growing
// back-off (1 ms doubling up to 50 ms) until it holds or a deadline passes.
// For conditions with no event to wait on (a child's exit, a port that starts
// accepting); never a fixed sleep standing in for the condition itself.

#include <algorithm>
#include <chrono>
#include <thread>

namespace lawnkv::test {

// Calls done() until it returns true (-> true) or `deadline` passes (-> false).
// done() is always called at least once, and once more at the deadline.
template <class Done>
bool poll_until(std::chrono::steady_clock::time_point deadline, Done done) {
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    if (done()) return true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

}  // namespace lawnkv::test
