// repl-backlog-ttl, as Redis 7.0's replicationCron: a primary whose
// replicas all went frees its replication backlog once it has had none for
// more than repl-backlog-ttl seconds, under a new replid with replid2
// cleared, and logs it; 0 keeps it for ever; a replica keeps its own, and a
// promoted one counts its time without replicas from the promotion.
//
// The backlog comes with a fake replica's `PSYNC ? -1` (it sends no capa
// eof: its sync goes through a snapshot file). The servers' clocks are
// frozen and moved with DEBUG ADVANCE-TIME; the replication cron looks once
// a second of real time. While a replica is connected each tick puts a PING
// in the stream (repl-ping-replica-period 1), so master_repl_offset growing
// shows a tick has run. A tick that changes nothing leaves no trace without
// replicas, so "still kept" is watched over a window of real time holding
// at least one tick (kTickWindow); everything else polls for the change.
// Every server has a directory of its own: these syncs go through snapshot
// files, and a dump.rdb left where the tests run is loaded by every server
// started after.

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::RawClient;
using test::ServerProcess;
using test::TempDir;
using SteadyClock = std::chrono::steady_clock;

constexpr auto kWait = 10s;
// More than one tick of the replication cron (1000 ms).
constexpr auto kTickWindow = 1500ms;
const std::string kNoReplid(40, '0');

bool within(std::chrono::milliseconds limit, auto done) {
  return test::poll_until(SteadyClock::now() + limit, done);
}

// Whether held() stays true for the whole window (asked until its end).
bool stays(std::chrono::milliseconds window, auto held) {
  bool ok = true;
  test::poll_until(SteadyClock::now() + window, [&] {
    ok = ok && held();
    return !ok;
  });
  return ok;
}

std::string field(Client& c, std::string_view name) {
  return info_field(c.call({"INFO", "replication"}).text, name).value_or("<absent>");
}

void must(Client& c, std::initializer_list<std::string_view> argv) {
  const Reply r = c.call(argv);
  REQUIRE_MESSAGE(r.type != '-', r.text);
}

void advance(Client& c, long long ms) { must(c, {"DEBUG", "ADVANCE-TIME", std::to_string(ms)}); }

bool backlog_active(Client& c) { return field(c, "repl_backlog_active") == "1"; }

// A fake replica asks for a full sync: the backlog exists from then on.
RawClient fake_replica(Client& admin, uint16_t port) {
  RawClient replica(port);
  replica.send(test::encode_command({"PSYNC", "?", "-1"}));
  REQUIRE(within(kWait, [&] { return field(admin, "connected_slaves") == "1"; }));
  return replica;
}

void gone(Client& admin, RawClient& replica) {
  replica.close();
  REQUIRE(within(kWait, [&] { return field(admin, "connected_slaves") == "0"; }));
}

constexpr std::string_view kFreed100 = "Replication backlog freed after 100 seconds without connected replicas.";

}  // namespace

TEST_CASE("repl-backlog-ttl: a primary frees its backlog after that many seconds without replicas") {
  TempDir dir;
  ServerProcess server = ServerProcess::lawnkv(
      {"--dir", dir.path.string(), "--repl-backlog-ttl", "100", "--repl-ping-replica-period", "1"});
  Client admin(server.port());
  must(admin, {"DEBUG", "FREEZE-TIME", "1"});
  CHECK(field(admin, "repl_backlog_active") == "0");

  RawClient replica = fake_replica(admin, server.port());
  REQUIRE(backlog_active(admin));
  const std::string replid = field(admin, "master_replid");
  // However long a replica stays connected, the backlog stays: a tick ran
  // after the clock moved (its PING is in the stream).
  advance(admin, 1'000'000);
  const long long offset = std::stoll(field(admin, "master_repl_offset"));
  REQUIRE(within(kWait, [&] { return std::stoll(field(admin, "master_repl_offset")) > offset; }));
  CHECK(backlog_active(admin));
  CHECK(field(admin, "master_replid") == replid);

  // Its time to live counts from the last replica's going: exactly 100
  // seconds is not more than 100.
  gone(admin, replica);
  advance(admin, 100'000);
  CHECK(stays(kTickWindow, [&] { return backlog_active(admin); }));
  CHECK(server.log().find(kFreed100) == std::string::npos);

  advance(admin, 1000);
  REQUIRE(within(kWait, [&] { return !backlog_active(admin); }));
  // A new history: no one may continue the old one from us.
  CHECK(field(admin, "master_replid") != replid);
  CHECK(field(admin, "master_replid").size() == 40);
  CHECK(field(admin, "master_replid2") == kNoReplid);
  CHECK(field(admin, "second_repl_offset") == "-1");
  CHECK(field(admin, "repl_backlog_histlen") == "0");
  CHECK(server.log().find(kFreed100) != std::string::npos);
  const std::string after_free = field(admin, "master_replid");

  // The old history cannot be continued: a replica asking for it is
  // refused a partial resync, and its full sync starts the backlog anew
  // under yet another id.
  RawClient again(server.port());
  again.send(test::encode_command({"PSYNC", replid, std::to_string(offset + 1)}));
  REQUIRE(within(kWait, [&] { return field(admin, "connected_slaves") == "1"; }));
  CHECK(info_field(admin.call({"INFO", "stats"}).text, "sync_partial_err") == "1");
  CHECK(backlog_active(admin));
  CHECK(field(admin, "master_replid") != after_free);
}

TEST_CASE("repl-backlog-ttl 0 never frees the backlog; CONFIG SET changes the ttl at runtime") {
  TempDir dir;
  ServerProcess server = ServerProcess::lawnkv({"--dir", dir.path.string()});
  Client admin(server.port());
  must(admin, {"DEBUG", "FREEZE-TIME", "1"});
  CHECK(admin.wire({"CONFIG", "GET", "repl-backlog-ttl"}) == "*2\r\n$16\r\nrepl-backlog-ttl\r\n$4\r\n3600\r\n");
  must(admin, {"CONFIG", "SET", "repl-backlog-ttl", "0"});
  CHECK(admin.wire({"CONFIG", "GET", "repl-backlog-ttl"}) == "*2\r\n$16\r\nrepl-backlog-ttl\r\n$1\r\n0\r\n");

  RawClient replica = fake_replica(admin, server.port());
  gone(admin, replica);
  advance(admin, 1'000'000'000);
  CHECK(stays(kTickWindow, [&] { return backlog_active(admin); }));

  must(admin, {"CONFIG", "SET", "repl-backlog-ttl", "5"});
  REQUIRE(within(kWait, [&] { return !backlog_active(admin); }));
  CHECK(server.log().find("Replication backlog freed after 5 seconds without connected replicas.") !=
        std::string::npos);
}

TEST_CASE("repl-backlog-ttl: a replica keeps its backlog; promoted, it counts from the promotion") {
  TempDir primary_dir, replica_dir;
  ServerProcess primary = ServerProcess::lawnkv({"--dir", primary_dir.path.string()});
  Client p(primary.port());
  must(p, {"SET", "k", "v"});
  ServerProcess replica_server =
      ServerProcess::lawnkv({"--dir", replica_dir.path.string(), "--repl-backlog-ttl", "100"});
  Client r(replica_server.port());
  must(r, {"DEBUG", "FREEZE-TIME", "1"});
  must(r, {"REPLICAOF", "127.0.0.1", std::to_string(primary.port())});
  REQUIRE(within(kWait, [&] { return field(r, "master_link_status") == "up" && backlog_active(r); }));
  const std::string replid = field(p, "master_replid");
  CHECK(field(r, "master_replid") == replid);

  // No sub-replica ever came, and its clock says it has had none for long.
  advance(r, 1'000'000);
  CHECK(stays(kTickWindow, [&] { return backlog_active(r) && field(r, "master_replid") == replid; }));

  // Promoted: the former history stays valid as replid2, and the backlog's
  // time to live starts now.
  must(r, {"REPLICAOF", "NO", "ONE"});
  REQUIRE(field(r, "role") == "master");
  CHECK(field(r, "master_replid2") == replid);
  advance(r, 100'000);
  CHECK(stays(kTickWindow, [&] { return backlog_active(r); }));
  advance(r, 1000);
  REQUIRE(within(kWait, [&] { return !backlog_active(r); }));
  CHECK(field(r, "master_replid2") == kNoReplid);
  CHECK(replica_server.log().find(kFreed100) != std::string::npos);
}

}  // namespace lawnkv::itest
