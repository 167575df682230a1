#pragma once
// Geohashes as Redis 7.0's GEO commands use them: a point of the earth as a
// sorted-set score, the boxes around a search area, and the haversine
// distance. Pure arithmetic; the commands are commands/geo_family.cpp and
// commands/geo_search.cpp.
//
// A score is 52 bits: the point's cell at step 26 (2^26 cells in each
// direction) with latitude bits in the even positions and longitude bits in
// the odd ones, latitude counted over -85.05112878..85.05112878 (the
// Web-Mercator limits: no point nearer the poles can be added) and
// longitude over -180..180. Worked example: longitude 13.361389,
// latitude 38.115556 (Palermo) is latitude cell 0.72407... * 2^26 =
// 48591808, longitude cell 0.53711... * 2^26 = 36045175; interleaved,
// 3479099956230698 (< 2^52, exact in a double). Decoding gives the centre
// of the cell, which is why GEOPOS answers 13.36138933897018433,
// 38.11555639549629859.
//
// Every formula here repeats Redis's operations in Redis's order, so that
// scores, decoded coordinates and distances are the same doubles to the
// last bit (replies print 17 digits of coordinates).
//
// A search (GEOSEARCH and GEORADIUS*) looks in at most nine cells: the one
// holding the centre at a step chosen from the radius (estimate_steps),
// and its eight neighbours, each a contiguous range of scores; neighbours
// that cannot reach the search area are left out (zero hashes).

#include <cstddef>
#include <cstdint>
#include <string>

namespace lawnkv::types::geo {

inline constexpr int kStepMax = 26;  // 2 * 26 = 52 bits, exact in a double
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr double kLonMin = -180;
inline constexpr double kLonMax = 180;
// Earth's quadratic mean radius for WGS-84, in metres, as Redis has it.
inline constexpr double kEarthRadius = 6372797.560856;

struct Hash {
  uint64_t bits = 0;
  uint8_t step = 0;
  // bits and step both 0: a neighbour left out of a search.
  bool zero() const { return bits == 0 && step == 0; }
  bool operator==(const Hash&) const = default;
};

struct Range {
  double min = 0, max = 0;
};

// The cell a hash names.
struct Area {
  Hash hash;
  Range lon, lat;
};

// The point's cell at step in the given ranges; false if the point lies
// outside the ranges or outside Redis's limits (kLatMin..., kLonMin...).
bool encode(Range lon_range, Range lat_range, double lon, double lat, int step, Hash* out);
// encode over Redis's ranges (the limits above).
bool encode_wgs84(double lon, double lat, int step, Hash* out);
// The cell of hash in the given ranges.
Area decode(Range lon_range, Range lat_range, Hash hash);
// The 52-bit score of a hash of any step (its bits shifted left).
uint64_t align52(Hash hash);

// The point a sorted-set score stands for: the centre of its step-26 cell,
// clamped to the limits (Redis's decodeGeohash). Any score decodes; one
// that is not an integer in 0..2^52 gives what Redis's conversion to
// uint64_t gives on x86-64.
struct Point {
  double lon = 0, lat = 0;
};
Point decode_score(double score);
// The hash's 11-character base32 string (GEOHASH): the point re-encoded on
// the standard -90..90 latitude range, its last character always '0'.
std::string standard_string(Point p);

struct Neighbours {
  Hash north, south, east, west, north_east, north_west, south_east, south_west;
};
Neighbours neighbours(Hash hash);

// The step whose cells are about the size of a search of radius metres
// around latitude lat (coarser towards the poles).
int estimate_steps(double radius_m, double lat);

// A search area: a circle (radius) or an axis-aligned box (width, height)
// around centre, in units of `conversion` metres.
struct Shape {
  Point centre;
  bool box = false;
  double radius = 0;
  double width = 0, height = 0;
  double conversion = 1;
};

// The cells to look in, in the order Redis walks them: the centre's cell,
// north, south, east, west, north-east, north-west, south-east,
// south-west; zero hashes for those left out.
struct SearchCells {
  Hash cells[9];
  Area centre_area;
};
SearchCells search_cells(const Shape& shape);

// Great-circle distance in metres (haversine), and the distance between
// two latitudes along a meridian.
double distance(double lon1, double lat1, double lon2, double lat2);
double lat_distance(double lat1, double lat2);

// Tests a point against a shape as Redis's geoWithinShape does, with the
// distance from the centre in metres in *dist when inside. A Within built
// once per search keeps what depends on the centre alone (its cosine, the
// thresholds below), so that most points outside cost no trigonometry.
//
// The exact test is Redis's, on the same doubles: the haversine distance
// against the radius (or, for a box, the latitude distance, then the
// distance along the point's parallel). Before it, a point is ruled out by
// a lower bound of the haversine term a = sin²(dlat/2) + cos(lat1)
// cos(lat2) sin²(dlon/2): x - x³/6 <= sin(x) for 0 <= x <= 1, and cos(lat2)
// >= the cosine of the largest latitude a point passing the latitude test
// can have. The bound must exceed sin²(r / 2R) by a relative 1e-9, far
// beyond rounding, so no point the exact test keeps is ever ruled out.
class Within {
 public:
  explicit Within(const Shape& shape);
  bool operator()(Point p, double* dist) const;

 private:
  Shape shape_;
  double radius_m_ = 0, width_m_ = 0, height_m_ = 0;
  double lat_reject_m_ = 0;  // a latitude distance past this rules a point out
  double lon_r_ = 0, lat_r_ = 0, cos_lat_ = 0;  // the centre in radians, cos of its latitude
  bool bound_ = false;        // whether the lower bound applies (areas < about 6,000 km across)
  double cos_far_ = 0;        // a lower bound of cos(latitude) of the points that pass the latitude test
  double a_reject_ = 0;       // a lower bound of a past this rules a point out
};

// Writes d with exactly four decimals, rounded half to even as llrint does
// (Redis's fixedpoint_d2string(.., 4): 0 -> "0.0000", -1.5 -> "-1.5000"),
// into buf (at least 32 bytes); returns the length. Distances in replies.
size_t format_distance(double d, char* buf);

}  // namespace lawnkv::types::geo
