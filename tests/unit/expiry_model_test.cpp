// The expiry index against a plain reference (std::multimap of deadlines):
// seeded random add / cancel / reschedule / advance-and-drain, with the clock
// moving by 0 ms to days and sometimes stepping back, for three TTL mixes.
// Asserted after every operation or drain:
//   - never early: every yielded timer has deadline < now, and was scheduled;
//   - nothing lost, on time: after a drain whose budget allowed it, nothing
//     with deadline < now remains; a drain with a small budget yields <= max;
//   - deadline order within a drain;
//   - next_deadline() <= the true earliest (kNever iff empty); earliest()
//     exact (every 16th operation); size() exact.
// On failure the seed, mix and operation number are printed; rerun one seed
// with LAWNKV_EXPIRY_SEED=<seed>.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/arena.hpp"
#include "expiry/index.hpp"

namespace lawnkv::expiry {
namespace {

TEST_SUITE_BEGIN("expiry");

constexpr int64_t kT = 1'700'000'000'000;
constexpr int64_t kHour = 3'600'000;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kYear = 365 * kDay;

enum class Mix { k16, k1000, kContinuous };

const char* mix_name(Mix m) {
  switch (m) {
    case Mix::k16: return "16 distinct TTLs";
    case Mix::k1000: return "1,000 distinct TTLs";
    case Mix::kContinuous: return "continuous TTLs + absolute deadlines";
  }
  return "?";
}

class Model {
 public:
  Model(uint64_t seed, Mix mix, size_t timers) : rng_(seed), mix_(mix), slots_(timers) {
    std::uniform_int_distribution<int64_t> ttl(1, kHour);
    if (mix == Mix::k16) {
      ttls_ = {1, 2, 3, 7, 10, 50, 100, 250, 1000, 2000, 5000, 10'000, 60'000, 300'000, kHour, 3 * kDay};
    } else if (mix == Mix::k1000) {
      for (int i = 0; i < 1000; ++i) ttls_.push_back(ttl(rng_));
    }
    now_ = kT;
  }

  // One random operation, then the summary checks. A failed REQUIRE ends the
  // test case with the captured seed and operation number.
  void step() {
    const int r = pick(0, 99);
    if (r < 40) {
      add_or_reschedule(pick_slot());
    } else if (r < 55) {
      cancel(pick_slot());
    } else if (r < 62) {
      Slot& s = slots_[pick_slot()];
      if (s.live) add_or_reschedule(index_of(s));
    } else {
      advance();
      drain();
    }
    check_summary();
  }

  size_t drains() const { return drains_; }
  size_t yields() const { return yields_; }
  size_t backsteps() const { return backsteps_; }

 private:
  struct Slot {
    Timer timer;
    bool live = false;
    size_t added_in_drain = 0;  // drains_ when a callback (re)added it, else 0
    std::multimap<int64_t, size_t>::iterator it;
  };

  int64_t pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  size_t pick_slot() { return static_cast<size_t>(pick(0, static_cast<int64_t>(slots_.size()) - 1)); }
  size_t index_of(const Slot& s) const { return static_cast<size_t>(&s - slots_.data()); }
  Slot& slot_of(Timer* t) { return *reinterpret_cast<Slot*>(t); }

  // A (deadline, ttl) as the server would compute it at now_.
  std::pair<int64_t, int64_t> next_deadline_and_ttl() {
    const int r = pick(0, 99);
    if (mix_ != Mix::kContinuous) {
      if (r < 90) {
        const int64_t ttl = ttls_[static_cast<size_t>(pick(0, static_cast<int64_t>(ttls_.size()) - 1))];
        return {now_ + ttl, ttl};
      }
      return {now_ + pick(0, kHour), r < 95 ? 0 : -1};  // PXAT
    }
    if (r < 70) {
      const int64_t ttl = pick(1, kHour);
      return {now_ + ttl, ttl};
    }
    if (r < 85) return {now_ + pick(-1000, kHour), 0};  // near, sometimes past
    if (r < 99) return {now_ + pick(0, 10 * kYear), 0};  // years ahead
    return {pick(kNever - 1000, kNever), 0};
  }

  void add_or_reschedule(size_t i) {
    Slot& s = slots_[i];
    auto [deadline, ttl] = next_deadline_and_ttl();
    if (deadline < 0) deadline = 0;
    if (s.live) {
      ref_.erase(s.it);
      ix_.reschedule(&s.timer, deadline, ttl);
    } else {
      ix_.add(&s.timer, deadline, ttl);
    }
    s.live = true;
    s.added_in_drain = in_drain_ ? drains_ : 0;
    s.it = ref_.emplace(deadline, i);
    if (!Index::scheduled(&s.timer)) REQUIRE(Index::scheduled(&s.timer));
    if (s.timer.deadline != deadline) REQUIRE(s.timer.deadline == deadline);
  }

  void cancel(size_t i) {
    Slot& s = slots_[i];
    ix_.cancel(&s.timer);  // also when not scheduled: a no-op
    if (s.live) {
      ref_.erase(s.it);
      s.live = false;
    }
    if (Index::scheduled(&s.timer)) REQUIRE(!Index::scheduled(&s.timer));
  }

  void advance() {
    const int r = pick(0, 999);
    int64_t step;
    if (r < 450) {
      step = pick(0, 3);
    } else if (r < 700) {
      step = pick(4, 100);
    } else if (r < 880) {
      step = pick(100, 10'000);
    } else if (r < 960) {
      step = pick(10'000, kHour);
    } else if (r < 975) {
      step = pick(kHour, 3 * kDay);
    } else {
      step = -pick(1, r < 995 ? kHour : 2 * kDay);  // the wall clock steps back
      ++backsteps_;
    }
    now_ += step;
  }

  void drain() {
    ++drains_;
    const bool full = pick(0, 9) < 8;
    const size_t max = full ? SIZE_MAX : static_cast<size_t>(pick(1, 64));
    int64_t last = INT64_MIN;
    const int64_t now = now_;
    in_drain_ = true;
    const size_t n = ix_.drain(now, max, [&](Timer* t) {
      Slot& s = slot_of(t);
      CAPTURE(t->deadline);
      CAPTURE(now);
      if (t->deadline >= now) REQUIRE_MESSAGE(t->deadline < now, "reaped early");
      if (!s.live) REQUIRE_MESSAGE(s.live, "yielded a timer that was not scheduled");
      if (Index::scheduled(t)) REQUIRE_MESSAGE(!Index::scheduled(t), "yielded while still linked");
      if (s.it->first != t->deadline) REQUIRE(s.it->first == t->deadline);
      // Order holds for what was scheduled before the drain began; a timer a
      // callback adds below the last one yielded comes when the wheel finds it.
      if (s.added_in_drain != drains_) {
        if (t->deadline < last) REQUIRE_MESSAGE(t->deadline >= last, "out of deadline order");
        last = t->deadline;
      }
      ref_.erase(s.it);
      s.live = false;
      ++yields_;
      // Sometimes the callback changes the index, as a keyspace listener may.
      const int r = pick(0, 99);
      if (r < 5) {
        cancel(pick_slot());
      } else if (r < 10) {
        add_or_reschedule(pick_slot());  // may be this very timer: re-added
      }
    });
    in_drain_ = false;
    if (n > max) REQUIRE(n <= max);
    if (full) {
      // Nothing lost, on time: every deadline < now has been reaped.
      if (!ref_.empty() && ref_.begin()->first < now) {
        CAPTURE(ref_.begin()->first);
        CAPTURE(now);
        REQUIRE_MESSAGE(ref_.begin()->first >= now, "due timer not reaped by a full drain");
      }
    }
  }

  void check_summary() {
    if (ix_.size() != ref_.size()) REQUIRE(ix_.size() == ref_.size());
    const int64_t next = ix_.next_deadline();
    const int64_t truth = ref_.empty() ? kNever : ref_.begin()->first;
    if (next > truth) {
      CAPTURE(truth);
      REQUIRE_MESSAGE(next <= truth, "next_deadline later than the earliest");
    }
    if (ref_.empty() && next != kNever) REQUIRE(next == kNever);
    if ((++summaries_ & 15) == 0 && ix_.earliest() != truth) REQUIRE(ix_.earliest() == truth);
  }

  std::mt19937_64 rng_;
  Mix mix_;
  std::vector<Slot, arena::Allocator<Slot>> slots_;  // the index links only arena Timers
  std::vector<int64_t> ttls_;
  std::multimap<int64_t, size_t> ref_;
  Index ix_;
  int64_t now_;
  bool in_drain_ = false;
  size_t summaries_ = 0;
  size_t drains_ = 0;
  size_t yields_ = 0;
  size_t backsteps_ = 0;
};

void run(Mix mix, uint64_t first_seed, int seeds, int ops, size_t timers) {
  std::vector<uint64_t> list;
  if (const char* env = std::getenv("LAWNKV_EXPIRY_SEED")) {
    list.push_back(std::strtoull(env, nullptr, 10));
  } else {
    for (int i = 0; i < seeds; ++i) list.push_back(first_seed + static_cast<uint64_t>(i));
  }
  for (uint64_t seed : list) {
    CAPTURE(seed);
    INFO("mix: ", mix_name(mix));
    Model m(seed, mix, timers);
    int op = 0;
    CAPTURE(op);
    for (; op < ops; ++op) m.step();
    // The run must have exercised what it claims.
    CHECK(m.drains() > static_cast<size_t>(ops) / 4);
    CHECK(m.yields() > static_cast<size_t>(ops) / 20);
    CHECK(m.backsteps() > 0);
  }
}

// 3 mixes x 2 seeds x 2 pools: about 5.6 million operations in all.
TEST_CASE("expiry model: 16 distinct TTLs") {
  run(Mix::k16, 1600, 2, 1'000'000, 4096);
  run(Mix::k16, 1700, 1, 300'000, 64);
}

TEST_CASE("expiry model: 1,000 distinct TTLs") {
  run(Mix::k1000, 100'000, 2, 1'000'000, 4096);
  run(Mix::k1000, 100'100, 1, 300'000, 64);
}

TEST_CASE("expiry model: continuous TTLs (1 ms..1 h) plus absolute deadlines up to years ahead") {
  run(Mix::kContinuous, 7'000'000, 2, 1'000'000, 4096);
  run(Mix::kContinuous, 7'000'100, 1, 300'000, 64);
}

TEST_SUITE_END();

}  // namespace
}  // namespace lawnkv::expiry
