// Keyspace notifications of the GEO commands against redis-server
// (pubsub_scenario.hpp): every event, in order, byte for byte, under several
// notify-keyspace-events settings (GEOADD is ZADD underneath: `zadd`; the
// stores `georadiusstore` / `geosearchstore`, or `del`); a RESP3 client
// subscribed to its own events, where events and replies interleave as
// Redis 7.0 writes them; and each command on a key past its deadline.

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "../support/server_process.hpp"
#include "pubsub_scenario.hpp"

namespace lawnkv::test {

namespace {

constexpr std::string_view kGeo = R"(
2: PSUBSCRIBE *
3: SUBSCRIBE __keyspace@0__:g __keyevent@0__:zadd __keyevent@0__:del __keyevent@0__:geosearchstore
GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
GEOADD g 13.361389 38.115556 Palermo
GEOADD g CH 13 38 Palermo
GEOADD g NX 13 38 Palermo
GEOADD g XX 13 38 nope
GEOADD g 13 38 a 200 0 b
GEOADD str 1 1 a
GEOPOS g Palermo
GEODIST g Palermo Catania
GEOHASH g Palermo
GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km
GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 200 km
GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST
GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km
GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km
GEOSEARCHSTORE d nokey FROMLONLAT 0 0 BYRADIUS 1 km
GEORADIUS g 15 37 200 km STORE d
GEORADIUS g 15 37 200 km STOREDIST d
GEORADIUSBYMEMBER g Palermo 1 km STORE d
GEORADIUSBYMEMBER g Palermo 1 km STORE d COUNT 5 ANY
GEORADIUS g 0 0 1 km STORE d
GEORADIUS nokey 0 0 1 km STORE d
GEORADIUS_RO g 15 37 200 km
GEORADIUSBYMEMBER_RO nokey x 1 km
SET d x EX 100
GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 200 km
SET d x EX 100
GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km
GEOSEARCHSTORE g g FROMMEMBER Palermo BYRADIUS 500 km
DEL g
)";

constexpr std::string_view kGeoSelfNotify = R"(
PSUBSCRIBE __key*
GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
GEOADD g CH 13 38 Palermo
GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 200 km
GEORADIUS g 15 37 200 km STORE d
GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km
GEORADIUS nokey 0 0 1 km STORE g
PUNSUBSCRIBE
GEOADD k 1 1 v
)";

constexpr std::string_view kLazyCommands[] = {
    "GEOADD x 1 1 a",
    "GEOPOS x m",
    "GEODIST x m m",
    "GEOHASH x m",
    "GEOSEARCH x FROMLONLAT 1 1 BYRADIUS 10 km",
    "GEOSEARCH x FROMMEMBER m BYRADIUS 10 km",
    "GEOSEARCHSTORE z x FROMLONLAT 1 1 BYRADIUS 10 km",
    "GEOSEARCHSTORE x z FROMLONLAT 1 1 BYRADIUS 10 km",
    "GEORADIUS x 1 1 10 km STORE z",
    "GEORADIUSBYMEMBER z a 10 km STORE x",
    "GEORADIUSBYMEMBER_RO x m 10 km",
};

std::string lazy_script() {
  std::string s = "2: PSUBSCRIBE *\n";
  for (std::string_view command : kLazyCommands) {
    s += "FLUSHALL\nGEOADD z 1 1 a\nGEOADD x 1 1 m\nPEXPIREAT x 1\n";
    s += command;
    s += "\n";
  }
  return s;
}

}  // namespace

TEST_CASE("compat: GEO keyspace notifications, lawnkv against redis-server") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  const std::string lazy = lazy_script();
  ScenarioCounts total;
  for (const char* flags : {"KEA", "KEn", "KEAnm", "Kz", "Eg", "Ez$"}) {
    const std::set<int> resp3_sub{3};
    const Scenario scenarios[] = {
        {"geo", flags, resp3_sub, kGeo},
        {"geo, lazy expiry", flags, resp3_sub, lazy},
        {"geo, self-notify (RESP3)", flags, {1}, kGeoSelfNotify},
    };
    run_scenarios(lawnkv, redis, scenarios, &total);
  }
  CHECK(total.frames > 0);
  MESSAGE("GEO notifications compat: " << total.steps << " steps, " << total.frames
                << " frames from redis-server, " << total.mismatches << " mismatches");
}

}  // namespace lawnkv::test
