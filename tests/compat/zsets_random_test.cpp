// A seeded randomized differential run over the sorted-set commands: random
// ZADD (with options), ZINCRBY, ZREM, the ranges by rank, score and lex, the
// range removals, pops, the STORE commands and the set operations (a plain
// set among the inputs), sent to lawnkv and to redis-server; every reply must
// be the same. zset-max-listpack-entries is 8 on both, so sets convert to
// skiplists (and STORE results back) often. Scores are small halves with
// ties and the odd infinity; lex commands run on a key whose scores are all
// 0, the only case where Redis defines them. COMPAT_SEED=<n> replays a
// failure, COMPAT_RANDOM_OPS=<n> sets the number of commands (default 4000).

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "side_by_side.hpp"

namespace lawnkv::test {

namespace {

class ZsetCommands {
 public:
  explicit ZsetCommands(uint64_t seed) : rng_(seed) {}

  Step next() {
    switch (below(24)) {
      case 0:
      case 1:
      case 2: return zadd();
      case 3: return make({"ZINCRBY", key(), score(), member()});
      case 4: return make({"ZREM", key(), member(), member()});
      case 5: return make({"ZCARD", key()});
      case 6: return make({"ZSCORE", key(), member()});
      case 7: return make({"ZMSCORE", key(), member(), member(), member()});
      case 8: return make({pick({"ZRANK", "ZREVRANK"}), key(), member()});
      case 9: return make({"ZCOUNT", key(), bound(), bound()});
      case 10:
      case 11: return zrange();
      case 12: return with_limit({pick({"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}), key(), bound(), bound()}, true);
      case 13: return make({"ZREMRANGEBYRANK", key(), index(), index()});
      case 14: return make({"ZREMRANGEBYSCORE", key(), bound(), bound()});
      case 15: {
        std::vector<std::string> argv{pick({"ZPOPMIN", "ZPOPMAX"}), key()};
        if (chance(50)) argv.push_back(std::to_string(below(4)));
        return make(argv);
      }
      case 16: return make({"ZMPOP", "2", key(), key(), pick({"MIN", "MAX"}), "COUNT", std::to_string(1 + below(3))});
      case 17: {
        std::vector<std::string> argv{"ZRANGESTORE", key(), key(), index(), index()};
        return make(argv);
      }
      case 18:
      case 19: return setop();
      case 20: return make({"OBJECT", "ENCODING", key()});
      case 21: return lex();
      case 22: return make({"SADD", "set", member()});
      default: return make({"ZINTERCARD", "2", key(), key(), "LIMIT", std::to_string(below(3))});
    }
  }

  std::vector<Step> final_checks() {
    std::vector<Step> out;
    for (const char* k : kKeys) out.push_back(make({"ZRANGE", k, "0", "-1", "WITHSCORES"}));
    out.push_back(make({"ZRANGE", "lex", "0", "-1"}));
    return out;
  }

  static Step make(std::vector<std::string> argv) {
    Step s;
    s.argv = std::move(argv);
    for (const std::string& a : s.argv) s.source += (s.source.empty() ? "" : " ") + a;
    return s;
  }

 private:
  static constexpr const char* kKeys[] = {"z1", "z2", "z3", "z4", "set"};

  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }
  const char* pick(std::initializer_list<const char*> items) { return items.begin()[below(items.size())]; }
  std::string key() { return kKeys[below(chance(90) ? 4 : 5)]; }
  std::string member() { return "m" + std::to_string(below(24)); }
  std::string score() {
    if (chance(3)) return pick({"inf", "-inf", "+inf", "nan", "x", "0.1"});
    return std::to_string(static_cast<int>(below(21)) - 10) + (chance(30) ? ".5" : "");
  }
  std::string bound() {
    if (chance(10)) return pick({"-inf", "+inf", "(-inf", "x", "(", ""});
    return std::string(chance(30) ? "(" : "") + std::to_string(static_cast<int>(below(21)) - 10) +
           (chance(20) ? ".5" : "");
  }
  std::string index() { return std::to_string(static_cast<int>(below(30)) - 15); }

  Step with_limit(std::vector<std::string> argv, bool scores) {
    if (scores && chance(40)) argv.push_back("WITHSCORES");
    if (chance(40)) {
      argv.insert(argv.end(), {"LIMIT", std::to_string(static_cast<int>(below(6)) - 1),
                               std::to_string(static_cast<int>(below(6)) - 1)});
    }
    return make(argv);
  }

  Step zadd() {
    std::vector<std::string> argv{"ZADD", key()};
    for (const char* opt : {"NX", "XX", "GT", "LT", "CH", "INCR"})
      if (chance(12)) argv.push_back(opt);
    for (uint64_t n = 1 + below(chance(20) ? 12 : 3); n > 0; --n) {
      argv.push_back(score());
      argv.push_back(member());
    }
    return make(argv);
  }

  Step zrange() {
    const uint64_t kind = below(3);
    std::vector<std::string> argv{"ZRANGE", key()};
    if (kind == 0) {
      argv.insert(argv.end(), {index(), index()});
    } else {
      argv.insert(argv.end(), {bound(), bound(), "BYSCORE"});
    }
    if (chance(40)) argv.push_back("REV");
    if (kind == 0) {
      if (chance(40)) argv.push_back("WITHSCORES");
      return make(argv);
    }
    return with_limit(argv, true);
  }

  std::string lex_bound() {
    if (chance(15)) return pick({"-", "+", "x", "[", "("});
    return std::string(chance(50) ? "[" : "(") + static_cast<char>('a' + below(8)) + (chance(30) ? "a" : "");
  }

  Step lex() {
    switch (below(5)) {
      case 0:
      case 1: return make({"ZADD", "lex", "0", std::string(1, static_cast<char>('a' + below(8))) + (chance(30) ? "a" : "")});
      case 2: return make({"ZLEXCOUNT", "lex", lex_bound(), lex_bound()});
      case 3: return make({"ZREMRANGEBYLEX", "lex", lex_bound(), lex_bound()});
      default:
        return with_limit({pick({"ZRANGEBYLEX", "ZREVRANGEBYLEX"}), "lex", lex_bound(), lex_bound()}, false);
    }
  }

  Step setop() {
    const bool store = chance(50);
    const std::string op = pick({"ZUNION", "ZINTER", "ZDIFF"});
    const uint64_t n = 1 + below(3);
    std::vector<std::string> argv{store ? op + "STORE" : op};
    if (store) argv.push_back(key());
    argv.push_back(std::to_string(n));
    for (uint64_t i = 0; i < n; ++i) argv.push_back(key());
    if (op != "ZDIFF" && chance(40)) {
      argv.push_back("WEIGHTS");
      for (uint64_t i = 0; i < n; ++i) argv.push_back(pick({"1", "0.5", "-2", "0", "inf", "1.5"}));
    }
    if (op != "ZDIFF" && chance(40)) argv.insert(argv.end(), {"AGGREGATE", pick({"SUM", "MIN", "MAX"})});
    if (!store && chance(60)) argv.push_back("WITHSCORES");
    return make(argv);
  }

  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("compat: randomized sorted-set run, lawnkv against redis-server") {
  const uint64_t seed = random_run_seed();
  const uint64_t ops = random_run_ops(4000);
  ZsetCommands generator(seed);
  std::vector<Step> steps{ZsetCommands::make({"CONFIG", "SET", "zset-max-listpack-entries", "8"})};
  for (uint64_t i = 0; i < ops; ++i) steps.push_back(generator.next());
  for (Step& s : generator.final_checks()) steps.push_back(std::move(s));

  run_side_by_side(seed, steps, "sorted-set");
}

}  // namespace lawnkv::test
