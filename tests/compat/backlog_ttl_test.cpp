// repl-backlog-ttl side by side with redis-server 7.0.15, on real time (it
// has no DEBUG ADVANCE-TIME; tests/integration/backlog_ttl_test.cpp covers
// the edges on lawnkv's clock): set to 1 by CONFIG SET, a backlog created
// by a fake replica's `PSYNC ? -1` is freed by both once the replica has
// been gone for more than a second, under a new replid with replid2
// cleared, with the same log line. That replica sends no capa eof, so its
// sync goes through a snapshot file: each server writes it in a directory
// of its own (a dump.rdb left where the tests run is loaded by every
// server started after).

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "../support/info_field.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_calls.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {

namespace {

using std::chrono::steady_clock;
constexpr auto kWait = std::chrono::seconds(10);

std::string repl(RawClient& c, std::string_view name) { return info_field(c, "replication", name, "<absent>"); }

// What the server shows once its backlog went: [the replid changed,
// replid2, second_repl_offset, backlog fields].
std::string freed_state(RawClient& c, const std::string& old_replid) {
  const std::string id = repl(c, "master_replid");
  return std::string(id != old_replid && id.size() == 40 ? "new-id" : "old-id:" + id) + " " +
         repl(c, "master_replid2") + " " + repl(c, "second_repl_offset") + " " + repl(c, "repl_backlog_active") +
         " " + repl(c, "repl_backlog_histlen");
}

}  // namespace

TEST_CASE("repl-backlog-ttl: lawnkv and redis-server free an idle primary's backlog alike") {
  TempDir lawnkv_dir, redis_dir;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", lawnkv_dir.path.string()});
  ServerProcess redis = ServerProcess::redis({"--dir", redis_dir.path.string()});
  for (ServerProcess* server : {&lawnkv, &redis}) {
    CAPTURE(server->log_path().string());
    RawClient admin(server->port());
    CHECK(admin.call({"CONFIG", "SET", "repl-backlog-ttl", "1"}) == "+OK\r\n");
    CHECK(admin.call({"CONFIG", "GET", "repl-backlog-ttl"}) == "*2\r\n$16\r\nrepl-backlog-ttl\r\n$1\r\n1\r\n");
    {
      RawClient replica(server->port());
      replica.send(encode_command({"PSYNC", "?", "-1"}));
      REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return repl(admin, "connected_slaves") == "1"; }));
    }
    REQUIRE(repl(admin, "repl_backlog_active") == "1");
    const std::string replid = repl(admin, "master_replid");
    const auto gone = steady_clock::now();
    REQUIRE(poll_until(gone + kWait, [&] { return repl(admin, "repl_backlog_active") == "0"; }));
    // More than one whole second without replicas, on the cron's next look.
    CHECK(steady_clock::now() - gone > std::chrono::seconds(1));
    CHECK(freed_state(admin, replid) == "new-id " + std::string(40, '0') + " -1 0 0");
    CHECK(server->log().find("Replication backlog freed after 1 seconds without connected replicas.") !=
          std::string::npos);
  }
}

}  // namespace lawnkv::test
