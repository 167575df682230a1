// Stream commands through the dispatcher on a fake clock: the records their
// writes leave (engine/effects.hpp) as Redis propagates them (XADD's
// generated ID and exact trims, XREADGROUP's deliveries and XCLAIM's claims
// as XCLAIM ... TIME RETRYCOUNT FORCE JUSTID LASTID), and a replay of the
// records on an empty server giving the same entries, groups and pending
// lists, random operations included; keyspace events.

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "command_fixture.hpp"

// Failures print the records.
template <>
struct doctest::StringMaker<std::vector<std::string>> {
  static doctest::String convert(const std::vector<std::string>& lines) {
    std::string out = "{";
    for (const auto& l : lines) out += " \"" + l + "\"";
    return (out + " }").c_str();
  }
};

namespace lawnkv::test {
namespace {

struct Sink : EffectSink {
  std::vector<EffectRecord> records;
  void append(std::span<const EffectRecord> rs) override { records.insert(records.end(), rs.begin(), rs.end()); }
  std::vector<std::string> lines() {
    std::vector<std::string> out;
    for (const auto& r : records) {
      std::string line;
      for (const auto& a : r.argv) line += (line.empty() ? "" : " ") + a;
      out.push_back(line);
    }
    records.clear();
    return out;
  }
};

struct Recorded : CommandServer {
  Sink sink;
  Recorded() { state.data.effects.attach(&sink); }
  ~Recorded() { state.data.effects.detach(&sink); }
};

using Lines = std::vector<std::string>;
const std::string kNow = std::to_string(kT0);

}  // namespace

TEST_CASE("streams effects: XADD records the ID it made and the trim it did") {
  Recorded s;
  s.run({"xadd", "s", "5-*", "f", "v"});
  s.run({"xadd", "s", "5-*", "f", "v"});
  s.run({"xadd", "s", "*", "f", "v"});
  s.run({"xadd", "s", "*", "f", "v"});
  s.run({"xadd", "s", "9999999999999-1", "f", "v"});
  s.run({"xadd", "s", "1-1", "f", "v"});  // refused: not recorded
  CHECK(s.sink.lines() == Lines{"xadd s 5-0 f v", "xadd s 5-1 f v", "xadd s " + kNow + "-0 f v",
                                "xadd s " + kNow + "-1 f v", "xadd s 9999999999999-1 f v"});
  s.run({"config", "set", "stream-node-max-entries", "2"});
  s.sink.lines();
  s.run({"xadd", "t", "1", "f", "v"});
  s.run({"xadd", "t", "2", "f", "v"});
  s.run({"xadd", "t", "MAXLEN", "~", "1", "3", "f", "v"});
  s.run({"xtrim", "t", "MINID", "~", "3"});
  s.run({"xtrim", "t", "MAXLEN", "0"});
  CHECK(s.sink.lines() ==
        Lines{"xadd t 1 f v", "xadd t 2 f v", "xadd t MAXLEN = 1 3 f v", "xtrim t MAXLEN 0"});
}

TEST_CASE("streams effects: XREADGROUP and XCLAIM record claims with delivery time and count") {
  Recorded s;
  s.run({"xadd", "s", "1-0", "f", "v"});
  s.run({"xadd", "s", "2-0", "f", "v"});
  s.run({"xgroup", "create", "s", "g", "0"});
  s.sink.lines();
  s.run({"xreadgroup", "group", "g", "alice", "streams", "s", ">"});
  CHECK(s.sink.lines() ==
        Lines{"XCLAIM s g alice 0 1-0 TIME " + kNow + " RETRYCOUNT 1 FORCE JUSTID LASTID 1-0",
              "XCLAIM s g alice 0 2-0 TIME " + kNow + " RETRYCOUNT 1 FORCE JUSTID LASTID 2-0"});
  s.now += 10;
  s.run({"xclaim", "s", "g", "bob", "0", "1-0"});
  CHECK(s.sink.lines() == Lines{"XCLAIM s g bob 0 1-0 TIME " + std::to_string(kT0 + 10) +
                                " RETRYCOUNT 2 FORCE JUSTID LASTID 2-0"});
  s.run({"xreadgroup", "group", "g", "carol", "noack", "streams", "s", ">"});
  CHECK(s.sink.lines().empty());  // nothing new: the group read everything
  s.run({"xadd", "s", "3-0", "f", "v"});
  s.sink.lines();
  s.run({"xreadgroup", "group", "g", "dave", "noack", "streams", "s", ">"});
  CHECK(s.sink.lines() == Lines{"XGROUP CREATECONSUMER s g dave", "XGROUP SETID s g 3-0 ENTRIESREAD 3"});
  s.run({"xack", "s", "g", "1-0"});
  CHECK(s.sink.lines() == Lines{"xack s g 1-0"});
}

TEST_CASE("streams effects: the records, replayed on an empty server, give the same entries and pending lists") {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    CAPTURE(seed);
    Recorded a;
    std::mt19937_64 rng(seed);
    a.run({"xgroup", "create", "s", "g", "$", "MKSTREAM"});
    a.run({"xgroup", "create", "s", "h", "0"});
    const char* consumers[] = {"c1", "c2", "c3"};
    const char* groups[] = {"g", "h"};
    for (int i = 0; i < 300; ++i) {
      a.now += static_cast<int64_t>(rng() % 5);
      const std::string id = std::to_string(1 + rng() % 40) + "-" + std::to_string(rng() % 3);
      const std::string g = groups[rng() % 2];
      const std::string c = consumers[rng() % 3];
      switch (rng() % 9) {
        case 0:
        case 1: a.run({"xadd", "s", "*", "f", std::to_string(i)}); break;
        case 2: a.run({"xreadgroup", "group", g, c, "count", std::to_string(1 + rng() % 3), "streams", "s", ">"}); break;
        case 3: a.run({"xreadgroup", "group", g, c, "noack", "count", "2", "streams", "s", ">"}); break;
        case 4: a.run({"xreadgroup", "group", g, c, "streams", "s", "0"}); break;
        case 5: a.run({"xack", "s", g, id}); break;
        case 6: a.run({"xclaim", "s", g, c, "0", id}); break;
        case 7: a.run({"xdel", "s", id}); break;
        case 8: a.run({"xadd", "s", "MAXLEN", "~", std::to_string(rng() % 30), "*", "f", "v"}); break;
      }
    }
    // The AOF loader's replay: a detached session, the clock at 0, loading.
    CommandServer b;
    b.now = 0;
    b.session.detached = true;
    b.state.facts.loading = true;
    for (const EffectRecord& r : a.sink.records) {
      const std::string reply = b.run(r.argv);
      CAPTURE(r.argv[0]);
      CHECK(reply[0] != '-');
    }
    b.now = a.now;
    b.session.detached = false;
    b.state.facts.loading = false;
    for (std::vector<std::string> cmd : std::vector<std::vector<std::string>>{
             {"xrange", "s", "-", "+"}, {"xpending", "s", "g"}, {"xpending", "s", "h"},
             {"xpending", "s", "g", "-", "+", "1000"}, {"xpending", "s", "h", "-", "+", "1000"},
             {"xlen", "s"}, {"xpending", "s", "g", "-", "+", "1000", "c2"},
             {"xreadgroup", "group", "g", "probe", "streams", "s", ">"},
             {"xreadgroup", "group", "h", "probe", "streams", "s", ">"}}) {
      CAPTURE(cmd[0]);
      CHECK(a.run(cmd) == b.run(cmd));
    }
  }
}

TEST_CASE("streams: keyspace events as Redis 7.0 sends them") {
  CommandServer s;
  s.run({"xadd", "s", "1", "f", "v"});
  s.run({"xadd", "s", "2", "f", "v"});
  s.run({"xadd", "s", "MAXLEN", "1", "3", "f", "v"});
  s.run({"xdel", "s", "3"});
  s.run({"xdel", "s", "3"});
  s.run({"xgroup", "create", "s", "g", "$"});
  s.run({"xgroup", "createconsumer", "s", "g", "c"});
  s.run({"xgroup", "delconsumer", "s", "g", "c"});
  s.run({"xadd", "s", "4", "f", "v"});
  s.run({"xgroup", "setid", "s", "g", "0"});
  s.run({"xreadgroup", "group", "g", "d", "streams", "s", ">"});
  s.run({"xgroup", "destroy", "s", "g"});
  s.run({"xsetid", "s", "5"});
  s.run({"xtrim", "s", "MAXLEN", "0"});
  CHECK(s.log.take() == std::vector<std::string>{"new s", "xadd s", "xadd s", "xadd s", "xtrim s", "xdel s",
                                                 "xgroup-create s", "xgroup-createconsumer s",
                                                 "xgroup-delconsumer s", "xadd s", "xgroup-setid s",
                                                 "xgroup-createconsumer s", "xgroup-destroy s", "xsetid s",
                                                 "xtrim s"});
}

}  // namespace lawnkv::test
