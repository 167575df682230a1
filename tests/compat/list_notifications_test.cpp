// Keyspace notifications of the list commands against redis-server, as
// notifications_test.cpp does for the other families (pubsub_scenario.hpp):
// the events each server publishes, in order, byte for byte, under several
// notify-keyspace-events settings, and a RESP3 client subscribed to its own
// events, which sees each command's events and reply interleaved as Redis
// 7.0 writes them. Blocked clients served later are not here (a scenario
// synchronises every connection after each step, which a blocked client
// cannot answer): tests/unit/commands_lists_test.cpp checks their events.
#include <doctest/doctest.h>

#include <string>

#include "pubsub_scenario.hpp"

namespace lawnkv::test {

namespace {

constexpr std::string_view kLists = R"(
2: PSUBSCRIBE *
3: SUBSCRIBE __keyspace@0__:l __keyevent@0__:del __keyevent@0__:lpop __keyevent@0__:new
RPUSH l a b c
LPUSH l z
LPUSHX l y
RPUSHX l d
LPUSHX nokey a
LPOP l
RPOP l
LPOP l 2
RPOP l 0
LPOP nokey
LSET l 0 x
LSET l 5 x
LINSERT l BEFORE x w
LINSERT l AFTER nope w
LREM l 0 nope
LREM l 1 w
LTRIM l 0 -1
LTRIM l 1 0
RPUSH l a b c d
LMOVE l m LEFT RIGHT
LMOVE l l RIGHT LEFT
RPOPLPUSH l m
RPOPLPUSH nokey m
LMPOP 2 nokey l LEFT COUNT 1
LMPOP 1 l RIGHT COUNT 5
BLPOP m 0
BRPOP m 0
RPUSH m a b
BLMOVE m l LEFT RIGHT 0
BRPOPLPUSH m l 0
BLMPOP 0 1 l LEFT COUNT 3
LREM nokey 0 a
RPUSH r 1 2 1
LREM r 0 1
LREM r 0 2
RPUSH t 1
LTRIM t 5 10
SET s v
LPUSH s a
LMOVE l s LEFT LEFT
MULTI
BLPOP nokey 0
RPUSH q 1
BLMOVE q d LEFT LEFT 0
EXEC
LLEN d
LRANGE d 0 -1
LINDEX d 0
LPOS d 1
RENAME d e
COPY e f
DEL e f
)";

constexpr std::string_view kListsSelfNotify = R"(
PSUBSCRIBE __key*
RPUSH l a b c
LPUSH l z
LPOP l
RPOP l 2
LSET l 0 x
LINSERT l BEFORE x w
LREM l 1 w
RPUSH l a b
LTRIM l 0 1
LMOVE l m LEFT RIGHT
RPOPLPUSH l m
LMPOP 1 m LEFT COUNT 1
BLPOP m 0
RPUSH l a
BLMOVE l m LEFT LEFT 0
BLMPOP 0 1 m RIGHT
PUNSUBSCRIBE
RPUSH k v
)";

}  // namespace

TEST_CASE("compat: keyspace notifications of the list commands, lawnkv against redis-server") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  ScenarioCounts total;
  for (const char* flags : {"KEA", "KEn", "Kl", "Eg", "El$"}) {
    const Scenario scenarios[] = {
        {"lists", flags, {3}, kLists},
        {"lists, self-notify (RESP3)", flags, {1}, kListsSelfNotify},
    };
    run_scenarios(lawnkv, redis, scenarios, &total);
  }
  CHECK(total.frames > 500);
  MESSAGE("list keyspace notifications compat: " << total.steps << " steps, " << total.frames
                << " frames from redis-server, " << total.mismatches << " mismatches");
}

}  // namespace lawnkv::test
