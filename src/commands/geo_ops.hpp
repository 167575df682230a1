#pragma once
// What the GEO commands share (geo_family.cpp: GEOADD, GEOPOS, GEODIST,
// GEOHASH; geo_search.cpp: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS*): reading
// coordinates and units as Redis does, with its error texts, and writing
// distances and coordinates as Redis prints them. The geohash arithmetic is
// types/geohash.hpp; the points live in sorted sets (types/zset.hpp).

#include <string_view>

#include "engine/context.hpp"
#include "types/geohash.hpp"

namespace lawnkv {

class CommandTable;

inline constexpr std::string_view kGeoBadUnit = "ERR unsupported unit provided. please use M, KM, FT, MI";

// Two arguments, longitude then latitude: each a float (else "ERR value is
// not a valid float"), then within the limits (else Redis's "ERR invalid
// longitude,latitude pair %f,%f"). Redis's extractLongLatOrReply.
bool lonlat_or_reply(Call& call, std::string_view lon, std::string_view lat, types::geo::Point* out);
// The metres in one unit (m, km, ft, mi, any case); 0 after replying
// kGeoBadUnit.
double unit_or_reply(Call& call, std::string_view unit);
// A distance with four decimals, as a bulk string in both protocols.
void reply_distance(Call& call, double d);
// A coordinate as Redis's addReplyHumanLongDouble writes it.
void reply_coordinate(Call& call, double v);

// The rows of geo_search.cpp, which register_geo_commands adds.
void add_geo_search_commands(CommandTable& t);

}  // namespace lawnkv
