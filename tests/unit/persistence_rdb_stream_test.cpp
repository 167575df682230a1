// RdbStreamLoad (src/persistence/rdb_loader.hpp): an RDB image loaded as its
// bytes arrive, cut at any size, gives what load_rdb gives for the whole
// image, holds only the bytes not yet parsed, and refuses what load_rdb
// refuses (a cut image, a flipped byte, bytes after the end).

#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <string>

#include "command_fixture.hpp"
#include "persistence/keyspace_digest.hpp"
#include "persistence/rdb_loader.hpp"
#include "persistence/rdb_output.hpp"
#include "persistence/rdb_writer.hpp"

namespace lawnkv::persistence {
namespace {

using test::CommandServer;
using test::kT0;

std::string save(const store::Keyspace& ks) {
  std::string out;
  StringSink sink(out);
  RdbOutput o(sink, true, true);
  REQUIRE(write_rdb(ks, o, SaveOptions{true, true, kT0, 0}));
  return out;
}

LoadOptions load_options() {
  LoadOptions o;
  o.values.now_ms = kT0;
  return o;
}

void fill(CommandServer& s) {
  s.run({"SET", "str", "hello"});
  s.run({"SET", "int", "12345"});
  std::mt19937_64 rng(3);
  std::string noise;
  for (int i = 0; i < 300000; ++i) noise.push_back(static_cast<char>(rng()));
  s.run({"SET", "big", noise});  // one record far larger than any cut
  s.run({"SET", "ttl", "v", "PX", "100000"});
  for (int i = 0; i < 300; ++i) s.run({"HSET", "hash", "field" + std::to_string(i), std::to_string(i * 7)});
  for (int i = 0; i < 2000; ++i) s.run({"RPUSH", "list", "e" + std::to_string(i % 37)});
  for (int i = 0; i < 300; ++i) s.run({"ZADD", "zset", std::to_string(i * 0.25), "m" + std::to_string(i)});
  for (int i = 0; i < 3000; ++i) s.run({"SET", "k" + std::to_string(i), "v" + std::to_string(i)});
  s.run({"SELECT", "15"});
  s.run({"SET", "in15", "x", "EX", "1000"});
  s.run({"SELECT", "0"});
}

struct Fed {
  RdbStreamLoad::Step last;
  size_t max_buffered = 0;
};

// Feeds file cut every `cut` bytes, stepping after each piece until the
// bytes run short; then finish(). Each step stops after `keys_per_step`
// keys (0: no limit).
Fed feed(RdbStreamLoad& load, const std::string& file, size_t cut, int keys_per_step = 0, size_t end = std::string::npos) {
  int n = 0;
  const std::function<bool()> enough = [&] { return keys_per_step > 0 && ++n % keys_per_step == 0; };
  Fed fed{RdbStreamLoad::Step::kMore};
  const size_t stop = std::min(end, file.size());
  for (size_t at = 0; at < stop; at += cut) {
    load.feed(std::string_view(file).substr(at, std::min(cut, stop - at)));
    while ((fed.last = load.step(enough)) == RdbStreamLoad::Step::kMore) {
    }
    fed.max_buffered = std::max(fed.max_buffered, load.buffered());
    if (fed.last == RdbStreamLoad::Step::kFailed) return fed;
  }
  load.finish();
  while ((fed.last = load.step(enough)) == RdbStreamLoad::Step::kMore) {
  }
  return fed;
}

}  // namespace

TEST_CASE("rdb stream load: any cut gives the whole image's dataset, holding only what is not parsed") {
  CommandServer a;
  fill(a);
  const std::string file = save(a.state.data.keyspace);
  const std::string want = keyspace_digest(a.state.data.keyspace).hex();
  for (size_t cut : {size_t{1}, size_t{7}, size_t{4096}, size_t{65536}, file.size()}) {
    for (int per_step : {0, 1, 100}) {
      if (cut == 1 && per_step != 0) continue;  // the slowest cut once is enough
      CAPTURE(cut);
      CAPTURE(per_step);
      store::Keyspace ks(16);
      RdbStreamLoad load(ks, load_options());
      const Fed fed = feed(load, file, cut, per_step);
      REQUIRE_MESSAGE(fed.last == RdbStreamLoad::Step::kDone, load.result().error);
      CHECK(load.result().keys_loaded == a.state.data.keyspace.total_keys());
      CHECK(load.loaded_bytes() == file.size());
      CHECK(keyspace_digest(ks).hex() == want);
      // Held: the record being read (the 300 KB string at most, which
      // waits until its bytes doubled) and one piece.
      if (cut < file.size()) CHECK(fed.max_buffered < 2 * 300000 + 2 * cut + 64);
    }
  }
}

TEST_CASE("rdb stream load: a cut image, a flipped byte, bytes after the end are refused") {
  CommandServer a;
  fill(a);
  const std::string file = save(a.state.data.keyspace);
  for (size_t end : {size_t{5}, size_t{100}, file.size() / 2, file.size() - 1}) {
    CAPTURE(end);
    store::Keyspace ks(16);
    RdbStreamLoad load(ks, load_options());
    CHECK(feed(load, file, 4096, 0, end).last == RdbStreamLoad::Step::kFailed);
    CHECK(load.result().error.find("Bad RDB file: ") == 0);
  }
  {
    std::string bad = file;
    bad[file.size() / 3] ^= 0x10;
    store::Keyspace ks(16);
    RdbStreamLoad load(ks, load_options());
    CHECK(feed(load, bad, 4096).last == RdbStreamLoad::Step::kFailed);
  }
  {
    std::string bad = file;
    bad[file.size() - 3] ^= 0x01;  // in the checksum itself
    store::Keyspace ks(16);
    RdbStreamLoad load(ks, load_options());
    CHECK(feed(load, bad, 4096).last == RdbStreamLoad::Step::kFailed);
    CHECK(load.result().error.find("wrong RDB checksum") != std::string::npos);
  }
  {
    store::Keyspace ks(16);
    RdbStreamLoad load(ks, load_options());
    CHECK(feed(load, file + "x", 4096).last == RdbStreamLoad::Step::kFailed);
    CHECK(load.result().error.find("bytes after the end") != std::string::npos);
  }
}

}  // namespace lawnkv::persistence
