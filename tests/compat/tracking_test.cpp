// Client-side caching (CLIENT TRACKING) against redis-server: the commands'
// replies and errors, and every invalidation frame each connection
// receives, byte for byte, in RESP2 and RESP3 (see pubsub_scenario.hpp).
//
// Connection 1 tracks; 2 (and 3) change keys, or receive 1's invalidations
// through REDIRECT. Client ids differ between the servers: {id:N} and @ids
// stand for them. Not here, because lawnkv differs by design: SWAPDB (it
// tells tracking clients, Redis 7.0 does not), and which keys the
// tracking-table-max-keys bound drops (random on both).
#include <doctest/doctest.h>

#include "pubsub_scenario.hpp"

namespace lawnkv::test {

namespace {

constexpr std::string_view kCommands = R"--(
CLIENT TRACKINGINFO
CLIENT GETREDIR
CLIENT TRACKING
CLIENT TRACKING maybe
CLIENT TRACKING on foo
CLIENT TRACKING on REDIRECT
CLIENT TRACKING on PREFIX
CLIENT TRACKING on REDIRECT abc
CLIENT TRACKING on REDIRECT 0
CLIENT TRACKING on REDIRECT -1
CLIENT TRACKING on REDIRECT 999999999
CLIENT TRACKING on REDIRECT {id:2} REDIRECT {id:2}
CLIENT TRACKING on PREFIX a
CLIENT TRACKING on BCAST OPTIN
CLIENT TRACKING on BCAST OPTOUT
CLIENT TRACKING on OPTIN OPTOUT
CLIENT TRACKING on BCAST PREFIX a PREFIX ab
CLIENT TRACKING on BCAST PREFIX ab PREFIX a
CLIENT TRACKINGINFO
# Redis 7.0 refuses an overlap between two new prefixes past the first, then
# enables tracking anyway: an error and OK
CLIENT TRACKING on BCAST PREFIX a PREFIX b PREFIX bc
CLIENT TRACKINGINFO
CLIENT TRACKING on BCAST PREFIX c
CLIENT TRACKING on BCAST PREFIX ax
CLIENT TRACKING on BCAST PREFIX "\x00z"
CLIENT TRACKING on OPTIN
CLIENT TRACKINGINFO
CLIENT TRACKING off
CLIENT TRACKINGINFO
CLIENT TRACKING on BCAST
CLIENT TRACKING on BCAST PREFIX x
CLIENT TRACKINGINFO
CLIENT TRACKING OFF BCAST OPTIN
CLIENT CACHING yes
CLIENT CACHING no
CLIENT CACHING
CLIENT CACHING yes no
CLIENT TRACKING on
CLIENT TRACKING on BCAST
CLIENT CACHING yes
CLIENT CACHING no
CLIENT CACHING maybe
CLIENT TRACKINGINFO
CLIENT TRACKING on OPTIN
CLIENT TRACKING on OPTIN NOLOOP
CLIENT TRACKING on OPTOUT
CLIENT TRACKINGINFO
CLIENT CACHING no
CLIENT CACHING yes
@nosync CLIENT CACHING yes
CLIENT TRACKINGINFO
CLIENT TRACKINGINFO
CLIENT TRACKING off
CLIENT TRACKING on OPTOUT
@nosync CLIENT CACHING no
@nosync CLIENT GETREDIR
CLIENT TRACKINGINFO
CLIENT TRACKINGINFO
CLIENT TRACKING off
@ids CLIENT TRACKING on REDIRECT {id:2} NOLOOP
@ids CLIENT TRACKINGINFO
@ids CLIENT GETREDIR
@ids CLIENT TRACKING on REDIRECT {id:1}
@ids CLIENT GETREDIR
CLIENT TRACKING off
CLIENT GETREDIR
CLIENT TRACKINGINFO
)--";

// Connection 1 tracks in the default mode; 2 writes.
constexpr std::string_view kDefaultMode = R"--(
CLIENT TRACKING on
GET a
MGET a b c
2: SET a 1
2: SET a 2
GET a
2: DEL b c
2: DEL c
# its own writes too, after the reply
SET a 3
GET a
SET a 4
# once per read: told once
GET a
GET a
2: INCR a
# a read that fails still tracks
2: HSET h f v
GET h
2: HDEL h f
# MULTI: after EXEC's reply
GET x
MULTI
SET x 1
GET y
SET y 1
EXEC
# scripts: the reads of a script count for its caller, its writes invalidate
EVAL "return redis.call('get', KEYS[1])" 1 s
2: SET s 1
EVAL_RO "return redis.call('get', KEYS[1])" 1 s
2: SET s 2
GET s
2: EVAL "return redis.call('set', KEYS[1], 'x')" 1 s
GET s
EVAL "return redis.call('set', KEYS[1], 'y')" 1 s
# commands with keys elsewhere than argv[1]
ZUNION 2 z1 z2
2: ZADD z2 1 m
XREAD STREAMS st 0
2: XADD st 1-1 f v
LCS l1 l2
2: SET l2 abc
# flushes: a null for every tracking client, the table emptied
GET f
2: FLUSHDB
2: SET f 1
GET f
FLUSHALL
2: SET f 2
# lazy expiry: the read that finds the key expired
2: SET e v PX 200
GET e
2: DEBUG SLEEP 0.3
GET e
GET e
2: SET e v
CLIENT TRACKING off
2: SET e w
)--";

// The writes of every family invalidate their keys (EXISTS tracks any type).
constexpr std::string_view kWrites = R"--(
CLIENT TRACKING on
EXISTS s1 s2 s3
2: SET s1 1
2: APPEND s2 x
2: SETRANGE s3 0 y
EXISTS s1 s2 s3 n1
2: INCRBYFLOAT n1 1.5
2: GETDEL s1
2: GETEX s2 EX 100
2: PERSIST s2
2: EXPIRE s3 100
2: MSET s1 a s2 b s3 c
EXISTS s1 s2 s3
2: RENAME s1 r1
EXISTS r1
2: RENAME r1 s2
EXISTS s2 s3
2: MOVE s3 1
2: COPY s2 s3
EXISTS s3
2: COPY s2 s3 REPLACE
EXISTS h l st z
2: HSET h f v
2: LPUSH l a b
2: SADD st a
2: ZADD z 1 a
EXISTS h l st z
2: HINCRBY h n 1
2: RPOP l
2: SREM st a
2: ZINCRBY z 1 a
EXISTS l z
2: LMOVE l l2 LEFT RIGHT
2: ZPOPMIN z
EXISTS d s2
2: SORT l2 ALPHA STORE d
2: EXPIRE s2 0
EXISTS x
2: XADD x 1-1 f v
EXISTS x
2: XTRIM x MAXLEN 0
EXISTS x
2: XGROUP CREATE x g $
2: UNLINK x
EXISTS p1 p2
2: PFADD p1 a b
2: PFADD p2 c
EXISTS p1 p2
2: PFADD p1 a
2: PFCOUNT p1 p2
2: PFCOUNT p1
2: PFCOUNT p1
EXISTS p1 p2
2: PFMERGE p2 p1
EXISTS p1 p2
2: PFDEBUG TODENSE p1
2: PFCOUNT p2
)--";

// OPTIN / OPTOUT with CLIENT CACHING, and NOLOOP.
constexpr std::string_view kOptModes = R"--(
CLIENT TRACKING on OPTIN
GET a
2: SET a 1
@nosync CLIENT CACHING yes
GET a
2: SET a 2
GET a
2: SET a 3
@nosync CLIENT CACHING yes
@nosync CLIENT GETREDIR
GET b
2: SET b 1
MULTI
CLIENT CACHING yes
GET c
GET d
EXEC
2: MSET c 1 d 2
CLIENT TRACKING off
CLIENT TRACKING on OPTOUT
GET a
2: SET a 4
@nosync CLIENT CACHING no
GET a
2: SET a 5
GET a
2: SET a 6
CLIENT TRACKING off
CLIENT TRACKING on NOLOOP
GET a
SET a 7
GET a
2: SET a 8
)--";

// BCAST: what changed under each prefix, once per loop iteration, sorted.
constexpr std::string_view kBroadcast = R"--(
CLIENT TRACKING on BCAST PREFIX a PREFIX b
2: SET a1 x
2: MSET b1 1 a3 2 c 3 a2 9
2: SET c x
2: DEL a1 a2 a3 nope b1
@reply SET a1 own
CLIENT TRACKING off
CLIENT TRACKING on BCAST NOLOOP
@reply SET k own
2: SET k other
@reply MSET k own j own
2: FLUSHALL
3: CLIENT TRACKING on BCAST PREFIX k
2: SET k 1
CLIENT TRACKING off
2: SET k 2
)--";

// RESP2: invalidations reach a redirect client subscribed to anything, as
// messages of __redis__:invalidate; a RESP3 redirect client gets pushes.
constexpr std::string_view kRedirect = R"--(
2: SUBSCRIBE __redis__:invalidate
CLIENT TRACKING on REDIRECT {id:2}
GET a
3: SET a 1
GET a
SET a 2
3: FLUSHALL
CLIENT TRACKING on BCAST REDIRECT {id:2}
3: SET a 3
CLIENT TRACKING off
# a redirect client that is not subscribed gets nothing (RESP2)
4: PING
CLIENT TRACKING on REDIRECT {id:4}
GET a
3: SET a 4
# a redirect client in RESP3 gets pushes, even for a RESP2 tracker
CLIENT TRACKING on REDIRECT {id:5}
GET a
3: SET a 5
3: FLUSHDB
CLIENT TRACKING off
)--";

// The redirect client goes away: the tracker is marked broken and, in
// RESP3, told so at each invalidation.
constexpr std::string_view kBrokenRedirect = R"--(
2: PING
@ids CLIENT TRACKING on REDIRECT {id:2}
GET a
@ids 3: CLIENT KILL ID {id:2}
@ids 3: SET a 1
@ids CLIENT TRACKINGINFO
GET a
@ids 3: SET a 2
@ids 3: FLUSHALL
@ids CLIENT TRACKING on REDIRECT {id:2}
CLIENT TRACKING on
@ids CLIENT TRACKINGINFO
)--";

}  // namespace

TEST_CASE("compat: client-side caching (CLIENT TRACKING), lawnkv against redis-server") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  const Scenario scenarios[] = {
      {"tracking commands", "", {}, kCommands},
      {"tracking commands (RESP3)", "", {1}, kCommands},
      {"default mode (RESP3)", "", {1}, kDefaultMode},
      {"default mode (RESP2: no messages)", "", {}, kDefaultMode},
      {"writes (RESP3)", "", {1}, kWrites},
      {"OPTIN, OPTOUT, NOLOOP (RESP3)", "", {1}, kOptModes},
      {"BCAST (RESP3)", "", {1, 3}, kBroadcast},
      {"redirect", "", {5}, kRedirect},
      {"redirect (RESP3 tracker)", "", {1, 5}, kRedirect},
      {"broken redirect", "", {}, kBrokenRedirect},
      {"broken redirect (RESP3)", "", {1}, kBrokenRedirect},
  };
  ScenarioCounts total;
  run_scenarios(lawnkv, redis, scenarios, &total);
  CHECK(total.mismatches == 0);
  // Proof the run saw invalidations: far more frames than commands.
  CHECK(total.frames > total.steps);
}

}  // namespace lawnkv::test
