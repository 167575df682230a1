// The HyperLogLog commands (src/commands/hyperloglog_family.cpp) through the
// dispatcher: what the compat files cannot show. Events, WATCH and the
// records propagated (PFCOUNT's recount is recorded though PFCOUNT is a
// read), the raw encoding, and a HyperLogLog kept inline (short) or on the
// heap (long) edited the same way. Expected events are redis-server
// 7.0.15's for the same commands.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "engine/effects.hpp"

namespace lawnkv {
namespace {

using Events = std::vector<std::string>;

struct RecordingSink : EffectSink {
  std::vector<std::string> lines;
  void append(std::span<const EffectRecord> records) override {
    for (const auto& r : records) {
      std::string line;
      for (size_t i = 0; i < r.argv.size(); ++i) line += (i ? " " : "") + r.argv[i];
      lines.push_back(line);
    }
  }
  std::vector<std::string> take() { return std::exchange(lines, {}); }
};

struct Server : test::CommandServer {
  RecordingSink sink;
  Server() { state.data.effects.attach(&sink); }
  ~Server() { state.data.effects.detach(&sink); }

  bool watch_fired(std::string_view key) {
    auto& watches = state.data.keyspace.watches();
    const bool fired = session.watcher.dirty;
    watches.unwatch_all(session.watcher);
    session.watcher.dirty = false;
    watches.watch(session.watcher, 0, key, false);
    return fired;
  }
};

}  // namespace

TEST_CASE_FIXTURE(Server, "PFADD: `new`, then `pfadd` only when a register changed; recorded then only") {
  watch_fired("h");
  CHECK(run({"pfadd", "h", "a", "b"}) == ":1\r\n");
  CHECK(log.take() == Events{"new h", "pfadd h"});
  CHECK(watch_fired("h"));
  CHECK(sink.take() == std::vector<std::string>{"pfadd h a b"});
  CHECK(run({"pfadd", "h", "a"}) == ":0\r\n");
  CHECK(log.take().empty());
  CHECK_FALSE(watch_fired("h"));
  CHECK(sink.take().empty());
  CHECK(run({"pfadd", "e"}) == ":1\r\n");  // created empty: a change
  CHECK(log.take() == Events{"new e", "pfadd e"});
  CHECK(run({"object", "encoding", "e"}) == "$3\r\nraw\r\n");
}

TEST_CASE_FIXTURE(Server, "PFCOUNT: a recount writes the cache, signals the key and is recorded; a cached count is not") {
  run({"pfadd", "h", "a", "b", "c"});
  log.take();
  sink.take();
  watch_fired("h");
  CHECK(run({"pfcount", "h"}) == ":3\r\n");
  CHECK(watch_fired("h"));
  CHECK(sink.take() == std::vector<std::string>{"pfcount h"});
  CHECK(log.take().empty());
  CHECK(run({"pfcount", "h"}) == ":3\r\n");  // cached now
  CHECK_FALSE(watch_fired("h"));
  CHECK(sink.take().empty());
  // The union touches nothing.
  run({"pfadd", "g", "x"});
  sink.take();
  watch_fired("g");
  CHECK(run({"pfcount", "h", "g"}) == ":4\r\n");
  CHECK_FALSE(watch_fired("g"));
  CHECK(sink.take().empty());
  // An embstr value set by SET turns raw at the first PFCOUNT, as Redis's
  // dbUnshareStringValue leaves it.
  const std::string bytes = run({"get", "g"});
  const std::string value = bytes.substr(bytes.find("\r\n") + 2, bytes.size() - bytes.find("\r\n") - 4);
  run({"set", "copy", value});
  CHECK(run({"object", "encoding", "copy"}) == "$6\r\nembstr\r\n");
  CHECK(run({"pfcount", "copy"}) == ":1\r\n");
  CHECK(run({"object", "encoding", "copy"}) == "$3\r\nraw\r\n");
}

TEST_CASE_FIXTURE(Server, "PFMERGE publishes `pfadd`; PFDEBUG TODENSE is recorded without a signal") {
  run({"pfadd", "a", "x", "y"});
  log.take();
  sink.take();
  CHECK(run({"pfmerge", "m", "a"}) == "+OK\r\n");
  // The destination is read as a source first: a `keymiss`, as in Redis.
  CHECK(log.take() == Events{"keymiss m", "new m", "pfadd m"});
  CHECK(sink.take() == std::vector<std::string>{"pfmerge m a"});
  watch_fired("m");
  CHECK(run({"pfdebug", "todense", "m"}) == ":1\r\n");
  CHECK_FALSE(watch_fired("m"));
  CHECK(sink.take() == std::vector<std::string>{"pfdebug todense m"});
  CHECK(run({"pfdebug", "todense", "m"}) == ":0\r\n");
  CHECK(sink.take().empty());
  CHECK(log.take().empty());
}

TEST_CASE_FIXTURE(Server, "a HyperLogLog growing from inline to the heap and dense keeps its registers and TTL") {
  run({"pfadd", "h", "seed"});
  run({"expire", "h", "1000"});
  std::vector<std::string> args{"pfadd", "h"};
  for (int i = 0; i < 4000; ++i) {
    args.push_back("e:" + std::to_string(i));
    if (args.size() == 52) {
      run(args);
      args.resize(2);
    }
  }
  run(args);
  CHECK(run({"pfdebug", "encoding", "h"}) == "+dense\r\n");
  CHECK(run({"strlen", "h"}) == ":12304\r\n");
  CHECK(run({"ttl", "h"}) == ":1000\r\n");
  // 4001 distinct elements: within 2% (the count is Redis's, see the compat files).
  const std::string card = run({"pfcount", "h"});
  const long n = std::stol(card.substr(1));
  CHECK(n > 3920);
  CHECK(n < 4080);
}

TEST_CASE_FIXTURE(Server, "PFCOUNT is refused in a read-only script, as Redis (may_replicate)") {
  run({"pfadd", "h", "a"});
  const std::string r = run({"eval_ro", "return redis.call('pfcount', KEYS[1])", "1", "h"});
  CHECK(r.rfind("-ERR Write commands are not allowed from read-only scripts", 0) == 0);
}

}  // namespace lawnkv
