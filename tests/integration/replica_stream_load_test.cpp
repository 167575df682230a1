// repl-diskless-load on a lawnkv replica of a diskless redis-server 7.0.15
// primary: the snapshot is parsed as its bytes arrive from the socket. With
// the load slowed (key-load-delay), keys are loaded while most of the
// snapshot has not arrived yet, and the bytes received but not yet parsed
// stay under Replica::kMaxHeldBytes (plus one read), as the link stops
// reading meanwhile.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;
using test::TempDir;

int64_t number(Client& c, std::string_view section, std::string_view name) {
  return std::atoll(info_field(c.call({"INFO", section}).text, name).value_or("0").c_str());
}

}  // namespace

TEST_CASE("replica: repl-diskless-load parses the snapshot as it arrives, holding only what is not parsed") {
  TempDir primary_dir, dir;
  ServerProcess redis = ServerProcess::redis(
      {"--dir", primary_dir.path.string(), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"});
  Client p(redis.port());
  // 24 values of 1 MB that do not compress: a 24 MB snapshot.
  constexpr int kBlobs = 24;
  std::mt19937_64 rng(5);
  std::string blob(1 << 20, '\0');
  for (int i = 0; i < kBlobs; ++i) {
    for (char& ch : blob) ch = static_cast<char>('a' + rng() % 26);
    REQUIRE(p.call({"SET", "blob" + std::to_string(i), blob}).text == "OK");
  }
  REQUIRE(p.call({"SET", "small", "v"}).text == "OK");

  // 25 ms a key: the load takes about 0.6 s, the transfer alone far less.
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", dir.path.string(), "--repl-diskless-load", "on-empty-db",
                                                "--key-load-delay", "25000", "--replicaof", "127.0.0.1",
                                                std::to_string(redis.port())});
  Client r(lawnkv.port());
  constexpr int64_t kHeldLimit = (8 << 20) + (1 << 20);  // Replica::kMaxHeldBytes and a read or two
  bool seen_partial = false;
  int64_t most_held = 0;
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 20s, [&] {
    const int64_t read = number(r, "replication", "master_sync_read_bytes");
    const int64_t loaded = number(r, "persistence", "loading_loaded_bytes");
    if (read > 0 && number(r, "replication", "master_sync_in_progress") == 1) {
      most_held = std::max(most_held, read - loaded);
      // Keys loaded while most of the snapshot is still to come.
      seen_partial |= loaded > 0 && read < int64_t{kBlobs / 2} << 20;
    }
    return info_field(r.call({"INFO", "replication"}).text, "master_link_status").value_or("") == "up";
  }));
  CHECK(seen_partial);
  CHECK(most_held > 0);
  CHECK(most_held <= kHeldLimit);
  CHECK(r.integer({"DBSIZE"}) == kBlobs + 1);
  CHECK(r.integer({"STRLEN", "blob23"}) == (1 << 20));
  CHECK(r.call({"GET", "small"}).text == "v");
}

}  // namespace lawnkv::itest
