// IoThreads (src/server/io_threads.hpp): run() calls every job once, on the
// threads (not the caller's), spread as i % threads, and returns only when
// all have returned, with what they wrote visible to the caller.

#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "server/io_threads.hpp"

namespace lawnkv::server {
namespace {

TEST_CASE("io threads: every job runs once, off the caller's thread, before run() returns") {
  IoThreads threads(3);
  CHECK(threads.threads() == 3);
  const std::thread::id caller = std::this_thread::get_id();
  for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{1000}}) {
    CAPTURE(count);
    // Plain ints: each written by one job only, read after run().
    std::vector<int> runs(count, 0);
    std::vector<std::thread::id> where(count);
    threads.run(count, [&](size_t i) {
      ++runs[i];
      where[i] = std::this_thread::get_id();
    });
    bool once = true, off_caller = true;
    std::set<std::thread::id> used;
    for (size_t i = 0; i < count; ++i) {
      once = once && runs[i] == 1;
      off_caller = off_caller && where[i] != caller;
      used.insert(where[i]);
    }
    CHECK(once);
    CHECK(off_caller);
    // Job i runs on thread i % 3: as many threads as jobs, up to 3.
    CHECK(used.size() == std::min<size_t>(count, 3));
    if (count >= 4) CHECK(where[0] == where[3]);
  }
}

TEST_CASE("io threads: many rounds in a row, each waiting for the slowest job") {
  IoThreads threads(2);
  long long total = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<long long> part(5, 0);
    threads.run(part.size(), [&](size_t i) {
      if (i == 4 && round % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      part[i] = static_cast<long long>(i) + round;
    });
    for (long long p : part) total += p;
  }
  // Sum over rounds of (0+1+2+3+4) + 5 * round.
  CHECK(total == 2000LL * 10 + 5LL * (1999LL * 2000 / 2));
}

}  // namespace
}  // namespace lawnkv::server
