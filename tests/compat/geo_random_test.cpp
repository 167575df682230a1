// A seeded randomized differential run over the GEO commands: random GEOADD
// (NX XX CH, now and then a coordinate out of range), ZREM, GEOPOS,
// GEODIST, GEOHASH, and searches (GEOSEARCH, GEOSEARCHSTORE, GEORADIUS,
// GEORADIUSBYMEMBER and the _RO forms) with random centres, shapes, units
// and options, sent to lawnkv and to redis-server; every reply must be the
// same. The points lie in a square of 0.2 degrees, near the antimeridian
// for one key, so searches meet many cells' edges; coordinates have six
// decimals, so two members share a position (and a distance, whose order
// under COUNT Redis leaves unspecified) only by a chance of about 1e-5 a
// run (results stored by distance go to a key never searched, "out").
// zset-max-listpack-entries is 16, so both encodings are walked.
// COMPAT_SEED=<n> replays a failure, COMPAT_RANDOM_OPS=<n> sets the number
// of commands (default 3000).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include "side_by_side.hpp"

namespace lawnkv::test {

namespace {

class GeoCommands {
 public:
  explicit GeoCommands(uint64_t seed) : rng_(seed) {}

  Step next() {
    switch (below(16)) {
      case 0:
      case 1:
      case 2:
      case 3: return geoadd();
      case 4: return make({"ZREM", key(), member()});
      case 5: return make({"GEOPOS", key(), member(), member()});
      case 6: {
        std::vector<std::string> argv{"GEODIST", key(), member(), member()};
        if (chance(60)) argv.push_back(unit());
        return make(argv);
      }
      case 7: return make({"GEOHASH", key(), member(), member()});
      case 8:
      case 9:
      case 10: return geosearch(false);
      case 11: return geosearch(true);
      case 12:
      case 13: return georadius();
      case 14: return make({"ZRANGE", key(), "0", "-1", "WITHSCORES"});
      default: return make({"OBJECT", "ENCODING", key()});
    }
  }

  std::vector<Step> checks() {
    std::vector<Step> out;
    for (const char* k : kKeys) out.push_back(make({"ZRANGE", k, "0", "-1", "WITHSCORES"}));
    return out;
  }

  static Step make(std::vector<std::string> argv) {
    Step s;
    s.argv = std::move(argv);
    for (const std::string& a : s.argv) s.source += (s.source.empty() ? "" : " ") + a;
    return s;
  }

 private:
  static constexpr const char* kKeys[] = {"g1", "g2", "am", "out"};

  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }
  double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  const char* pick(std::initializer_list<const char*> items) { return items.begin()[below(items.size())]; }
  // "out" only receives distances (STOREDIST): as points they would all
  // decode near one corner, at equal distances from anywhere.
  std::string key() { return kKeys[below(3)]; }
  std::string member() { return "m" + std::to_string(below(60)); }
  std::string unit() { return pick({"m", "km", "ft", "mi", "KM", "yd"}); }
  static std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
  }
  // A point of key k's square: lon 13.4..13.6, lat 38.0..38.2, or for "am"
  // lon 179.9..180 and -180..-179.9 (the same square across the antimeridian).
  std::pair<std::string, std::string> point(const std::string& k, int decimals = 6) {
    double lon = 13.4 + uniform() * 0.2, lat = 38 + uniform() * 0.2;
    if (k == "am") {
      lon = 179.9 + uniform() * 0.2;
      if (lon > 180) lon -= 360;
      lat = uniform() * 0.2 - 0.1;
    }
    if (chance(2)) return {pick({"181", "0", "x", "13.5"}), pick({"86", "0", "nan", "-85.06"})};
    return {fixed(lon, decimals), fixed(lat, decimals)};
  }

  Step geoadd() {
    const std::string k = key();
    std::vector<std::string> argv{"GEOADD", k};
    for (const char* opt : {"NX", "XX", "CH"})
      if (chance(10)) argv.push_back(opt);
    for (uint64_t n = 1 + below(chance(20) ? 20 : 3); n > 0; --n) {
      auto [lon, lat] = point(k);
      argv.insert(argv.end(), {lon, lat, member()});
    }
    return make(argv);
  }

  // The distance of a search: metres to tens of km, in some unit.
  std::pair<std::string, std::string> distance() {
    const std::string u = unit();
    const double metres = chance(5) ? 0 : std::pow(10, 1 + uniform() * 4);
    const double per = u == "km" || u == "KM" ? 1000 : u == "ft" ? 0.3048 : u == "mi" ? 1609.34 : 1;
    return {fixed(metres / per, static_cast<int>(below(4))), u};
  }

  void options(std::vector<std::string>& argv, bool store) {
    if (!store) {
      for (const char* opt : {"WITHDIST", "WITHCOORD", "WITHHASH"})
        if (chance(25)) argv.push_back(opt);
    }
    if (chance(40)) argv.push_back(pick({"ASC", "DESC"}));
    if (chance(40)) {
      argv.insert(argv.end(), {"COUNT", std::to_string(1 + below(chance(10) ? 100 : 8))});
      if (chance(30)) argv.push_back("ANY");
    }
    if (chance(2)) argv.push_back(pick({"ANY", "COUNT", "STORE", "junk"}));
  }

  Step geosearch(bool store) {
    const std::string k = key();
    const bool dist = store && chance(40);
    std::vector<std::string> argv{store ? "GEOSEARCHSTORE" : "GEOSEARCH"};
    if (store) argv.push_back(dist ? "out" : key());
    argv.push_back(k);
    if (chance(30)) {
      argv.insert(argv.end(), {"FROMMEMBER", member()});
    } else {
      auto [lon, lat] = point(k, static_cast<int>(below(5)));
      argv.insert(argv.end(), {"FROMLONLAT", lon, lat});
    }
    auto [d, u] = distance();
    if (chance(40)) {
      argv.insert(argv.end(), {"BYBOX", d, fixed(std::stod(d) * (0.3 + uniform() * 2), 2), u});
    } else {
      argv.insert(argv.end(), {"BYRADIUS", d, u});
    }
    options(argv, store);
    if (dist) argv.push_back("STOREDIST");
    return make(argv);
  }

  Step georadius() {
    const std::string k = key();
    const bool by_member = chance(40), ro = chance(30);
    std::vector<std::string> argv{std::string(by_member ? "GEORADIUSBYMEMBER" : "GEORADIUS") + (ro ? "_RO" : ""), k};
    if (by_member) {
      argv.push_back(member());
    } else {
      auto [lon, lat] = point(k, static_cast<int>(below(5)));
      argv.insert(argv.end(), {lon, lat});
    }
    auto [d, u] = distance();
    argv.insert(argv.end(), {d, u});
    const bool store = !ro && chance(30);
    options(argv, store);
    if (store) {
      if (chance(50)) argv.insert(argv.end(), {"STORE", key()});
      else argv.insert(argv.end(), {"STOREDIST", "out"});
    }
    return make(argv);
  }

  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("compat: randomized GEO run, lawnkv against redis-server") {
  const uint64_t seed = random_run_seed();
  const uint64_t ops = random_run_ops(3000);
  GeoCommands generator(seed);
  std::vector<Step> steps{GeoCommands::make({"CONFIG", "SET", "zset-max-listpack-entries", "16"})};
  for (uint64_t i = 0; i < ops; ++i) steps.push_back(generator.next());
  for (Step& s : generator.checks()) steps.push_back(std::move(s));
  steps.push_back(GeoCommands::make({"CONFIG", "SET", "zset-max-listpack-entries", "128"}));
  run_side_by_side(seed, steps, "GEO");
}

}  // namespace lawnkv::test
