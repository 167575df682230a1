#include "types/geohash.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

namespace lawnkv::types::geo {

namespace {

// Redis's degree/radian factor, folded at compile time as Redis's macro is.
constexpr double kDegToRad = M_PI / 180.0;
// Half the circumference along the equator in Web-Mercator metres: the
// radius that fits step 1.
constexpr double kMercatorMax = 20037726.37;

double rad(double deg) { return deg * kDegToRad; }
double deg(double r) { return r / kDegToRad; }

// Spreads the 32 bits of v to the even bit positions of the result.
uint64_t spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// The inverse of spread: the even bits of v packed into 32 bits.
uint32_t squeeze(uint64_t v) {
  uint64_t x = v & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// lat in the even bits, lon in the odd ones.
uint64_t interleave(uint32_t lat, uint32_t lon) { return spread(lat) | (spread(lon) << 1); }

// Moves a hash one cell east (d > 0) or west along the odd (longitude)
// bits, or north / south along the even (latitude) bits, wrapping around
// within the step's bits: add or subtract one in the bits of one parity,
// carrying through the bits of the other by filling them with ones.
void move(Hash* h, int d, bool lon) {
  if (d == 0) return;
  const uint64_t mine_mask = lon ? 0xaaaaaaaaaaaaaaaaULL : 0x5555555555555555ULL;
  const uint64_t other_mask = ~mine_mask;
  uint64_t mine = h->bits & mine_mask;
  const uint64_t other = h->bits & other_mask;
  const int shift = 64 - h->step * 2;
  const uint64_t fill = other_mask >> shift;  // the other parity's bits within the step
  if (d > 0) {
    mine = mine + (fill + 1);
  } else {
    mine = (mine | fill) - (fill + 1);
  }
  mine &= mine_mask >> shift;
  h->bits = mine | other;
}

// The bounding box of a shape: min lon, min lat, max lon, max lat, as
// Redis's geohashBoundingBox (the longitude span taken at the latitude
// edge nearer the pole).
struct Bounds {
  double min_lon, min_lat, max_lon, max_lat;
};
Bounds bounding_box(const Shape& s) {
  const double lon = s.centre.lon, lat = s.centre.lat;
  const double height = s.conversion * (s.box ? s.height / 2 : s.radius);
  const double width = s.conversion * (s.box ? s.width / 2 : s.radius);
  const double lat_delta = deg(height / kEarthRadius);
  const double lon_delta_top = deg(width / kEarthRadius / std::cos(rad(lat + lat_delta)));
  const double lon_delta_bottom = deg(width / kEarthRadius / std::cos(rad(lat - lat_delta)));
  const bool south = lat < 0;
  return {south ? lon - lon_delta_bottom : lon - lon_delta_top, lat - lat_delta,
          south ? lon + lon_delta_bottom : lon + lon_delta_top, lat + lat_delta};
}

constexpr Range kWgsLon{kLonMin, kLonMax};
constexpr Range kWgsLat{kLatMin, kLatMax};

// x86-64's conversion of a double to uint64_t (what gcc emits for Redis's
// cast of a score): below 2^63 a signed truncation, 0x8000000000000000 when
// that overflows (and for NaN); from 2^63 the truncation of d - 2^63 with
// the top bit flipped, 0 past 2^64.
uint64_t score_bits(double d) {
  if (d >= 0x1p63) return d < 0x1p64 ? static_cast<uint64_t>(static_cast<int64_t>(d - 0x1p63)) ^ (1ULL << 63) : 0;
  if (d > -0x1p63) return static_cast<uint64_t>(static_cast<int64_t>(d));
  return 1ULL << 63;
}

}  // namespace

bool encode(Range lon_range, Range lat_range, double lon, double lat, int step, Hash* out) {
  if (step > 32 || step == 0) return false;
  if ((lat_range.min == 0 && lat_range.max == 0) || (lon_range.min == 0 && lon_range.max == 0)) return false;
  if (lon > kLonMax || lon < kLonMin || lat > kLatMax || lat < kLatMin) return false;
  out->bits = 0;
  out->step = static_cast<uint8_t>(step);
  if (lat < lat_range.min || lat > lat_range.max || lon < lon_range.min || lon > lon_range.max) return false;
  double lat_offset = (lat - lat_range.min) / (lat_range.max - lat_range.min);
  double lon_offset = (lon - lon_range.min) / (lon_range.max - lon_range.min);
  lat_offset *= static_cast<double>(1ULL << step);
  lon_offset *= static_cast<double>(1ULL << step);
  out->bits = interleave(static_cast<uint32_t>(lat_offset), static_cast<uint32_t>(lon_offset));
  return true;
}

bool encode_wgs84(double lon, double lat, int step, Hash* out) { return encode(kWgsLon, kWgsLat, lon, lat, step, out); }

Area decode(Range lon_range, Range lat_range, Hash hash) {
  Area a;
  a.hash = hash;
  const uint32_t ilat = squeeze(hash.bits);
  const uint32_t ilon = squeeze(hash.bits >> 1);
  const double cells = static_cast<double>(1ULL << hash.step);
  const double lat_scale = lat_range.max - lat_range.min;
  const double lon_scale = lon_range.max - lon_range.min;
  // ilat + 1 in 32 bits, as Redis adds one to a uint32_t.
  a.lat.min = lat_range.min + (ilat * 1.0 / cells) * lat_scale;
  a.lat.max = lat_range.min + (static_cast<uint32_t>(ilat + 1) * 1.0 / cells) * lat_scale;
  a.lon.min = lon_range.min + (ilon * 1.0 / cells) * lon_scale;
  a.lon.max = lon_range.min + (static_cast<uint32_t>(ilon + 1) * 1.0 / cells) * lon_scale;
  return a;
}

uint64_t align52(Hash hash) { return hash.bits << (52 - hash.step * 2); }

Point decode_score(double score) {
  const Area a = decode(kWgsLon, kWgsLat, Hash{score_bits(score), kStepMax});
  Point p{(a.lon.min + a.lon.max) / 2, (a.lat.min + a.lat.max) / 2};
  if (p.lon > kLonMax) p.lon = kLonMax;
  if (p.lon < kLonMin) p.lon = kLonMin;
  if (p.lat > kLatMax) p.lat = kLatMax;
  if (p.lat < kLatMin) p.lat = kLatMin;
  return p;
}

std::string standard_string(Point p) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  Hash h;
  encode({-180, 180}, {-90, 90}, p.lon, p.lat, kStepMax, &h);
  std::string s(11, '0');
  for (int i = 0; i < 10; ++i) s[static_cast<size_t>(i)] = kAlphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
  return s;
}

Neighbours neighbours(Hash hash) {
  Neighbours n{hash, hash, hash, hash, hash, hash, hash, hash};
  move(&n.east, 1, true);
  move(&n.west, -1, true);
  move(&n.south, -1, false);
  move(&n.north, 1, false);
  move(&n.north_west, -1, true);
  move(&n.north_west, 1, false);
  move(&n.north_east, 1, true);
  move(&n.north_east, 1, false);
  move(&n.south_east, 1, true);
  move(&n.south_east, -1, false);
  move(&n.south_west, -1, true);
  move(&n.south_west, -1, false);
  return n;
}

int estimate_steps(double radius_m, double lat) {
  if (radius_m == 0) return kStepMax;
  int step = 1;
  while (radius_m < kMercatorMax) {
    radius_m *= 2;
    ++step;
  }
  step -= 2;  // so that the radius fits in most cases
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  if (step < 1) step = 1;
  if (step > kStepMax) step = kStepMax;
  return step;
}

SearchCells search_cells(const Shape& shape) {
  const Bounds b = bounding_box(shape);
  // A box's radius is the distance from its centre to a corner.
  double radius_m = shape.box ? std::sqrt((shape.width / 2) * (shape.width / 2) + (shape.height / 2) * (shape.height / 2))
                              : shape.radius;
  radius_m *= shape.conversion;
  int steps = estimate_steps(radius_m, shape.centre.lat);

  Hash hash;
  encode(kWgsLon, kWgsLat, shape.centre.lon, shape.centre.lat, steps, &hash);
  Neighbours n = neighbours(hash);
  Area area = decode(kWgsLon, kWgsLat, hash);

  // A centre near the edge of its cell may leave part of the area beyond
  // the neighbours: one step coarser then.
  const bool too_fine = decode(kWgsLon, kWgsLat, n.north).lat.max < b.max_lat ||
                        decode(kWgsLon, kWgsLat, n.south).lat.min > b.min_lat ||
                        decode(kWgsLon, kWgsLat, n.east).lon.max < b.max_lon ||
                        decode(kWgsLon, kWgsLat, n.west).lon.min > b.min_lon;
  if (steps > 1 && too_fine) {
    --steps;
    encode(kWgsLon, kWgsLat, shape.centre.lon, shape.centre.lat, steps, &hash);
    n = neighbours(hash);
    area = decode(kWgsLon, kWgsLat, hash);
  }

  // Neighbours on a side the area does not reach are left out.
  if (steps >= 2) {
    if (area.lat.min < b.min_lat) n.south = n.south_west = n.south_east = Hash{};
    if (area.lat.max > b.max_lat) n.north = n.north_east = n.north_west = Hash{};
    if (area.lon.min < b.min_lon) n.west = n.south_west = n.north_west = Hash{};
    if (area.lon.max > b.max_lon) n.east = n.south_east = n.north_east = Hash{};
  }
  return {{hash, n.north, n.south, n.east, n.west, n.north_east, n.north_west, n.south_east, n.south_west}, area};
}

double lat_distance(double lat1, double lat2) { return kEarthRadius * std::fabs(rad(lat2) - rad(lat1)); }

namespace {

// Redis's haversine with cos(lat1) given (cos1 = cos(rad(lat1)), which is
// what Redis computes in place): the same operations in the same order.
double distance_cos(double lon1, double lat1, double cos1, double lon2, double lat2) {
  const double lon1r = rad(lon1), lon2r = rad(lon2);
  const double v = std::sin((lon2r - lon1r) / 2);
  // Same longitude: the distance along the meridian, without the trigonometry.
  if (v == 0.0) return lat_distance(lat1, lat2);
  const double lat1r = rad(lat1), lat2r = rad(lat2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + cos1 * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadius * std::asin(std::sqrt(a));
}

// sin(x)² from below for 0 <= x <= 1.
double sin2_below(double x) {
  const double s = x * (1 - x * x / 6);
  return s * s;
}

// How far a lower bound must exceed its threshold: rounding is about 1e-16.
constexpr double kMargin = 1e-9;

}  // namespace

double distance(double lon1, double lat1, double lon2, double lat2) {
  return distance_cos(lon1, lat1, std::cos(rad(lat1)), lon2, lat2);
}

Within::Within(const Shape& shape) : shape_(shape) {
  radius_m_ = shape.radius * shape.conversion;
  width_m_ = shape.width * shape.conversion;
  height_m_ = shape.height * shape.conversion;
  // The great-circle distance is never below the distance between the
  // latitudes; with a margin for rounding, a point whose latitude alone is
  // farther than the radius is out without the trigonometry.
  lat_reject_m_ = radius_m_ * (1 + kMargin) + 1e-6;
  lon_r_ = rad(shape.centre.lon);
  lat_r_ = rad(shape.centre.lat);
  cos_lat_ = std::cos(lat_r_);
  // The half-angle the area spans along a great circle (circle) or a
  // parallel (box), and how far in latitude a point may lie.
  const double half = (shape.box ? width_m_ / 2 : radius_m_) / (2 * kEarthRadius);
  const double lat_span = (shape.box ? height_m_ / 2 : lat_reject_m_) / kEarthRadius;
  bound_ = half < 0.5;
  if (!bound_) return;
  const double far = std::fabs(lat_r_) + lat_span * (1 + kMargin) + 1e-12;
  cos_far_ = far >= M_PI / 2 ? 0 : std::max(0.0, std::cos(far) - 1e-12);
  const double s = std::sin(half);
  a_reject_ = s * s * (1 + kMargin) + 1e-30;
}

bool Within::operator()(Point p, double* dist) const {
  const double clon = shape_.centre.lon, clat = shape_.centre.lat;
  if (!shape_.box) {
    if (lat_distance(clat, p.lat) > lat_reject_m_) return false;
    if (bound_) {
      const double h = std::fabs(rad(p.lat) - lat_r_) / 2, hl = std::fabs(rad(p.lon) - lon_r_) / 2;
      if (h <= 1 && hl <= 1 && sin2_below(h) + cos_lat_ * cos_far_ * sin2_below(hl) > a_reject_) return false;
    }
    *dist = distance_cos(clon, clat, cos_lat_, p.lon, p.lat);
    return *dist <= radius_m_;
  }
  // Latitude first, the cheaper test; the argument order is Redis's.
  if (lat_distance(p.lat, clat) > height_m_ / 2) return false;
  if (bound_) {
    // Along the point's parallel, a = cos(lat)² sin²(dlon/2).
    const double hl = std::fabs(rad(p.lon) - lon_r_) / 2;
    if (hl <= 1 && cos_far_ * cos_far_ * sin2_below(hl) > a_reject_) return false;
  }
  if (distance(p.lon, p.lat, clon, p.lat) > width_m_ / 2) return false;
  *dist = distance_cos(clon, clat, cos_lat_, p.lon, p.lat);
  return true;
}

size_t format_distance(double d, char* buf) {
  long long scaled = std::llrint(d * 10000.0);
  size_t n = 0;
  unsigned long long v;
  if (scaled < 0) {
    buf[n++] = '-';
    v = scaled == LLONG_MIN ? static_cast<unsigned long long>(LLONG_MAX) + 1 : static_cast<unsigned long long>(-scaled);
  } else {
    v = static_cast<unsigned long long>(scaled);
  }
  n += static_cast<size_t>(std::snprintf(buf + n, 32 - n, "%llu.%04llu", v / 10000, v % 10000));
  return n;
}

}  // namespace lawnkv::types::geo
