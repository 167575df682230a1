// The GEO commands on single points (the Cmd of the Op/Cmd split): GEOADD,
// GEOPOS, GEODIST, GEOHASH, and the rows of every GEO command; the
// searches are geo_search.cpp. A GEO index is a sorted set whose scores are
// 52-bit geohashes (types/geohash.hpp), so every sorted-set command works
// on it and GEOADD is ZADD with coordinates turned into scores: it runs
// ZADD's own handler, which notifies `zadd`, and records the ZADD it ran
// (Redis rewrites the command to ZADD and propagates that).

#include <cstdio>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/geo_ops.hpp"
#include "commands/zsets_ops.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/zset.hpp"

namespace lawnkv {

namespace geo = types::geo;

bool lonlat_or_reply(Call& call, std::string_view lon, std::string_view lat, geo::Point* out) {
  if (!string_to_double(lon, &out->lon) || !string_to_double(lat, &out->lat)) {
    call.error(err::kNotFloat);
    return false;
  }
  if (out->lon < geo::kLonMin || out->lon > geo::kLonMax || out->lat < geo::kLatMin || out->lat > geo::kLatMax) {
    // "%f" of a double has at most 309 integer digits.
    char buf[768];
    const int n = std::snprintf(buf, sizeof(buf), "ERR invalid longitude,latitude pair %f,%f", out->lon, out->lat);
    call.error(std::string_view(buf, static_cast<size_t>(n)));
    return false;
  }
  return true;
}

double unit_or_reply(Call& call, std::string_view unit) {
  if (is_option(unit, "m")) return 1;
  if (is_option(unit, "km")) return 1000;
  if (is_option(unit, "ft")) return 0.3048;
  if (is_option(unit, "mi")) return 1609.34;
  call.error(kGeoBadUnit);
  return 0;
}

void reply_distance(Call& call, double d) {
  char buf[32];
  call.reply.bulk(std::string_view(buf, geo::format_distance(d, buf)));
}

void reply_coordinate(Call& call, double v) { call.reply.dbl_text(ld_to_string(v)); }

namespace {

/* GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...] */
void geoadd_command(Call& call) {
  size_t at = 2;
  bool nx = false, xx = false;
  for (; at < call.argv.size(); ++at) {
    const std::string_view opt = call.argv[at];
    if (is_option(opt, "nx")) nx = true;
    else if (is_option(opt, "xx")) xx = true;
    else if (!is_option(opt, "ch")) break;  // CH is ZADD's
  }
  if ((call.argv.size() - at) % 3 != 0 || (nx && xx)) return call.error(err::kSyntax);
  // ZADD key [options] score member ...: the options as given, each
  // point's score as the integer it is.
  std::vector<std::string> zadd;
  zadd.reserve(at + (call.argv.size() - at) / 3 * 2);
  zadd.emplace_back("zadd");
  for (size_t i = 1; i < at; ++i) zadd.emplace_back(call.argv[i]);
  for (size_t i = at; i < call.argv.size(); i += 3) {
    geo::Point p;
    if (!lonlat_or_reply(call, call.argv[i], call.argv[i + 1], &p)) return;
    geo::Hash h;
    geo::encode_wgs84(p.lon, p.lat, geo::kStepMax, &h);
    zadd.push_back(ll_to_string(static_cast<long long>(geo::align52(h))));
    zadd.emplace_back(call.argv[i + 2]);
  }
  std::vector<std::string_view> views(zadd.begin(), zadd.end());
  Call as_zadd = call;
  as_zadd.argv = views;
  zadd_command(as_zadd);
  call.failed = as_zadd.failed;
  call.data.effects.replace_own(std::move(zadd));
}

// The point of member in z, if it is there.
bool member_point(const types::ZSet* z, std::string_view member, geo::Point* out) {
  if (z == nullptr) return false;
  const auto score = z->score(member);
  if (!score) return false;
  *out = geo::decode_score(*score);
  return true;
}

/* GEOPOS key [member ...] */
void geopos_command(Call& call) {
  bool wrong_type = false;
  const types::ZSet* z = lookup_or_reply<types::ZSet>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    geo::Point p;
    if (!member_point(z, call.argv[i], &p)) {
      call.reply.null_array();
      continue;
    }
    call.reply.array(2);
    reply_coordinate(call, p.lon);
    reply_coordinate(call, p.lat);
  }
}

/* GEOHASH key [member ...] */
void geohash_command(Call& call) {
  bool wrong_type = false;
  const types::ZSet* z = lookup_or_reply<types::ZSet>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) {
    geo::Point p;
    if (member_point(z, call.argv[i], &p)) {
      call.reply.bulk(geo::standard_string(p));
    } else {
      call.reply.null();
    }
  }
}

/* GEODIST key member1 member2 [M|KM|FT|MI] */
void geodist_command(Call& call) {
  double unit = 1;
  if (call.argv.size() == 5) {
    unit = unit_or_reply(call, call.argv[4]);
    if (unit == 0) return;
  } else if (call.argv.size() > 5) {
    return call.error(err::kSyntax);
  }
  bool wrong_type = false;
  const types::ZSet* z = lookup_or_reply<types::ZSet>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  geo::Point a, b;
  if (!member_point(z, call.argv[2], &a) || !member_point(z, call.argv[3], &b)) return call.reply.null();
  reply_distance(call, geo::distance(a.lon, a.lat, b.lon, b.lat) / unit);
}

}  // namespace

void register_geo_commands(CommandTable& t) {
  t.add({
    {.name = "geoadd", .arity = -5, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @geo @slow",
     .group = "geo", .since = "3.2.0", .complexity = "O(log(N)) for each point added, N the size of the sorted set",
     .summary = "Adds points (longitude, latitude, member) to a geospatial index kept in a sorted set",
     .key_flags = "RW update",
     .handler = geoadd_command},
    {.name = "geopos", .arity = -2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @geo @slow",
     .group = "geo", .since = "3.2.0", .complexity = "O(N) where N is the number of members asked about",
     .summary = "Returns the longitude and latitude of members of a geospatial index",
     .key_flags = "RO access",
     .handler = geopos_command},
    {.name = "geohash", .arity = -2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @geo @slow",
     .group = "geo", .since = "3.2.0", .complexity = "O(N) where N is the number of members asked about",
     .summary = "Returns the standard geohash strings of members of a geospatial index",
     .key_flags = "RO access",
     .handler = geohash_command},
    {.name = "geodist", .arity = -4, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @geo @slow",
     .group = "geo", .since = "3.2.0", .complexity = "O(1)",
     .summary = "Returns the distance between two members of a geospatial index",
     .key_flags = "RO access",
     .handler = geodist_command},
  });
  add_geo_search_commands(t);
}

}  // namespace lawnkv
