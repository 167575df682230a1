// store/idle_class.hpp: the idle class arithmetic (which pass raises which
// class, the floor OBJECT IDLETIME answers, the class RESTORE ... IDLETIME
// gives) pinned by the header's tables, and the aging passes checked
// against keys' true idle times: a class's floor never exceeds the time
// since the key's last access.

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "store/idle_aging.hpp"
#include "store/idle_class.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::store {
namespace {

TEST_CASE("pass_raises: pass F raises the class equal to F's trailing zero bits, one class a pass") {
  // The header's table.
  const uint8_t raised[] = {0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4};
  for (uint64_t f = 1; f <= 16; ++f)
    for (uint8_t c = 0; c <= kMaxIdleClass; ++c) CHECK(pass_raises(c, f) == (c == raised[f - 1]));
  CHECK_FALSE(pass_raises(0, 0));
  CHECK_FALSE(pass_raises(kMaxIdleClass, uint64_t{1} << kMaxIdleClass));  // the top class stays
  // A key met twice by one pass is raised once.
  for (uint64_t f = 1; f < 5000; ++f)
    for (uint8_t c = 0; c < kMaxIdleClass; ++c) CHECK_FALSE((pass_raises(c, f) && pass_raises(c + 1, f)));
}

TEST_CASE("idle_floor_s: 60 s * (2^(c-1) - 1)") {
  const int64_t floors[] = {0, 0, 60, 180, 420, 900, 1860, 3780, 7620, 15300, 30660, 61380, 122820, 245700, 491460, 982980};
  for (uint8_t c = 0; c <= kMaxIdleClass; ++c) CHECK(idle_floor_s(c) == floors[c]);
}

// Keys used at random moments, then left alone; passes every 60 s on the
// dot. At every second the floor of each key's class is at most its true
// idle time, and a key left alone reaches class c by 60 * (3 * 2^(c-1) - 1)
// seconds (the header's bounds).
TEST_CASE("IdleAging: the floor never exceeds the true idle time, and classes rise as the header says") {
  Keyspace ks(2);
  std::mt19937_64 rng(7);
  constexpr int kKeys = 40;
  std::vector<int64_t> last_use(kKeys, 0);
  for (int i = 0; i < kKeys; ++i) ks.db(i % 2).add_string("k" + std::to_string(i), "v");
  IdleAging aging;
  int64_t now = 0;
  aging.step(ks, now);  // pass 1 at 0, then one every 60 s
  REQUIRE(aging.pass() == 1);
  for (int64_t s = 1; s <= 60 * 3000; ++s) {
    now = s * 1000;
    // Each key is used now and then, less and less often as time goes on.
    for (int i = 0; i < kKeys; ++i) {
      if (rng() % (50 + s / 4) == 0) {
        REQUIRE(ks.db(i % 2).lookup("k" + std::to_string(i), now) != nullptr);
        last_use[i] = now;
      }
    }
    while (aging.step(ks, now, 7)) {
    }
    for (int i = 0; i < kKeys; ++i) {
      const Entry* e = ks.db(i % 2).peek("k" + std::to_string(i));
      const uint8_t c = e->idle_class();
      const int64_t idle_s = (now - last_use[i]) / 1000;
      CAPTURE(i);
      CAPTURE(s);
      REQUIRE(idle_floor_s(c) <= idle_s);
      if (c < kMaxIdleClass) REQUIRE(idle_s < 60 * (3 * (int64_t{1} << c) - 1));
    }
  }
  CHECK(aging.pass() == 3001);
}

TEST_CASE("IdleAging: a pass starts 60 s after the last one started, in steps, and not over an empty keyspace") {
  Keyspace ks(3);
  IdleAging aging;
  CHECK_FALSE(aging.due(ks, 1'000));  // no keys
  CHECK_FALSE(aging.step(ks, 1'000));
  CHECK(aging.pass() == 0);
  for (int i = 0; i < 3000; ++i) ks.db(i % 3).add_string("k" + std::to_string(i), "v");
  CHECK(aging.due(ks, 1'000));
  int steps = 0;
  while (aging.step(ks, 1'000, 100)) ++steps;
  CHECK(steps >= 29);  // 3,000 keys, 100 a step (buckets count too)
  CHECK(aging.pass() == 1);
  CHECK(aging.next_start_ms() == 61'000);
  CHECK_FALSE(aging.due(ks, 60'999));
  CHECK_FALSE(aging.step(ks, 60'999));
  for (int i = 0; i < 3000; ++i) CHECK(ks.db(i % 3).peek("k" + std::to_string(i))->idle_class() == 1);
  CHECK(aging.due(ks, 61'000));
  while (aging.step(ks, 61'000)) {
  }
  CHECK(aging.pass() == 2);
  for (int i = 0; i < 3000; ++i) CHECK(ks.db(i % 3).peek("k" + std::to_string(i))->idle_class() == 2);
  // The clock goes back an hour: the next pass comes within 60 s of it.
  CHECK_FALSE(aging.step(ks, 61'000 - 3'600'000));
  CHECK(aging.next_start_ms() == 61'000 - 3'600'000 + kPassPeriodMs);
}

TEST_CASE("Db::lookup counts an access (class 0), lookup_untouched and peek do not; a new string value is class 0") {
  Keyspace ks(1);
  Db& db = ks.db(0);
  Entry& k = db.add_string("k", "v");
  k.set_idle_class(5);
  CHECK(db.lookup_untouched("k", 0)->idle_class() == 5);
  CHECK(db.peek("k")->idle_class() == 5);
  CHECK(db.lookup("k", 0)->idle_class() == 0);
  db.peek("k")->set_idle_class(5);
  CHECK(db.set_string(*db.peek("k"), "w").idle_class() == 0);  // in place
  db.peek("k")->set_idle_class(5);
  CHECK(db.set_string(*db.peek("k"), std::string(300, 'x')).idle_class() == 0);  // a new block
  // A deadline moves the key to a block with a timer: the class goes along.
  db.peek("k")->set_idle_class(4);
  CHECK(db.set_deadline(*db.peek("k"), 1'000'000, 0).idle_class() == 4);
  CHECK(db.peek("k")->type() == Type::kString);
}

// RESTORE ... IDLETIME: the class given never claims more than the key's
// true idle time, now or after any number of passes, and is the highest
// that does.
TEST_CASE("idle_class_for: the highest class whose floor and next raise stay within the true idle time") {
  // Pass 1, due now, raises class 0; pass 2, 60 s later, class 1 (to 60 s).
  CHECK(idle_class_for(0, 0, 0) == 1);
  CHECK(idle_class_for(59, 0, 0) == 1);
  // Pass 2, due now, would make a class 1 key read 60 s.
  CHECK(idle_class_for(0, 1, 0) == 0);
  CHECK(idle_class_for(59, 1, 0) == 0);
  CHECK(idle_class_for(60, 1, 0) == 2);  // pass 4, 120 s away: 180 s >= 180
  // Class 2 (60 s) is raised by pass 4, 240 s away: 300 s >= 180.
  CHECK(idle_class_for(60, 0, 60'000) == 2);
  CHECK(idle_class_for(1000, 0, 0) == 5);  // pass 32 is 31 passes away: 1000 + 1860 s >= 1860
  CHECK(idle_class_for(1000, 31, 0) == 4);  // pass 32 is next
  CHECK(idle_class_for(INT64_MAX, 5, 0) == kMaxIdleClass);
  CHECK(idle_class_for(982'980, 5, 0) == kMaxIdleClass);
  CHECK(idle_class_for(982'979, 5, 0) == kMaxIdleClass - 1);

  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const int64_t idle_s = static_cast<int64_t>(rng() % 2'000'000);
    const uint64_t last_pass = rng() % 100'000;
    const int64_t wait_ms = static_cast<int64_t>(rng() % kPassPeriodMs);
    uint8_t c = idle_class_for(idle_s, last_pass, wait_ms);
    CAPTURE(idle_s);
    CAPTURE(last_pass);
    CAPTURE(wait_ms);
    REQUIRE(idle_floor_s(c) <= idle_s);
    // The next 2^16 passes: the floor stays within the true idle time.
    for (uint64_t k = 1; k <= 65536 && c < kMaxIdleClass; ++k) {
      if (!pass_raises(c, last_pass + k)) continue;
      ++c;
      const int64_t at_ms = idle_s * 1000 + wait_ms + static_cast<int64_t>(k - 1) * kPassPeriodMs;
      REQUIRE(idle_floor_s(c) * 1000 <= at_ms);
    }
  }
}

}  // namespace
}  // namespace lawnkv::store
