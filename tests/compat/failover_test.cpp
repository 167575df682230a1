// FAILOVER (Redis 7.0's coordinated failover) beside redis-server 7.0.15:
// - its replies, byte for byte, from a lawnkv and from a redis-server
//   primary, each with one redis-server replica: argument errors, TO a
//   server that is not its replica, FORCE without TIMEOUT, PSYNC ...
//   FAILOVER sent to a primary or with another replid, and, with the
//   replica stopped (SIGSTOP) so that the failover waits: the state in
//   INFO, FAILOVER again, REPLICAOF and PSYNC refused, a write paused until
//   FAILOVER ABORT, a TIMEOUT without FORCE that gives up by itself; the
//   pause's purposes: CLIENT UNPAUSE leaves a FAILOVER's pause on, and a
//   FAILOVER that ends leaves a CLIENT PAUSE on;
// - the failover itself, both ways: a lawnkv primary hands over to a
//   redis-server replica, and a redis-server primary to a lawnkv replica
//   (which takes PSYNC ... FAILOVER); the roles swap, the data is the same,
//   and the new primary's writes reach the old one.

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "../support/info_field.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {

namespace {

using std::chrono::steady_clock;
constexpr auto kWait = std::chrono::seconds(10);

std::string info_field(RawClient& c, std::string_view name) { return info_field(c, "replication", name, "<absent>"); }

bool within(auto done) { return poll_until(steady_clock::now() + kWait, done); }

// The primary lists its replica online and acknowledged up to its offset.
void replica_synced(RawClient& p) {
  const bool ok = within([&] {
    const std::string s = info_field(p, "slave0");
    return s.find("state=online") != std::string::npos &&
           s.find(",offset=" + info_field(p, "master_repl_offset") + ",") != std::string::npos;
  });
  REQUIRE_MESSAGE(ok, info_field(p, "slave0"));
}

// FAILOVER's replies from `primary` with `replica` (a redis-server) attached.
std::vector<std::string> failover_replies(ServerProcess& primary, ServerProcess& replica) {
  RawClient c(primary.port());
  replica_synced(c);
  std::vector<std::string> out;
  auto run = [&](std::initializer_list<std::string_view> argv) { out.push_back(c.call(argv)); };
  const std::string rport = std::to_string(replica.port());
  run({"FAILOVER", "ABORT"});
  run({"FAILOVER", "ABORT", "now"});
  run({"FAILOVER", "TO"});
  run({"FAILOVER", "TO", "127.0.0.1"});
  run({"FAILOVER", "TO", "127.0.0.1", "abc"});
  run({"FAILOVER", "TO", "127.0.0.1", "1"});
  run({"FAILOVER", "TO", "127.0.0.1", rport, "FORCE"});
  run({"FAILOVER", "FORCE", "TIMEOUT", "100"});
  run({"FAILOVER", "FORCE", "FORCE"});
  run({"FAILOVER", "TIMEOUT", "0"});
  run({"FAILOVER", "TIMEOUT", "-5"});
  run({"FAILOVER", "TIMEOUT", "abc"});
  run({"FAILOVER", "TIMEOUT", "5", "TIMEOUT", "6"});
  run({"FAILOVER", "NOW"});
  run({"PSYNC", "?", "-1", "FAILOVER"});  // to a primary
  out.push_back("state=" + info_field(c, "master_failover_state"));

  // The replica stops answering and misses a write: the failover waits for
  // it to acknowledge everything.
  replica.signal(SIGSTOP);
  run({"SET", "k", "v0"});
  run({"FAILOVER", "TIMEOUT", "60000"});
  out.push_back("state=" + info_field(c, "master_failover_state"));
  run({"FAILOVER"});
  run({"REPLICAOF", "NO", "ONE"});
  RawClient other(primary.port());
  out.push_back(other.call({"PSYNC", "?", "-1"}));
  // A write waits for the failover to end (reads go on); ABORT ends it,
  // and the write runs (whether it arrived before ABORT or after).
  RawClient writer(primary.port());
  writer.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nw\r\n");
  out.push_back(other.call({"GET", "k"}));
  run({"FAILOVER", "ABORT"});
  out.push_back(writer.read_reply());
  out.push_back(other.call({"GET", "k"}));
  out.push_back("state=" + info_field(c, "master_failover_state"));
  // A TIMEOUT without FORCE gives up by itself; writes go on.
  run({"FAILOVER", "TIMEOUT", "200"});
  const bool gave_up = within([&] { return info_field(c, "master_failover_state") == "no-failover"; });
  out.push_back(gave_up ? "gave up" : "still waiting");
  run({"SET", "k", "after"});

  // Pause purposes (Redis 7.0 keeps CLIENT PAUSE's and FAILOVER's apart):
  // CLIENT UNPAUSE does not end a FAILOVER's pause...
  auto waits = [&] {  // the writer's command waits (INFO's blocked_clients)
    const bool held = within([&] {
      return parse_reply(other.call({"INFO", "clients"})).text.find("\r\nblocked_clients:1\r\n") !=
             std::string::npos;
    });
    out.push_back(held ? "held" : "not held");
  };
  run({"FAILOVER", "TIMEOUT", "60000"});
  writer.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nw2\r\n");
  waits();
  run({"CLIENT", "UNPAUSE"});
  out.push_back(other.call({"GET", "k"}));
  waits();
  run({"FAILOVER", "ABORT"});
  out.push_back(writer.read_reply());
  // ...and a FAILOVER that ends does not lift a CLIENT PAUSE.
  run({"CLIENT", "PAUSE", "60000", "WRITE"});
  run({"FAILOVER", "TIMEOUT", "60000"});
  out.push_back("state=" + info_field(c, "master_failover_state"));
  run({"FAILOVER", "ABORT"});
  writer.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nw3\r\n");
  waits();
  out.push_back(other.call({"GET", "k"}));
  run({"CLIENT", "UNPAUSE"});
  out.push_back(writer.read_reply());
  out.push_back(other.call({"GET", "k"}));
  replica.signal(SIGCONT);
  return out;
}

// Polls until `c`'s ROLE names it a replica of `port`, its link connected.
bool replica_of(RawClient& c, uint16_t port) {
  return within([&] {
    const Reply role = parse_reply(c.call({"ROLE"}));
    return role.elements.size() == 5 && role.elements[0].text == "slave" &&
           role.elements[2].text == std::to_string(port) && role.elements[3].text == "connected";
  });
}

// `old_primary` hands its role to `replica`, which then writes to it.
void hand_over(ServerProcess& old_primary, ServerProcess& replica) {
  RawClient p(old_primary.port()), r(replica.port());
  CHECK(p.call({"SET", "before", "1"}) == "+OK\r\n");
  CHECK(p.call({"SELECT", "2"}) == "+OK\r\n");
  CHECK(p.call({"HSET", "h", "f", "v"})[0] == ':');
  CHECK(p.call({"SELECT", "0"}) == "+OK\r\n");
  replica_synced(p);
  CHECK(p.call({"FAILOVER", "TIMEOUT", "5000"}) == "+OK\r\n");
  CHECK(replica_of(p, replica.port()));
  CHECK(parse_reply(r.call({"ROLE"})).elements[0].text == "master");
  CHECK(info_field(p, "master_failover_state") == "no-failover");
  CHECK(r.call({"GET", "before"}) == "$1\r\n1\r\n");
  CHECK(r.call({"SET", "after", "2"}) == "+OK\r\n");
  CHECK(within([&] { return p.call({"GET", "after"}) == "$1\r\n2\r\n"; }));
  CHECK(p.call({"SET", "x", "1"}) == "-READONLY You can't write against a read only replica.\r\n");
  CHECK(r.call({"SELECT", "2"}) == "+OK\r\n");
  CHECK(r.call({"HGET", "h", "f"}) == "$1\r\nv\r\n");
  // The old primary, a replica now, refuses another primary's id.
  CHECK(p.call({"PSYNC", std::string(40, 'a'), "1", "FAILOVER"}) ==
        "-ERR PSYNC FAILOVER replid must match my replid.\r\n");
}

}  // namespace

TEST_CASE("compat: FAILOVER's replies from a lawnkv and a redis-server primary with one replica") {
  TempDir d1, d2, d3, d4;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", d1.path.string()});
  ServerProcess lawnkv_replica =
      ServerProcess::redis({"--dir", d2.path.string(), "--replicaof", "127.0.0.1", std::to_string(lawnkv.port())});
  ServerProcess redis = ServerProcess::redis({"--dir", d3.path.string(), "--repl-diskless-sync-delay", "0"});
  ServerProcess redis_replica =
      ServerProcess::redis({"--dir", d4.path.string(), "--replicaof", "127.0.0.1", std::to_string(redis.port())});
  const std::vector<std::string> ours = failover_replies(lawnkv, lawnkv_replica);
  const std::vector<std::string> theirs = failover_replies(redis, redis_replica);
  REQUIRE(ours.size() == theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    CAPTURE(i);
    CHECK(ours[i] == theirs[i]);
  }
  CHECK(ours[17] == "+OK\r\n");  // the failover that waits
  CHECK(ours[18] == "state=waiting-for-sync");
  CHECK(ours[22] == "$2\r\nv0\r\n");  // the paused write has not run
  CHECK(ours[25] == "$1\r\nw\r\n");   // it ran after FAILOVER ABORT
  // Pause purposes: the write waits through CLIENT UNPAUSE, runs on FAILOVER
  // ABORT; then waits through a FAILOVER ABORT, runs on CLIENT UNPAUSE.
  const size_t p = 30;
  CHECK(ours[p] == "+OK\r\n");
  CHECK(ours[p + 1] == "held");
  CHECK(ours[p + 3] == "$5\r\nafter\r\n");
  CHECK(ours[p + 4] == "held");
  CHECK(ours[p + 6] == "+OK\r\n");
  CHECK(ours[p + 9] == "state=waiting-for-sync");
  CHECK(ours[p + 11] == "held");
  CHECK(ours[p + 12] == "$2\r\nw2\r\n");
  CHECK(ours[p + 14] == "+OK\r\n");
  CHECK(ours[p + 15] == "$2\r\nw3\r\n");
}

TEST_CASE("compat: FAILOVER hands a lawnkv primary's role to a redis-server replica, and back") {
  TempDir d1, d2;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", d1.path.string()});
  ServerProcess redis = ServerProcess::redis({"--dir", d2.path.string(), "--replicaof", "127.0.0.1",
                                              std::to_string(lawnkv.port()), "--repl-diskless-sync-delay", "0"});
  SUBCASE("lawnkv to redis-server, then redis-server back to lawnkv") {
    hand_over(lawnkv, redis);
    hand_over(redis, lawnkv);
  }
}

}  // namespace lawnkv::test
