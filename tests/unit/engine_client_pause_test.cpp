// engine/client_pause.hpp: the purposes of a pause (Redis 7.0's
// pause_purpose) and what holds clients when several are on.
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "engine/client_pause.hpp"
#include "engine/table.hpp"

namespace lawnkv {

namespace {

using Type = ClientPause::Type;
using Purpose = ClientPause::Purpose;
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

}  // namespace

TEST_CASE("client pause: ending one purpose leaves the other's pause on") {
  ClientPause p;
  p.pause(Purpose::kFailover, Type::kWrite, kForever, 1000);
  p.pause(Purpose::kClientCommand, Type::kWrite, 5000, 1000);
  p.unpause(Purpose::kClientCommand, 1000);
  CHECK(p.active(2000));
  CHECK(p.holds(kWrite));
  p.pause(Purpose::kClientCommand, Type::kWrite, 5000, 2000);
  p.unpause(Purpose::kFailover, 2000);
  CHECK(p.active(5000));  // the end is inclusive
  CHECK(p.end_ms() == 5000);
  CHECK_FALSE(p.active(5001));
}

TEST_CASE("client pause: the most restrictive type holds, until the latest end of that type") {
  ClientPause p;
  p.pause(Purpose::kFailover, Type::kWrite, kForever, 1000);
  p.pause(Purpose::kClientCommand, Type::kAll, 3000, 1000);
  CHECK(p.type() == Type::kAll);
  CHECK(p.end_ms() == 3000);
  CHECK(p.holds(0));
  p.postpone(7);  // a reader waits
  CHECK(p.take_released().empty());
  // ALL ends: WRITE remains, the reader runs again (a writer would wait again).
  CHECK(p.active(3001));
  CHECK(p.type() == Type::kWrite);
  CHECK(p.end_ms() == kForever);
  CHECK_FALSE(p.holds(0));
  CHECK(p.take_released() == std::vector<uint64_t>{7});
  CHECK(p.take_released().empty());
}

TEST_CASE("client pause: a new pause of the same purpose keeps the more restrictive type and later end") {
  ClientPause p;
  p.pause(Purpose::kClientCommand, Type::kAll, 3000, 1000);
  p.pause(Purpose::kClientCommand, Type::kWrite, 2000, 1000);
  CHECK(p.type() == Type::kAll);
  CHECK(p.end_ms() == 3000);
  // A pause whose end has already passed (CLIENT PAUSE 0) ends at once.
  ClientPause q;
  q.pause(Purpose::kClientCommand, Type::kAll, 0, 1000);
  CHECK_FALSE(q.on());
}

}  // namespace lawnkv
