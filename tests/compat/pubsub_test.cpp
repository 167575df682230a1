// Pub/Sub commands against redis-server: every frame every connection
// receives, byte for byte, in RESP2 and RESP3 (see pubsub_scenario.hpp).
#include <doctest/doctest.h>

#include "pubsub_scenario.hpp"

namespace lawnkv::test {

namespace {

constexpr std::string_view kSubscribeFrames = R"(
# nothing to drop: one frame with a null name
UNSUBSCRIBE
PUNSUBSCRIBE
# each argument confirmed with the running count, repeats included
SUBSCRIBE a b a
PSUBSCRIBE a* b? a*
UNSUBSCRIBE b zz
UNSUBSCRIBE
PUNSUBSCRIBE a*
PUNSUBSCRIBE
UNSUBSCRIBE
SUBSCRIBE "" "with space" "\x00\xff"
UNSUBSCRIBE "\x00\xff" "with space"
# without arguments: every current one (Redis's order is a hash table's, so
# the scripts leave one)
UNSUBSCRIBE
SUBSCRIBE
PSUBSCRIBE
# a subscribed RESP2 client may only (un)subscribe, PING, QUIT and RESET
SUBSCRIBE c
GET k
SET k v
PUBLISH c x
PUBSUB NUMPAT
ECHO x
PING
PING hello
PING ""
PUNSUBSCRIBE nope
UNSUBSCRIBE c
# out of subscribed mode again
PING
GET k
)";

constexpr std::string_view kDelivery = R"(
1: SUBSCRIBE news
2: SUBSCRIBE news sport
3: PSUBSCRIBE n*
4: PSUBSCRIBE s?ort
5: PUBLISH news hello
5: PUBLISH sport goal
5: PUBLISH nothing x
5: PUBLISH other x
5: PUBLISH news "\x00binary\r\n"
5: PUBLISH news ""
# a client on a channel and a pattern gets both
3: SUBSCRIBE news
5: PUBLISH news twice
2: UNSUBSCRIBE news
5: PUBLISH news after
5: PUBSUB NUMSUB news sport nothing
5: PUBSUB NUMSUB
5: PUBSUB NUMPAT
@sorted 5: PUBSUB CHANNELS
5: PUBSUB CHANNELS s*
5: PUBSUB CHANNELS nomatch*
5: PUBSUB CHANNELS news
# several clients on one pattern: NUMPAT counts patterns, not subscriptions
6: PSUBSCRIBE n*
5: PUBSUB NUMPAT
5: PUBLISH news many
6: PUNSUBSCRIBE
3: PUNSUBSCRIBE
5: PUBSUB NUMPAT
# disconnecting is unsubscribing
5: PUBSUB NUMSUB news
1: RESET
5: PUBSUB NUMSUB news
1: PING
)";

constexpr std::string_view kPatterns = R"(
1: PSUBSCRIBE h?llo
2: PSUBSCRIBE h*llo
3: PSUBSCRIBE h[ae]llo
4: PSUBSCRIBE h[^e]llo
5: PSUBSCRIBE h[a-b]llo
6: PSUBSCRIBE "h\\*llo"
7: PSUBSCRIBE *
8: PSUBSCRIBE ""
@sorted 9: PUBLISH hello x
@sorted 9: PUBLISH hallo x
@sorted 9: PUBLISH hllo x
@sorted 9: PUBLISH heeeello x
@sorted 9: PUBLISH hbllo x
@sorted 9: PUBLISH h*llo x
@sorted 9: PUBLISH HELLO x
9: PUBLISH "" x
9: PUBSUB NUMPAT
)";

constexpr std::string_view kPubsubErrors = R"(
PUBSUB
PUBSUB FOO
PUBSUB CHANNELS a b
PUBSUB channels a b
PUBSUB NUMPAT x
PUBSUB HELP x
PubSub NumSub
PUBLISH
PUBLISH a
PUBLISH a b c
SUBSCRIBE
PSUBSCRIBE
)";

// RESP3: push frames, any command while subscribed, and a client's own
// messages arriving before the reply of the command that caused them.
constexpr std::string_view kResp3 = R"(
UNSUBSCRIBE
PUNSUBSCRIBE
SUBSCRIBE a b
PSUBSCRIBE a*
GET a
SET a v
PING
PING x
PUBSUB NUMSUB a
PUBLISH a self
2: PUBLISH b other
2: SUBSCRIBE a
@sorted 3: PUBLISH a mixed
UNSUBSCRIBE b
UNSUBSCRIBE
PUNSUBSCRIBE
# messages inside a transaction, and MULTI while subscribed
MULTI
SUBSCRIBE t
PUBLISH t in-exec
EXEC
SUBSCRIBE again
RESET
PUBLISH a after-reset
)";

// A RESP2 transaction that subscribes: the frames sit inside EXEC's array.
constexpr std::string_view kMulti = R"(
MULTI
SUBSCRIBE t
PUBLISH t x
EXEC
PING
RESET
MULTI
PUBLISH t y
EXEC
)";

}  // namespace

TEST_CASE("compat: Pub/Sub frames, lawnkv against redis-server") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  const Scenario scenarios[] = {
      {"subscribe frames", "", {}, kSubscribeFrames},
      {"subscribe frames (RESP3)", "", {1}, kSubscribeFrames},
      {"delivery", "", {}, kDelivery},
      {"delivery (RESP3 subscribers)", "", {1, 2, 3, 4, 6}, kDelivery},
      {"patterns", "", {}, kPatterns},
      {"errors", "", {}, kPubsubErrors},
      {"errors (RESP3)", "", {1}, kPubsubErrors},
      {"RESP3 subscriber", "", {1, 2}, kResp3},
      {"MULTI", "", {}, kMulti},
  };
  ScenarioCounts total;
  run_scenarios(lawnkv, redis, scenarios, &total);
  MESSAGE("Pub/Sub compat: " << total.steps << " steps, " << total.mismatches << " mismatches");
}

}  // namespace lawnkv::test
