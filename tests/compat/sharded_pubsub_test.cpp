// Sharded Pub/Sub (Redis 7.0: SSUBSCRIBE SUNSUBSCRIBE SPUBLISH, PUBSUB
// SHARDCHANNELS / SHARDNUMSUB) against redis-server: every frame every
// connection receives, byte for byte, in RESP2 and RESP3 (see
// pubsub_scenario.hpp). redis-server runs without cluster, as lawnkv serves
// shard channels: one shard.
#include <doctest/doctest.h>

#include "pubsub_scenario.hpp"

namespace lawnkv::test {

namespace {

// Confirmations and their counts: an SSUBSCRIBE frame counts shard channels
// alone, a SUBSCRIBE frame channels and patterns alone.
constexpr std::string_view kFrames = R"(
# nothing to drop: one frame with a null name and 0
SUNSUBSCRIBE
SSUBSCRIBE a b a
SUNSUBSCRIBE b zz
SUBSCRIBE a
PSUBSCRIBE p*
SSUBSCRIBE c
SUNSUBSCRIBE a
UNSUBSCRIBE a
PUNSUBSCRIBE
# still subscribed (to shard channel c): a RESP2 client is restricted
GET k
SPUBLISH c x
PUBSUB SHARDNUMSUB c
PING
PING hello
SUNSUBSCRIBE
SUNSUBSCRIBE
# out of subscribed mode again
PING
GET k
SSUBSCRIBE "" "with space" "\x00\xff"
SUNSUBSCRIBE "\x00\xff" "with space" ""
# UNSUBSCRIBE without arguments leaves shard channels alone
SSUBSCRIBE s
UNSUBSCRIBE
PUNSUBSCRIBE
SUNSUBSCRIBE
)";

// Delivery: shard channels are a namespace of their own, never matched by a
// pattern, never reached by PUBLISH.
constexpr std::string_view kDelivery = R"(
1: SSUBSCRIBE news
2: SSUBSCRIBE news sport
3: SUBSCRIBE news
4: PSUBSCRIBE n*
5: SPUBLISH news hello
5: SPUBLISH sport goal
5: SPUBLISH nothing x
5: PUBLISH news plain
5: SPUBLISH news "\x00binary\r\n"
5: SPUBLISH news ""
5: PUBSUB SHARDNUMSUB news sport nothing
5: PUBSUB SHARDNUMSUB
5: PUBSUB NUMSUB news sport
@sorted 5: PUBSUB SHARDCHANNELS
5: PUBSUB SHARDCHANNELS s*
5: PUBSUB SHARDCHANNELS nomatch*
5: PUBSUB CHANNELS
# a client subscribed to itself gets its message before the reply
2: SPUBLISH news self
2: SUNSUBSCRIBE news
5: SPUBLISH news after
# disconnecting (RESET) is unsubscribing
1: RESET
5: PUBSUB SHARDNUMSUB news
5: SPUBLISH news gone
)";

constexpr std::string_view kErrors = R"script(
SPUBLISH
SPUBLISH a
SPUBLISH a b c
SSUBSCRIBE
PUBSUB SHARDCHANNELS a b
PUBSUB shardchannels a b
PUBSUB SHARDNUMSUB
PUBSUB HELP
COMMAND INFO spublish ssubscribe sunsubscribe pubsub|shardchannels pubsub|shardnumsub
COMMAND GETKEYS SPUBLISH a b
COMMAND GETKEYS SSUBSCRIBE a b
COMMAND GETKEYSANDFLAGS SUNSUBSCRIBE a
COMMAND GETKEYS SUNSUBSCRIBE
EVAL "return redis.call('ssubscribe', 'a')" 0
EVAL "return redis.call('sunsubscribe')" 0
EVAL "return redis.call('spublish', 'a', 'b')" 0
)script";

// Inside MULTI: SSUBSCRIBE is refused at EXEC (Redis makes an exception for
// SUBSCRIBE, not for it); SUNSUBSCRIBE and SPUBLISH run.
constexpr std::string_view kMulti = R"(
MULTI
SSUBSCRIBE t
SUNSUBSCRIBE
SPUBLISH t x
EXEC
PING
SSUBSCRIBE t
2: MULTI
2: SPUBLISH t y
2: EXEC
)";

}  // namespace

TEST_CASE("compat: sharded Pub/Sub frames, lawnkv against redis-server") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  const Scenario scenarios[] = {
      {"shard frames", "", {}, kFrames},
      {"shard frames (RESP3)", "", {1}, kFrames},
      {"shard delivery", "", {}, kDelivery},
      {"shard delivery (RESP3 subscribers)", "", {1, 2, 3, 4}, kDelivery},
      {"shard errors", "", {}, kErrors},
      {"shard errors (RESP3)", "", {1}, kErrors},
      {"shard MULTI", "", {}, kMulti},
      {"shard MULTI (RESP3)", "", {1, 2}, kMulti},
  };
  ScenarioCounts total;
  run_scenarios(lawnkv, redis, scenarios, &total);
  CHECK(total.frames > 100);
  MESSAGE("sharded Pub/Sub compat: " << total.steps << " steps, " << total.mismatches << " mismatches");
}

}  // namespace lawnkv::test
