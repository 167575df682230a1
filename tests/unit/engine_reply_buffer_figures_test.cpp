// ReplyBufferFigures: CLIENT LIST's rbs and rbp follow Redis 7.0.15's reply
// buffer through clientsCron's visits (every 100 ms at hz 10): the first
// visit resets the peak, the second shrinks an idle client's buffer to 1 KiB,
// a reply that fills the buffer doubles it at the next visit, and the peak
// goes back to what is held every 5 s. Checked against redis-server 7.0.15
// by hand (CLIENT LIST after real sleeps).

#include <doctest/doctest.h>

#include "engine/reply_buffer_figures.hpp"

namespace lawnkv {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;
constexpr int64_t kVisit = 100;  // hz 10

struct Figures {
  size_t rbs, rbp;
  bool operator==(const Figures&) const = default;
};
Figures at(const ReplyBufferFigures& f, int64_t ms) { return {f.size(kT0 + ms, kVisit), f.peak(kT0 + ms, kVisit)}; }

}  // namespace

TEST_CASE("ReplyBufferFigures: Redis's reply buffer through the clients cron's visits") {
  ReplyBufferFigures f;
  f.start(kT0);
  CHECK(at(f, 0) == Figures{16384, 16384});   // createClient
  CHECK(at(f, 99) == Figures{16384, 16384});
  CHECK(at(f, 100) == Figures{16384, 0});     // first visit: the peak reset
  CHECK(at(f, 200) == Figures{1024, 0});      // second: shrunk to the minimum
  f.add(kT0 + 250, kVisit, 20'000, true);     // a reply larger than the buffer
  CHECK(at(f, 250) == Figures{1024, 1024});
  CHECK(at(f, 300) == Figures{2048, 1024});   // it was full: doubled
  CHECK(at(f, 5'099) == Figures{2048, 1024});
  CHECK(at(f, 5'100) == Figures{2048, 0});    // 5 s after the first reset
  CHECK(at(f, 5'200) == Figures{1024, 0});
  f.add(kT0 + 5'250, kVisit, 48, true);
  CHECK(at(f, 5'250) == Figures{1024, 48});
  // Idle for a long time: the next reset comes at 10,100 ms, then nothing
  // moves (and catching up is O(1)).
  CHECK(at(f, 10'099) == Figures{1024, 48});
  CHECK(at(f, 10'100) == Figures{1024, 0});
  CHECK(at(f, 1'000'000'000) == Figures{1024, 0});
  // Replies that stay unsent hold the buffer: a peak reset keeps them.
  f.add(kT0 + 1'000'000'050, kVisit, 600, false);
  f.add(kT0 + 1'000'000'060, kVisit, 300, false);
  CHECK(at(f, 1'000'000'060) == Figures{1024, 900});
  f.sent();
  CHECK(at(f, 1'000'000'099) == Figures{1024, 900});
  CHECK(at(f, 1'000'000'100) == Figures{1024, 0});  // resets keep their 5 s phase
}

}  // namespace lawnkv
