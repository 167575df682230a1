// Keyspace notifications of the sorted-set commands against redis-server
// (pubsub_scenario.hpp): every event, in order, byte for byte, under several
// notify-keyspace-events settings; a RESP3 client subscribed to its own
// events, where events and replies interleave as Redis 7.0 writes them; and
// each command on a key past its deadline (`expired` first).

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "../support/server_process.hpp"
#include "pubsub_scenario.hpp"

namespace lawnkv::test {

namespace {

constexpr std::string_view kZsets = R"(
2: PSUBSCRIBE *
3: SUBSCRIBE __keyspace@0__:z __keyevent@0__:zadd __keyevent@0__:del __keyevent@0__:zunionstore
ZADD z 1 a 2 b 3 c
ZADD z 1 a
ZADD z CH 5 a
ZADD z NX 9 a
ZADD z XX 1 nope
ZADD z INCR 1 a
ZADD z 1 a 2 nan
ZADD z INCR inf a
ZADD z INCR -inf a
ZINCRBY z 2 b
ZINCRBY new 2 b
ZREM z nope
ZREM z a b
ZREM z c
ZADD z 1 a 2 b 3 c 4 d 5 e 6 f
ZREMRANGEBYRANK z 0 0
ZREMRANGEBYRANK z 10 20
ZREMRANGEBYSCORE z 2 3
ZREMRANGEBYLEX z [d [d
ZREMRANGEBYLEX z - +
ZADD z 1 a 2 b 3 c 4 d
ZPOPMIN z
ZPOPMAX z 0
ZPOPMAX z 2
ZPOPMIN z 5
ZPOPMIN z
ZADD p 1 a 2 b
ZMPOP 2 nokey p MIN COUNT 1
ZMPOP 1 p MAX COUNT 9
BZPOPMIN nokey p 1
ZADD p 1 a
BZPOPMAX p 1
ZADD p 1 a 2 b
BZMPOP 1 1 p MIN COUNT 2
ZADD a 1 x 2 y
ZADD b 2 y 3 z
ZUNIONSTORE d 2 a b
ZINTERSTORE d 2 a b
ZDIFFSTORE d 2 a b
ZINTERSTORE d 2 a nokey
ZDIFFSTORE d 1 nokey
ZRANGESTORE d a 0 -1
ZRANGESTORE d a 5 6
ZRANGESTORE d nokey 0 -1
SET d x EX 100
ZUNIONSTORE d 1 a
ZRANGE a 0 -1
ZRANGEBYSCORE nokey 0 1
ZSCORE nokey x
ZUNION 2 a nokey
ZRANDMEMBER nokey
ZSCAN nokey 0
SET str v
ZADD str 1 a
ZUNIONSTORE d 2 a str
COPY a a2
RENAME a2 a3
MOVE a3 1
DEL a
)";

constexpr std::string_view kZsetsSelfNotify = R"(
PSUBSCRIBE __key*
ZADD z 1 a 2 b 3 c
ZINCRBY z 1 a
ZADD z 1 a 2 nan
ZREM z a
ZPOPMIN z
ZPOPMAX z 3
ZADD z 1 a 2 b 3 c
ZMPOP 1 z MIN COUNT 5
ZADD a 1 x
ZUNIONSTORE d 1 a
ZRANGESTORE d a 0 -1
ZINTERSTORE d 2 a nokey
ZREMRANGEBYSCORE a -inf +inf
PUNSUBSCRIBE
ZADD k 1 v
)";

constexpr std::string_view kLazyCommands[] = {
    "ZADD x 1 a",           "ZINCRBY x 1 a",         "ZREM x a",           "ZCARD x",
    "ZSCORE x a",           "ZMSCORE x a",           "ZRANK x a",          "ZCOUNT x 0 1",
    "ZLEXCOUNT x - +",      "ZRANGE x 0 -1",         "ZRANGESTORE z x 0 -1", "ZRANGESTORE x z 0 -1",
    "ZREMRANGEBYRANK x 0 -1", "ZPOPMIN x",           "ZMPOP 1 x MIN",      "BZPOPMIN x 1",
    "ZRANDMEMBER x",        "ZUNION 2 x z",          "ZUNIONSTORE x 1 z",  "ZINTERCARD 1 x",
    "ZSCAN x 0",
};

std::string lazy_script() {
  std::string s = "2: PSUBSCRIBE *\n";
  for (std::string_view command : kLazyCommands) {
    s += "FLUSHALL\nZADD z 1 a\nZADD x 5 m\nPEXPIREAT x 1\n";
    s += command;
    s += "\n";
  }
  return s;
}

}  // namespace

TEST_CASE("compat: sorted-set keyspace notifications, lawnkv against redis-server") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  const std::string lazy = lazy_script();
  ScenarioCounts total;
  for (const char* flags : {"KEA", "KEn", "KEAnm", "Kz", "Eg", "Ez$"}) {
    const std::set<int> resp3_sub{3};
    const Scenario scenarios[] = {
        {"zsets", flags, resp3_sub, kZsets},
        {"zsets, lazy expiry", flags, resp3_sub, lazy},
        {"zsets, self-notify (RESP3)", flags, {1}, kZsetsSelfNotify},
    };
    run_scenarios(lawnkv, redis, scenarios, &total);
  }
  CHECK(total.frames > 0);
  MESSAGE("sorted-set notifications compat: " << total.steps << " steps, " << total.frames
                << " frames from redis-server, " << total.mismatches << " mismatches");
}

}  // namespace lawnkv::test
