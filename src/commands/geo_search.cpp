// The GEO searches: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS,
// GEORADIUSBYMEMBER and the _RO forms, one generic command as Redis's
// georadiusGeneric, with its argument order, error texts and replies.
//
// A search looks in the nine cells types/geohash.hpp's search_cells names,
// in its order; each cell is a range of scores walked in place in the
// sorted set (rank span, then the members in order), and each point in it
// is decoded and tested against the shape (types::geo::Within). Matches
// keep a view of their member (valid until the set changes, which nothing
// does before the reply or the stored copy is made). Without ASC / DESC /
// COUNT the matches come in that walk order, as Redis gives them; with
// them, sorted by distance, equal distances in walk order: as Redis when it
// sorts them all (glibc's qsort is a stable merge sort); when COUNT keeps
// fewer than were found, Redis's partial quicksort leaves the order of
// equal distances unspecified. COUNT n ANY stops the walk after n matches.
//
// A STORE / STOREDIST / GEOSEARCHSTORE result replaces the destination
// (any type, its TTL dropped) with a sorted set of the matches, scored by
// geohash or by distance in the unit asked, notified `georadiusstore` or
// `geosearchstore` (`del` when empty and the destination existed); each
// stored member counts as a change, as Redis counts them.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "commands/geo_ops.hpp"
#include "commands/zsets_ops.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/zset.hpp"

namespace lawnkv {

namespace {

namespace geo = types::geo;
using types::ZSet;

constexpr std::string_view kCannotDecode = "ERR could not decode requested zset member";
constexpr std::string_view kNeedRadius = "ERR need numeric radius";
constexpr std::string_view kNegativeRadius = "ERR radius cannot be negative";
constexpr std::string_view kNeedWidth = "ERR need numeric width";
constexpr std::string_view kNeedHeight = "ERR need numeric height";
constexpr std::string_view kNegativeBox = "ERR height or width cannot be negative";
constexpr std::string_view kCountPositive = "ERR COUNT must be > 0";
constexpr std::string_view kAnyNeedsCount = "ERR the ANY argument requires COUNT argument";

// Which command runs (Redis's RADIUS_* and GEOSEARCH* flags).
enum SearchFlags : unsigned {
  kFromCoords = 1,   // GEORADIUS[_RO] key lon lat radius unit
  kFromMember = 2,   // GEORADIUSBYMEMBER[_RO] key member radius unit
  kNoStore = 4,      // the _RO forms
  kSearch = 8,       // GEOSEARCH's arguments
  kSearchStore = 16, // GEOSEARCHSTORE dst src ...
};

enum class Order { kNone, kAsc, kDesc };

struct Match {
  std::string_view member;
  double score;
  double dist;  // metres while searching, then in the unit asked
  geo::Point p;
  size_t order;  // its place in the walk: ties keep it
};

// A double argument, else msg.
bool double_or_reply(Call& call, std::string_view arg, double* out, std::string_view msg) {
  if (string_to_double(arg, out)) return true;
  call.error(msg);
  return false;
}

// <radius> <unit> into the shape (Redis's extractDistanceOrReply).
bool radius_or_reply(Call& call, size_t at, geo::Shape* shape) {
  double r = 0;
  if (!double_or_reply(call, call.argv[at], &r, kNeedRadius)) return false;
  if (r < 0) {
    call.error(kNegativeRadius);
    return false;
  }
  shape->radius = r;
  shape->conversion = unit_or_reply(call, call.argv[at + 1]);
  return shape->conversion != 0;
}

// <width> <height> <unit> into the shape (Redis's extractBoxOrReply).
bool box_or_reply(Call& call, size_t at, geo::Shape* shape) {
  double w = 0, h = 0;
  if (!double_or_reply(call, call.argv[at], &w, kNeedWidth) ||
      !double_or_reply(call, call.argv[at + 1], &h, kNeedHeight))
    return false;
  if (h < 0 || w < 0) {
    call.error(kNegativeBox);
    return false;
  }
  shape->width = w;
  shape->height = h;
  shape->conversion = unit_or_reply(call, call.argv[at + 2]);
  return shape->conversion != 0;
}

// The centre from a member's score (Redis's longLatFromMember).
bool member_centre_or_reply(Call& call, const ZSet& z, std::string_view member, geo::Shape* shape) {
  const auto score = z.score(member);
  if (!score) {
    call.error(kCannotDecode);
    return false;
  }
  shape->centre = geo::decode_score(*score);
  return true;
}

// Appends the points of z in the search cells that lie in the shape, in
// Redis's walk order; with limit, stops once there are that many.
void collect(const ZSet& z, const geo::SearchCells& cells, const geo::Within& within, size_t limit,
             std::vector<Match>& out) {
  const geo::Hash* last = nullptr;
  for (const geo::Hash& cell : cells.cells) {
    if (cell.zero()) continue;
    // Huge radii make neighbours repeat the cell just walked.
    if (last && *last == cell) continue;
    if (limit && out.size() >= limit) break;
    last = &cell;
    // The cell's scores: [cell << shift, (cell + 1) << shift).
    const double min = static_cast<double>(geo::align52(cell));
    const double max = static_cast<double>(geo::align52(geo::Hash{cell.bits + 1, cell.step}));
    const size_t lo = z.count_below([min](double s, std::string_view) { return s < min; });
    const size_t hi = z.count_below([max](double s, std::string_view) { return s < max; });
    bool full = false;
    z.walk(lo, hi, false, [&](std::string_view member, double score) {
      if (full) return;
      const geo::Point p = geo::decode_score(score);
      double dist = 0;
      if (within(p, &dist)) out.push_back({member, score, dist, p, out.size()});
      full = limit && out.size() >= limit;
    });
  }
}

// Puts the n nearest (ASC) or farthest (DESC) matches first, in order;
// equal distances keep the walk's order (as glibc's merge sort, which
// Redis's qsort is, keeps it when all are sorted).
void sort_matches(std::vector<Match>& m, size_t n, Order order) {
  auto asc = [](const Match& a, const Match& b) { return a.dist < b.dist || (a.dist == b.dist && a.order < b.order); };
  auto desc = [](const Match& a, const Match& b) { return a.dist > b.dist || (a.dist == b.dist && a.order < b.order); };
  const auto mid = m.begin() + static_cast<std::ptrdiff_t>(n);
  if (order == Order::kAsc) std::partial_sort(m.begin(), mid, m.end(), asc);
  else std::partial_sort(m.begin(), mid, m.end(), desc);
}

// The destination of an empty result: deleted, reply 0.
void store_nothing(Call& call, std::string_view dst) {
  if (call.db().remove(dst)) call.modified(dst, pubsub::kGeneric, "del");
  call.reply.integer(0);
}

/* GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH]
 *   [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]
 * GEORADIUSBYMEMBER key member radius M|KM|FT|MI ... (the same options)
 * GEORADIUS_RO, GEORADIUSBYMEMBER_RO: the same without STORE and STOREDIST
 * GEOSEARCH key FROMMEMBER member | FROMLONLAT longitude latitude
 *   BYRADIUS radius M|KM|FT|MI | BYBOX width height M|KM|FT|MI
 *   [ASC|DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
 * GEOSEARCHSTORE destination source ... (GEOSEARCH's) [STOREDIST] */
void search_generic(Call& call, size_t src_at, unsigned flags) {
  bool wrong_type = false;
  const ZSet* z = lookup_or_reply<ZSet>(call, call.argv[src_at], Intent::kRead, &wrong_type);
  if (wrong_type) return;

  geo::Shape shape;
  size_t base = 0;
  std::string_view store_key;
  bool storing = false, store_dist = false;
  if (flags & kFromCoords) {
    base = 6;
    if (!lonlat_or_reply(call, call.argv[2], call.argv[3], &shape.centre)) return;
    if (!radius_or_reply(call, 4, &shape)) return;
  } else if (flags & kFromMember) {
    base = 5;
    // Without the key the reply is known (empty) once the options are
    // read: neither the member nor the radius is looked at.
    if (z) {
      if (!member_centre_or_reply(call, *z, call.argv[2], &shape)) return;
      if (!radius_or_reply(call, 3, &shape)) return;
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      store_key = call.argv[1];
      storing = true;
    }
  }

  bool with_dist = false, with_hash = false, with_coord = false;
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
  bool any = false;
  Order order = Order::kNone;
  long long count = 0;
  const size_t argc = call.argv.size();
  const bool search = flags & kSearch;
  const bool may_store = !(flags & kNoStore) && !search;
  // Each word in Redis's order of tests: a word whose conditions fail
  // falls through to the next test, and to a syntax error at the end.
  for (size_t i = base; i < argc; ++i) {
    const std::string_view arg = call.argv[i];
    const bool one_more = i + 1 < argc, two_more = i + 2 < argc, three_more = i + 3 < argc;
    if (is_option(arg, "withdist")) {
      with_dist = true;
    } else if (is_option(arg, "withhash")) {
      with_hash = true;
    } else if (is_option(arg, "withcoord")) {
      with_coord = true;
    } else if (is_option(arg, "any")) {
      any = true;
    } else if (is_option(arg, "asc")) {
      order = Order::kAsc;
    } else if (is_option(arg, "desc")) {
      order = Order::kDesc;
    } else if (is_option(arg, "count") && one_more) {
      if (!integer_or_reply(call, call.argv[i + 1], &count)) return;
      if (count <= 0) return call.error(kCountPositive);
      ++i;
    } else if (is_option(arg, "store") && one_more && may_store) {
      store_key = call.argv[++i];
      storing = true;
      store_dist = false;
    } else if (is_option(arg, "storedist") && one_more && may_store) {
      store_key = call.argv[++i];
      storing = true;
      store_dist = true;
    } else if (is_option(arg, "storedist") && search && (flags & kSearchStore)) {
      store_dist = true;
    } else if (is_option(arg, "frommember") && one_more && search && !from_lonlat) {
      // Without the key the member is not looked up; the errors of the
      // other arguments still come first.
      if (z && !member_centre_or_reply(call, *z, call.argv[i + 1], &shape)) return;
      from_member = true;
      ++i;
    } else if (is_option(arg, "fromlonlat") && two_more && search && !from_member) {
      if (!lonlat_or_reply(call, call.argv[i + 1], call.argv[i + 2], &shape.centre)) return;
      from_lonlat = true;
      i += 2;
    } else if (is_option(arg, "byradius") && two_more && search && !by_box) {
      if (!radius_or_reply(call, i + 1, &shape)) return;
      shape.box = false;
      by_radius = true;
      i += 2;
    } else if (is_option(arg, "bybox") && three_more && search && !by_radius) {
      if (!box_or_reply(call, i + 1, &shape)) return;
      shape.box = true;
      by_box = true;
      i += 3;
    } else {
      return call.error(err::kSyntax);
    }
  }

  if (storing && (with_dist || with_hash || with_coord)) {
    return call.error(flags & kSearchStore
                          ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
                          : "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  }
  if (search && !(from_member || from_lonlat)) {
    return call.error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + std::string(call.argv[0]));
  }
  if (search && !(by_radius || by_box)) {
    return call.error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + std::string(call.argv[0]));
  }
  if (any && !count) return call.error(kAnyNeedsCount);

  if (!z) {
    if (storing) return store_nothing(call, store_key);
    return call.reply.array(0);
  }
  // COUNT keeps the nearest, so it sorts unless ANY takes the first found.
  if (count && order == Order::kNone && !any) order = Order::kAsc;

  std::vector<Match> found;
  collect(*z, geo::search_cells(shape), geo::Within(shape), any ? static_cast<size_t>(count) : 0, found);
  if (found.empty() && !storing) return call.reply.array(0);

  const size_t n = count == 0 || found.size() < static_cast<size_t>(count) ? found.size() : static_cast<size_t>(count);
  if (order != Order::kNone) sort_matches(found, n, order);
  for (size_t i = 0; i < n; ++i) found[i].dist /= shape.conversion;

  if (!storing) {
    const size_t extras = (with_dist ? 1 : 0) + (with_hash ? 1 : 0) + (with_coord ? 1 : 0);
    call.reply.array(n);
    for (size_t i = 0; i < n; ++i) {
      const Match& m = found[i];
      if (extras) call.reply.array(extras + 1);
      call.reply.bulk(m.member);
      if (with_dist) reply_distance(call, m.dist);
      if (with_hash) call.reply.integer(static_cast<long long>(m.score));
      if (with_coord) {
        call.reply.array(2);
        reply_coordinate(call, m.p.lon);
        reply_coordinate(call, m.p.lat);
      }
    }
    return;
  }

  if (n == 0) return store_nothing(call, store_key);
  // Built whole, then a listpack if it fits (Redis's
  // zsetConvertToListpackIfNeeded).
  const types::ZSetOptions opts = zset_options(call);
  size_t longest = 0;
  for (size_t i = 0; i < n; ++i) longest = std::max(longest, found[i].member.size());
  const bool big = n > opts.max_listpack_entries || longest > opts.max_listpack_value;
  auto result = std::make_unique<ZSet>(big, big ? opts.seed() : 1);
  for (size_t i = 0; i < n; ++i)
    result->add(found[i].member, store_dist ? found[i].dist : found[i].score, types::kZAddNone, opts);
  if (store_zset(call, store_key, std::move(result))) call.notify(pubsub::kNew, "new", store_key);
  call.modified(store_key);
  call.data.dirty += n - 1;  // Redis counts one change a stored member
  call.notify(pubsub::kZset, search ? "geosearchstore" : "georadiusstore", store_key);
  call.reply.integer(static_cast<int64_t>(n));
}

void georadius_command(Call& call) { search_generic(call, 1, kFromCoords); }
void georadiusbymember_command(Call& call) { search_generic(call, 1, kFromMember); }
void georadius_ro_command(Call& call) { search_generic(call, 1, kFromCoords | kNoStore); }
void georadiusbymember_ro_command(Call& call) { search_generic(call, 1, kFromMember | kNoStore); }
void geosearch_command(Call& call) { search_generic(call, 1, kSearch); }
void geosearchstore_command(Call& call) { search_generic(call, 2, kSearch | kSearchStore); }

}  // namespace

void add_geo_search_commands(CommandTable& t) {
  t.add({
    {.name = "georadius", .arity = -6, .flags = kWrite | kDenyOom | kMovableKeys, .keys = {1, 1, 1},
     .keyword = {.word = "STORE|STOREDIST", .startfrom = 6, .lastkey = 0, .limit = 0},
     .acl = "@write @geo @slow",
     .group = "geo", .since = "3.2.0", .complexity = "O(N+log(M)): N points in the cells around the circle, M in the index",
     .summary = "Returns or stores the members of a geospatial index within a radius of a point (deprecated: GEOSEARCH)",
     .key_flags = "RO access;OW update;OW update",
     .handler = georadius_command},
    {.name = "georadiusbymember", .arity = -5, .flags = kWrite | kDenyOom | kMovableKeys, .keys = {1, 1, 1},
     .keyword = {.word = "STORE|STOREDIST", .startfrom = 5, .lastkey = 0, .limit = 0},
     .acl = "@write @geo @slow",
     .group = "geo", .since = "3.2.0", .complexity = "O(N+log(M)): N points in the cells around the circle, M in the index",
     .summary = "Returns or stores the members of a geospatial index within a radius of a member (deprecated: GEOSEARCH)",
     .key_flags = "RO access;OW update;OW update",
     .handler = georadiusbymember_command},
    {.name = "georadius_ro", .arity = -6, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @geo @slow",
     .group = "geo", .since = "3.2.10", .complexity = "O(N+log(M)): N points in the cells around the circle, M in the index",
     .summary = "Returns the members of a geospatial index within a radius of a point (deprecated: GEOSEARCH)",
     .key_flags = "RO access",
     .handler = georadius_ro_command},
    {.name = "georadiusbymember_ro", .arity = -5, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @geo @slow",
     .group = "geo", .since = "3.2.10", .complexity = "O(N+log(M)): N points in the cells around the circle, M in the index",
     .summary = "Returns the members of a geospatial index within a radius of a member (deprecated: GEOSEARCH)",
     .key_flags = "RO access",
     .handler = georadiusbymember_ro_command},
    {.name = "geosearch", .arity = -7, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @geo @slow",
     .group = "geo", .since = "6.2.0", .complexity = "O(N+log(M)): N points in the cells around the area, M in the index",
     .summary = "Returns the members of a geospatial index within a circle or a box around a point or a member",
     .key_flags = "RO access",
     .handler = geosearch_command},
    {.name = "geosearchstore", .arity = -8, .flags = kWrite | kDenyOom, .keys = {1, 2, 1},
     .acl = "@write @geo @slow",
     .group = "geo", .since = "6.2.0", .complexity = "O(N+log(M)): N points in the cells around the area, M in the index",
     .summary = "Stores the members of a geospatial index within a circle or a box around a point or a member",
     .key_flags = "OW update;RO access",
     .handler = geosearchstore_command},
  });
}

}  // namespace lawnkv
