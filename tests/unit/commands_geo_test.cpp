// The GEO commands through the dispatcher where redis-server cannot be
// asked the same way (tests/compat/cases/geo*.txt compare the replies byte
// for byte): what they record for the AOF and replicas (GEOADD as the ZADD
// Redis rewrites it to; a STORE search as itself), their keyspace events
// (`zadd`; `georadiusstore`, `geosearchstore`, `del` for an empty result;
// `new` for a created key), and the changes they count.

#include <doctest/doctest.h>

#include <span>
#include <string>
#include <vector>

#include "command_fixture.hpp"

namespace lawnkv::test {
namespace {

struct RecordingSink : EffectSink {
  std::vector<std::string> lines;
  void append(std::span<const EffectRecord> records) override {
    for (const auto& r : records) {
      std::string line;
      for (size_t i = 0; i < r.argv.size(); ++i) line += (i ? " " : "") + r.argv[i];
      lines.push_back(line);
    }
  }
};

}  // namespace

TEST_CASE("geo: GEOADD records the ZADD it ran, scores as integers, and notifies zadd") {
  CommandServer s;
  RecordingSink sink;
  s.state.data.effects.attach(&sink);
  CHECK(s.run({"geoadd", "Sicily", "CH", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}) ==
        ":2\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"new Sicily", "zadd Sicily"});
  // Nothing changed: nothing recorded, nothing notified.
  CHECK(s.run({"geoadd", "Sicily", "NX", "13", "38", "Palermo"}) == ":0\r\n");
  CHECK(s.log.take().empty());
  // An error before ZADD runs records nothing either.
  CHECK(s.run({"geoadd", "Sicily", "13", "91", "x"}).starts_with("-ERR invalid longitude,latitude pair"));
  CHECK(sink.lines == std::vector<std::string>{
                          "zadd Sicily CH 3479099956230698 Palermo 3479447370796909 Catania",
                      });
  s.state.data.effects.detach(&sink);
}

TEST_CASE("geo: a STORE search records itself, counts each stored member and notifies its event") {
  CommandServer s;
  RecordingSink sink;
  s.run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"});
  s.state.data.effects.attach(&sink);
  s.log.take();
  uint64_t dirty = s.state.data.dirty;
  CHECK(s.run({"geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km"}) == ":2\r\n");
  CHECK(s.state.data.dirty - dirty == 2);
  CHECK(s.log.take() == std::vector<std::string>{"new dst", "geosearchstore dst"});
  dirty = s.state.data.dirty;
  CHECK(s.run({"georadius", "Sicily", "15", "37", "200", "km", "storedist", "dst"}) == ":2\r\n");
  CHECK(s.state.data.dirty - dirty == 2);
  CHECK(s.log.take() == std::vector<std::string>{"georadiusstore dst"});
  CHECK(s.run({"georadiusbymember", "Sicily", "Palermo", "1", "km", "store", "dst"}) == ":1\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"georadiusstore dst"});
  // An empty result deletes the destination; a missing source too.
  CHECK(s.run({"georadius", "Sicily", "0", "0", "1", "km", "store", "dst"}) == ":0\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"del dst"});
  CHECK(s.run({"geosearchstore", "dst", "missing", "fromlonlat", "0", "0", "byradius", "1", "km"}) == ":0\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"keymiss missing"});
  // Without STORE, GEORADIUS changes nothing and records nothing.
  dirty = s.state.data.dirty;
  CHECK(s.run({"georadius", "Sicily", "15", "37", "200", "km"}).starts_with("*2\r\n"));
  CHECK(s.state.data.dirty == dirty);
  CHECK(sink.lines == std::vector<std::string>{
                          "geosearchstore dst Sicily fromlonlat 15 37 byradius 200 km",
                          "georadius Sicily 15 37 200 km storedist dst",
                          "georadiusbymember Sicily Palermo 1 km store dst",
                          "georadius Sicily 0 0 1 km store dst",
                      });
  s.state.data.effects.detach(&sink);
}

TEST_CASE("geo: a search keeps up with members it reads while storing into its own source") {
  CommandServer s;
  s.run({"geoadd", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"});
  CHECK(s.run({"geosearchstore", "k", "k", "frommember", "Catania", "byradius", "500", "km", "storedist"}) ==
        ":2\r\n");
  CHECK(s.run({"zrange", "k", "0", "-1", "withscores"}) ==
        "*4\r\n$7\r\nCatania\r\n$1\r\n0\r\n$7\r\nPalermo\r\n$18\r\n166.27415156960032\r\n");
}

}  // namespace lawnkv::test
