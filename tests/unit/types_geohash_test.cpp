// types/geohash.hpp: scores, decoded points, GEOHASH strings and distances
// pinned to what redis-server 7.0.15 answers for the same points (GEOADD
// then ZSCORE / GEOPOS / GEOHASH / GEODIST), the neighbour moves, the step
// estimate and the cells a search looks in.

#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>
#include <string>
#include <utility>

#include "core/numbers.hpp"
#include "types/geohash.hpp"

namespace lawnkv {
namespace {

using namespace types::geo;

uint64_t score_of(double lon, double lat) {
  Hash h;
  REQUIRE(encode_wgs84(lon, lat, kStepMax, &h));
  return align52(h);
}

std::string dist(double d) {
  char buf[32];
  return std::string(buf, format_distance(d, buf));
}

}  // namespace

TEST_CASE("geohash: scores of points as Redis stores them") {
  CHECK(score_of(13.361389, 38.115556) == 3479099956230698ULL);
  CHECK(score_of(15.087269, 37.502669) == 3479447370796909ULL);
  CHECK(score_of(0, 0) == 3377699720527872ULL);
  CHECK(score_of(-180, -85.05112878) == 0);
  // The north-east corner lands one cell past the range in both directions:
  // bits above the 52nd, as Redis stores it.
  CHECK(score_of(180, 85.05112878) == 13510798882111488ULL);
  Hash h;
  CHECK_FALSE(encode_wgs84(180.0000001, 0, kStepMax, &h));
  CHECK_FALSE(encode_wgs84(0, 85.05112879, kStepMax, &h));
  CHECK_FALSE(encode_wgs84(0, -85.05112879, kStepMax, &h));
  CHECK_FALSE(encode_wgs84(0, 0, 0, &h));
}

TEST_CASE("geohash: a score decodes to its cell's centre, printed as GEOPOS prints it") {
  Point p = decode_score(3479099956230698.0);
  CHECK(ld_to_string(p.lon) == "13.36138933897018433");
  CHECK(ld_to_string(p.lat) == "38.11555639549629859");
  p = decode_score(0);
  CHECK(ld_to_string(p.lon) == "-179.99999731779098511");
  CHECK(ld_to_string(p.lat) == "-85.05112751263942528");
  p = decode_score(13510798882111488.0);
  CHECK(ld_to_string(p.lon) == "180");
  CHECK(ld_to_string(p.lat) == "85.0511287799999991");
  p = decode_score(3377699720527872.0);
  CHECK(ld_to_string(p.lon) == "0.00000268220901489");
  CHECK(ld_to_string(p.lat) == "0.00000126736058093");
  // Scores no GEOADD writes decode as Redis's cast to uint64_t makes them:
  // -1 is all ones (clamped to the north-east), 1e20, inf and 0.5 are 0,
  // 2^52 is one latitude cell past the top.
  p = decode_score(-1);
  CHECK(ld_to_string(p.lon) == "180");
  CHECK(ld_to_string(p.lat) == "85.0511287799999991");
  for (double s : {1e20, double(INFINITY), 0.5}) {
    CAPTURE(s);
    p = decode_score(s);
    CHECK(ld_to_string(p.lon) == "-179.99999731779098511");
    CHECK(ld_to_string(p.lat) == "-85.05112751263942528");
  }
  p = decode_score(4503599627370496.0);
  CHECK(ld_to_string(p.lon) == "-179.99999731779098511");
  CHECK(ld_to_string(p.lat) == "85.0511287799999991");
}

TEST_CASE("geohash: GEOHASH strings on the standard latitude range") {
  CHECK(standard_string(decode_score(3479099956230698.0)) == "sqc8b49rny0");
  CHECK(standard_string(decode_score(3479447370796909.0)) == "sqdtr74hyu0");
  CHECK(standard_string(decode_score(13510798882111488.0)) == "bp05b5048p0");
  CHECK(standard_string(decode_score(0)) == "00bh0hbj200");
  CHECK(standard_string(decode_score(3377699720527872.0)) == "s0000000000");
}

TEST_CASE("geohash: haversine distances and their four decimals") {
  const Point palermo = decode_score(3479099956230698.0), catania = decode_score(3479447370796909.0);
  const double d = distance(palermo.lon, palermo.lat, catania.lon, catania.lat);
  CHECK(dist(d) == "166274.1516");
  CHECK(dist(d / 1000) == "166.2742");
  const Point ne = decode_score(13510798882111488.0), sw = decode_score(0);
  CHECK(dist(distance(ne.lon, ne.lat, sw.lon, sw.lat) / 1609.34) == "11756.2756");
  // Same longitude: the distance along the meridian.
  CHECK(distance(10, 10, 10, 11) == lat_distance(10, 11));
  CHECK(dist(0) == "0.0000");
  CHECK(dist(0.00004) == "0.0000");
  CHECK(dist(0.00005) == "0.0000");  // llrint rounds half to even
  CHECK(dist(0.00016) == "0.0002");
  CHECK(dist(12.5) == "12.5000");
  CHECK(dist(-1.5) == "-1.5000");
}

TEST_CASE("geohash: neighbours step one cell and wrap around the step's bits") {
  Hash h;
  REQUIRE(encode_wgs84(0, 0, 2, &h));  // lat cell 2 of 4, lon cell 2 of 4
  const Neighbours n = neighbours(h);
  auto cells = [](Hash x) {
    const Area a = decode({-180, 180}, {kLatMin, kLatMax}, x);
    return std::pair{a.lon.min, a.lat.min};
  };
  CHECK(cells(n.east) == std::pair{90.0, 0.0});
  CHECK(cells(n.west) == std::pair{-90.0, 0.0});
  CHECK(cells(n.north).second == doctest::Approx(kLatMax / 2));
  CHECK(cells(n.south).second == doctest::Approx(kLatMin / 2));
  CHECK(cells(n.north_east).first == 90.0);
  CHECK(cells(n.south_west).first == -90.0);
  // From the easternmost cell, east wraps to the westernmost.
  REQUIRE(encode_wgs84(179, 0, 2, &h));
  CHECK(cells(neighbours(h).east).first == -180.0);
  REQUIRE(encode_wgs84(-179, 0, 2, &h));
  CHECK(cells(neighbours(h).west).first == 90.0);
}

TEST_CASE("geohash: the step for a radius") {
  CHECK(estimate_steps(0, 0) == 26);
  CHECK(estimate_steps(1, 0) == 24);
  CHECK(estimate_steps(1000, 0) == 14);
  CHECK(estimate_steps(1000, 70) == 13);
  CHECK(estimate_steps(1000, -81) == 12);
  CHECK(estimate_steps(5000000, 0) == 2);
  CHECK(estimate_steps(1e7, 0) == 1);
  CHECK(estimate_steps(1e12, 0) == 1);
}

TEST_CASE("geohash: a small search looks in the centre cell and the neighbours it reaches") {
  Shape s;
  s.centre = {13.361389, 38.115556};
  s.radius = 10;
  s.conversion = 1000;
  const SearchCells c = search_cells(s);
  CHECK(c.cells[0].step == 10);  // 10 km: step 11, one coarser for the edge
  Hash centre;
  REQUIRE(encode_wgs84(s.centre.lon, s.centre.lat, c.cells[0].step, &centre));
  CHECK(c.cells[0] == centre);
  int used = 0;
  for (const Hash& h : c.cells) used += h.zero() ? 0 : 1;
  CHECK(used >= 1);
  CHECK(used <= 9);
  // Every cell used holds the centre or borders the centre's cell.
  const Area a = c.centre_area;
  CHECK(a.lon.min <= s.centre.lon);
  CHECK(a.lon.max >= s.centre.lon);
  CHECK(a.lat.min <= s.centre.lat);
  CHECK(a.lat.max >= s.centre.lat);
}

TEST_CASE("geohash: Within keeps exactly the points within the radius or the box") {
  Shape s;
  s.centre = {15, 37};
  s.radius = 100;
  s.conversion = 1000;
  const Within in(s);
  double d = -1;
  CHECK(in({15, 37}, &d));
  CHECK(d == 0);
  // Along the meridian: 1 degree is about 111.2 km.
  CHECK(in({15, 37.8}, &d));
  CHECK_FALSE(in({15, 37.95}, &d));
  CHECK_FALSE(in({15, 90}, &d));  // rejected by latitude alone
  // The edge: a point exactly at the radius is in.
  Shape e = s;
  e.radius = distance(15, 37, 15.5, 37.5) / 1000;
  CHECK(Within(e)({15.5, 37.5}, &d));
  e.radius = std::nextafter(e.radius, 0.0);
  CHECK_FALSE(Within(e)({15.5, 37.5}, &d));

  Shape b;
  b.centre = {15, 37};
  b.box = true;
  b.width = 200;
  b.height = 100;
  b.conversion = 1000;
  const Within box(b);
  CHECK(box({15.9, 37}, &d));    // about 80 km east
  CHECK_FALSE(box({15, 37.5}, &d));  // about 56 km north
  CHECK(box({15, 37.4}, &d));
  CHECK(d == doctest::Approx(distance(15, 37, 15, 37.4)));
}

}  // namespace lawnkv

namespace lawnkv {

// Redis's geoWithinShape, written out with the plain formulas: the
// reference Within's shortcuts must agree with.
bool reference_within(const types::geo::Shape& s, types::geo::Point p, double* dist) {
  using namespace types::geo;
  if (!s.box) {
    *dist = distance(s.centre.lon, s.centre.lat, p.lon, p.lat);
    return *dist <= s.radius * s.conversion;
  }
  if (lat_distance(p.lat, s.centre.lat) > s.height * s.conversion / 2) return false;
  if (distance(p.lon, p.lat, s.centre.lon, p.lat) > s.width * s.conversion / 2) return false;
  *dist = distance(s.centre.lon, s.centre.lat, p.lon, p.lat);
  return true;
}

TEST_CASE("geohash: Within's shortcuts agree with the plain test, on the edge too") {
  using namespace types::geo;
  std::mt19937_64 rng(24);
  std::uniform_real_distribution<double> lon(-180, 180), lat(kLatMin, kLatMax), unit(0, 1);
  size_t inside = 0, edges = 0;
  for (int shape_no = 0; shape_no < 3000; ++shape_no) {
    Shape s;
    s.centre = {lon(rng), lat(rng)};
    if (shape_no % 3 == 0) s.centre.lat = (unit(rng) < 0.5 ? -1 : 1) * (84 + unit(rng) * 1.05);
    s.box = shape_no % 2 == 1;
    s.conversion = 1000;
    const double size = std::pow(10, unit(rng) * 8 - 3);  // 1 m to 100,000 km
    s.radius = size;
    s.width = size * (0.5 + unit(rng));
    s.height = size * (0.5 + unit(rng));
    // Points around the centre at up to twice the size, some far away.
    std::vector<Point> pts;
    for (int i = 0; i < 40; ++i) {
      const double k = 2 * size / 111.0 * unit(rng);
      Point p{s.centre.lon + (unit(rng) - 0.5) * 2 * k, s.centre.lat + (unit(rng) - 0.5) * 2 * k};
      if (i % 10 == 0) p = {lon(rng), lat(rng)};
      p.lon = std::clamp(p.lon, kLonMin, kLonMax);
      p.lat = std::clamp(p.lat, kLatMin, kLatMax);
      pts.push_back(p);
    }
    // A radius or half width exactly at a point's distance: that point is on
    // the edge, where the exact test decides by the last bit.
    if (!s.box) {
      s.radius = distance(s.centre.lon, s.centre.lat, pts[1].lon, pts[1].lat) / s.conversion;
    } else {
      s.width = 2 * distance(pts[1].lon, pts[1].lat, s.centre.lon, pts[1].lat) / s.conversion;
    }
    const Within within(s);
    for (const Point& p : pts) {
      double d1 = -1, d2 = -1;
      const bool want = reference_within(s, p, &d1);
      const bool got = within(p, &d2);
      if (want != got) {
        CAPTURE(s.centre.lon);
        CAPTURE(s.centre.lat);
        CAPTURE(s.box);
        CAPTURE(size);
        CAPTURE(p.lon);
        CAPTURE(p.lat);
        FAIL_CHECK("Within disagrees");
      }
      if (want && got) CHECK(d1 == d2);
      inside += want;
    }
    double d = 0;
    edges += reference_within(s, pts[1], &d);
  }
  // The cases are not vacuous: many points inside, the edge points kept.
  CHECK(inside > 20000);
  CHECK(edges > 2000);
}

}  // namespace lawnkv
