// A seeded randomized differential run over the stream commands: XADD (IDs
// explicit, "<ms>-*" or "<ms>"; NOMKSTREAM; MAXLEN and MINID with = and ~ and
// LIMIT), XTRIM, XDEL, XLEN, XRANGE and XREVRANGE (exclusive bounds, COUNT),
// XREAD without BLOCK, XGROUP (every subcommand), XREADGROUP (">" and
// history, COUNT, NOACK), XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO and
// XSETID on three streams and a string, sent to lawnkv and to redis-server;
// every reply must be the same. stream-node-max-entries is small on both, so
// "~" trims and XINFO's node figures meet many node boundaries.
//
// Nothing depends on wall time: IDs are never "*"; minimum idle times are 0
// or far beyond anything a run lasts (and IDLE values far beyond those), so
// both servers claim the same entries; replies that carry idle times or seen
// and delivery times (XPENDING's extended form, XINFO CONSUMERS, XINFO
// STREAM FULL) are compared by shape only, while the summary XPENDING, XINFO
// GROUPS and the claims' replies pin the pending lists themselves.
// COMPAT_SEED=<n> replays a failure, COMPAT_RANDOM_OPS=<n> sets the number of
// commands (default 4000).

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "side_by_side.hpp"

namespace lawnkv::test {

namespace {

class StreamCommands {
 public:
  explicit StreamCommands(uint64_t seed) : rng_(seed) {}

  Step next() {
    // The IDs in use creep upwards, so XADD keeps finding room above the top.
    if (chance(30)) ++top_;
    switch (below(40)) {
      case 0: case 1: case 2: case 3: case 4: case 5: return xadd();
      case 6: return xtrim();
      case 7: case 8: return make({"XDEL", key(), id(), id()});
      case 9: return make({"XLEN", key()});
      case 10: case 11: return xrange();
      case 12: return xread();
      case 13: case 14: return xgroup();
      case 15: case 16: case 17: case 18: return xreadgroup();
      case 19: case 20: {
        std::vector<std::string> argv{"XACK", key(), group()};
        for (uint64_t n = 1 + below(3); n > 0; --n) argv.push_back(id());
        return make(argv);
      }
      case 21: case 22: return make({"XPENDING", key(), group()});
      case 23: return xpending_extended();
      case 24: case 25: return xclaim();
      case 26: case 27: return xautoclaim();
      case 28: return make({"XINFO", "STREAM", key()});
      case 29: return make({"XINFO", "GROUPS", key()});
      case 30: return make({"XINFO", "CONSUMERS", key(), group()}, Compare::kType);
      case 31: {
        std::vector<std::string> argv{"XINFO", "STREAM", key(), "FULL"};
        if (chance(50)) argv.insert(argv.end(), {"COUNT", std::to_string(below(4))});
        return make(argv, Compare::kType);
      }
      case 32: return xsetid();
      case 33: return make({pick({"TYPE", "EXISTS", "XLEN"}), key()});
      case 34: return make({"OBJECT", "ENCODING", key()});
      case 35:
        if (chance(20)) return make({pick({"RENAME", "COPY"}), key(), key()});
        return make({"EXISTS", key(), key()});
      case 36: return chance(15) ? make({"DEL", key()}) : make({"XLEN", key()});
      default: return xadd();
    }
  }

  std::vector<Step> final_checks() {
    std::vector<Step> out;
    for (const char* k : kKeys) {
      out.push_back(make({"XRANGE", k, "-", "+"}));
      out.push_back(make({"XINFO", "STREAM", k}));
      out.push_back(make({"XINFO", "GROUPS", k}));
      for (const char* g : kGroups) {
        out.push_back(make({"XPENDING", k, g}));
        out.push_back(make({"XPENDING", k, g, "-", "+", "1000"}, Compare::kType));
        for (const char* c : kConsumers) out.push_back(make({"XREADGROUP", "GROUP", g, c, "STREAMS", k, "0"}));
      }
    }
    return out;
  }

  static Step make(std::vector<std::string> argv, Compare compare = Compare::kExact) {
    Step s;
    s.argv = std::move(argv);
    s.compare = compare;
    for (const std::string& a : s.argv) s.source += (s.source.empty() ? "" : " ") + a;
    return s;
  }

 private:
  static constexpr const char* kKeys[] = {"x1", "x2", "x3"};
  static constexpr const char* kGroups[] = {"g1", "g2"};
  static constexpr const char* kConsumers[] = {"c1", "c2", "c3"};

  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }
  const char* pick(std::initializer_list<const char*> items) { return items.begin()[below(items.size())]; }
  // Mostly the streams; now and then the string or a missing key.
  std::string key() {
    if (chance(4)) return pick({"str", "none"});
    return kKeys[below(3)];
  }
  std::string group() { return chance(5) ? "nogroup" : kGroups[below(2)]; }
  std::string consumer() { return kConsumers[below(3)]; }
  std::string count() { return chance(5) ? pick({"0", "-1", "x"}) : std::to_string(1 + below(5)); }

  // An ID near the top of those in use: "<ms>-<seq>", sometimes "<ms>",
  // now and then a special or invalid one.
  std::string id() {
    if (chance(4)) return pick({"0", "0-0", "-", "+", "x", "1-x", "18446744073709551615-18446744073709551615", "-1"});
    const int64_t ms = std::max<int64_t>(0, top_ - static_cast<int64_t>(below(12)));
    if (chance(15)) return std::to_string(ms);
    return std::to_string(ms) + "-" + std::to_string(below(3));
  }
  std::string bound() {
    if (chance(15)) return pick({"-", "+"});
    return (chance(20) ? "(" : "") + id();
  }

  std::vector<std::string> fields() {
    std::vector<std::string> out;
    for (uint64_t n = 1 + below(chance(10) ? 4 : 2); n > 0; --n) {
      out.push_back(pick({"f1", "f2", "f3", "name"}));
      out.push_back(chance(10) ? std::to_string(below(100000)) : pick({"v", "", "1", "hello world", "-12"}));
    }
    if (chance(2)) out.pop_back();  // an odd count: wrong number of arguments
    return out;
  }

  // MAXLEN or MINID, = or ~ or neither, LIMIT now and then.
  std::vector<std::string> trim_args() {
    std::vector<std::string> out;
    const bool maxlen = chance(60);
    out.push_back(maxlen ? pick({"MAXLEN", "maxlen"}) : "MINID");
    const uint64_t how = below(3);
    if (how == 1) out.push_back("=");
    if (how == 2) out.push_back("~");
    out.push_back(maxlen ? (chance(5) ? pick({"-1", "x"}) : std::to_string(below(12))) : id());
    if (chance(15)) out.insert(out.end(), {"LIMIT", pick({"0", "1", "3", "100", "-1"})});
    return out;
  }

  Step xadd() {
    std::vector<std::string> argv{"XADD", chance(95) ? kKeys[below(3)] : key()};
    if (chance(8)) argv.push_back("NOMKSTREAM");
    if (chance(20)) {
      const auto t = trim_args();
      argv.insert(argv.end(), t.begin(), t.end());
    }
    const uint64_t form = below(10);
    if (form < 6) {
      argv.push_back(std::to_string(top_) + "-" + std::to_string(below(4)));
    } else if (form < 8) {
      argv.push_back(std::to_string(top_ - static_cast<int64_t>(below(2))) + "-*");
    } else {
      argv.push_back(id());
    }
    const auto f = fields();
    argv.insert(argv.end(), f.begin(), f.end());
    return make(argv);
  }

  Step xtrim() {
    std::vector<std::string> argv{"XTRIM", key()};
    const auto t = trim_args();
    argv.insert(argv.end(), t.begin(), t.end());
    return make(argv);
  }

  Step xrange() {
    const bool rev = chance(40);
    std::vector<std::string> argv{rev ? "XREVRANGE" : "XRANGE", key(), bound(), bound()};
    if (chance(50)) argv.insert(argv.end(), {"COUNT", count()});
    return make(argv);
  }

  Step xread() {
    std::vector<std::string> argv{"XREAD"};
    if (chance(50)) argv.insert(argv.end(), {"COUNT", count()});
    argv.push_back("STREAMS");
    const uint64_t n = 1 + below(2);
    for (uint64_t i = 0; i < n; ++i) argv.push_back(key());
    for (uint64_t i = 0; i < n; ++i) argv.push_back(chance(15) ? "$" : id());
    return make(argv);
  }

  Step xgroup() {
    switch (below(6)) {
      case 0:
      case 1: {
        std::vector<std::string> argv{"XGROUP", "CREATE", key(), group(), chance(30) ? "$" : id()};
        if (chance(30)) argv.push_back("MKSTREAM");
        if (chance(20)) argv.insert(argv.end(), {"ENTRIESREAD", pick({"0", "1", "3", "-1", "-2"})});
        return make(argv);
      }
      case 2: {
        std::vector<std::string> argv{"XGROUP", "SETID", key(), group(), chance(20) ? "$" : id()};
        if (chance(30)) argv.insert(argv.end(), {"ENTRIESREAD", pick({"0", "2", "5", "-1", "-3"})});
        return make(argv);
      }
      case 3: return make({"XGROUP", "DESTROY", key(), group()});
      case 4: return make({"XGROUP", "CREATECONSUMER", key(), group(), consumer()});
      default: return make({"XGROUP", "DELCONSUMER", key(), group(), consumer()});
    }
  }

  Step xreadgroup() {
    std::vector<std::string> argv{"XREADGROUP", "GROUP", group(), consumer()};
    if (chance(60)) argv.insert(argv.end(), {"COUNT", count()});
    if (chance(15)) argv.push_back("NOACK");
    argv.push_back("STREAMS");
    const uint64_t n = 1 + below(chance(80) ? 1 : 2);
    for (uint64_t i = 0; i < n; ++i) argv.push_back(chance(95) ? kKeys[below(3)] : key());
    for (uint64_t i = 0; i < n; ++i) argv.push_back(chance(70) ? ">" : (chance(50) ? "0" : id()));
    return make(argv);
  }

  // Idle times and their thresholds: 0, or far beyond a run.
  std::string min_idle() { return chance(75) ? "0" : pick({"5000000", "x", "-1"}); }

  Step xpending_extended() {
    std::vector<std::string> argv{"XPENDING", key(), group()};
    if (chance(30)) argv.insert(argv.end(), {"IDLE", min_idle()});
    argv.insert(argv.end(), {bound(), bound(), count()});
    if (chance(40)) argv.push_back(consumer());
    return make(argv, Compare::kType);
  }

  Step xclaim() {
    std::vector<std::string> argv{"XCLAIM", key(), group(), consumer(), min_idle()};
    for (uint64_t n = 1 + below(3); n > 0; --n) argv.push_back(id());
    if (chance(15)) argv.insert(argv.end(), {"IDLE", pick({"0", "10000000", "x"})});
    if (chance(10)) argv.insert(argv.end(), {"TIME", pick({"1000", "0", "-5"})});
    if (chance(20)) argv.insert(argv.end(), {"RETRYCOUNT", pick({"0", "3", "-1", "x"})});
    if (chance(20)) argv.push_back("FORCE");
    if (chance(30)) argv.push_back("JUSTID");
    if (chance(10)) argv.insert(argv.end(), {"LASTID", id()});
    if (chance(2)) argv.push_back("BOGUS");
    return make(argv);
  }

  Step xautoclaim() {
    std::vector<std::string> argv{"XAUTOCLAIM", key(), group(), consumer(), min_idle(), chance(30) ? "0" : bound()};
    if (chance(50)) argv.insert(argv.end(), {"COUNT", chance(5) ? pick({"0", "x", "-2"}) : std::to_string(1 + below(4))});
    if (chance(30)) argv.push_back("JUSTID");
    return make(argv);
  }

  Step xsetid() {
    std::vector<std::string> argv{"XSETID", key(), id()};
    if (chance(30)) argv.insert(argv.end(), {"ENTRIESADDED", pick({"0", "5", "100", "-1"})});
    if (chance(30)) argv.insert(argv.end(), {"MAXDELETEDID", id()});
    return make(argv);
  }

  std::mt19937_64 rng_;
  int64_t top_ = 1;  // the ms part XADD mostly uses
};

}  // namespace

TEST_CASE("compat: randomized stream run, lawnkv against redis-server") {
  const uint64_t seed = random_run_seed();
  const uint64_t ops = random_run_ops(4000);
  StreamCommands generator(seed);
  std::vector<Step> steps{StreamCommands::make({"CONFIG", "SET", "stream-node-max-entries", "4"}),
                          StreamCommands::make({"SET", "str", "v"})};
  for (uint64_t i = 0; i < ops; ++i) steps.push_back(generator.next());
  for (Step& s : generator.final_checks()) steps.push_back(std::move(s));

  run_side_by_side(seed, steps, "stream");
}

}  // namespace lawnkv::test
