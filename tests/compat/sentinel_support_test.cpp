// What Redis Sentinel and high-availability setups rely on in the servers
// they watch, beside redis-server 7.0.15 in the same roles, replies
// compared byte for byte:
// - min-replicas-to-write / min-replicas-max-lag: a primary (lawnkv, then
//   redis-server) with one redis-server replica answers the same to writes,
//   reads, MULTI/EXEC, scripts with and without flags, and INFO's
//   min_slaves_good_slaves, with the check on, off, and after its replica
//   went;
// - replica-priority, replica-announced, replica-announce-ip/port: a lawnkv
//   replica and a redis-server replica of one redis-server primary,
//   configured alike, show the same INFO lines (what Sentinel parses), and
//   the primary lists each at its announced address.

#include <doctest/doctest.h>

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

// The primary lists one replica, online.
void replica_online(RawClient& p) {
  const bool ok = poll_until(steady_clock::now() + kWait, [&] {
    return info_field(p, "replication", "slave0").find("state=online") != std::string::npos;
  });
  REQUIRE_MESSAGE(ok, info_field(p, "replication", "slave0"));
}

// Sends the min-replicas script to a primary with one online replica, then
// stops the replica and goes on; returns every reply (raw RESP) and the
// INFO values in order.
std::vector<std::string> min_replicas_script(ServerProcess& primary, ServerProcess& replica) {
  RawClient c(primary.port());
  replica_online(c);
  std::vector<std::string> out;
  auto run = [&](std::initializer_list<std::string_view> argv) { out.push_back(c.call(argv)); };
  auto good = [&] { out.push_back("good=" + info_field(c, "replication", "min_slaves_good_slaves", "<absent>")); };
  good();  // off: no line
  run({"CONFIG", "SET", "min-replicas-to-write", "1"});
  good();
  run({"SET", "k", "v"});
  run({"CONFIG", "SET", "min-replicas-to-write", "2"});
  good();
  run({"SET", "k", "w"});
  run({"INCR", "n"});
  run({"GET", "k"});
  run({"EVAL", "return redis.call('set','k','w')", "0"});
  run({"EVAL", "return redis.call('get','k')", "0"});
  run({"EVAL", "#!lua\nreturn redis.call('set','k','w')", "0"});
  run({"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','k')", "0"});
  run({"EVAL_RO", "return redis.call('get','k')", "0"});
  run({"MULTI"});
  run({"SET", "k", "w"});
  run({"EXEC"});
  run({"MULTI"});
  run({"GET", "k"});
  run({"EXEC"});
  run({"PUBLISH", "__sentinel__:hello", "x"});  // Sentinel's hellos are not writes
  // Either setting at 0 turns the check off.
  run({"CONFIG", "SET", "min-replicas-max-lag", "0"});
  good();
  run({"SET", "k", "x"});
  run({"CONFIG", "SET", "min-replicas-max-lag", "10"});
  run({"CONFIG", "SET", "min-replicas-to-write", "1"});
  run({"SET", "k", "y"});
  // The replica goes: writes stop at once.
  replica.stop();
  const bool gone =
      poll_until(steady_clock::now() + kWait, [&] { return info_field(c, "replication", "connected_slaves") == "0"; });
  REQUIRE(gone);
  good();
  run({"SET", "k", "z"});
  run({"GET", "k"});
  run({"CONFIG", "SET", "min-replicas-to-write", "0"});
  run({"SET", "k", "z"});
  return out;
}

}  // namespace

TEST_CASE("compat: min-replicas-to-write: a lawnkv and a redis-server primary with one replica answer alike") {
  TempDir d1, d2, d3, d4;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", d1.path.string()});
  ServerProcess lawnkv_replica =
      ServerProcess::redis({"--dir", d2.path.string(), "--replicaof", "127.0.0.1", std::to_string(lawnkv.port())});
  const std::vector<std::string> ours = min_replicas_script(lawnkv, lawnkv_replica);

  ServerProcess redis = ServerProcess::redis({"--dir", d3.path.string(), "--repl-diskless-sync-delay", "0"});
  ServerProcess redis_replica =
      ServerProcess::redis({"--dir", d4.path.string(), "--replicaof", "127.0.0.1", std::to_string(redis.port())});
  const std::vector<std::string> theirs = min_replicas_script(redis, redis_replica);

  REQUIRE(ours.size() == theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    CAPTURE(i);
    CHECK(ours[i] == theirs[i]);
  }
  // The script does reach both sides of the check.
  CHECK(ours[3] == "+OK\r\n");
  CHECK(ours[6] == "-NOREPLICAS Not enough good replicas to write.\r\n");
}

TEST_CASE("compat: a lawnkv replica tells Sentinel what a redis-server replica does (priority, announce-ip/port)") {
  TempDir d1, d2, d3;
  ServerProcess primary = ServerProcess::redis({"--dir", d1.path.string(), "--repl-diskless-sync-delay", "0"});
  const std::string primary_port = std::to_string(primary.port());
  const std::vector<std::string> alike = {"--replicaof", "127.0.0.1", primary_port, "--replica-priority", "7",
                                          "--replica-announce-ip", "127.0.0.5", "--replica-announced", "no"};
  auto with = [&](const TempDir& d, std::string port) {
    std::vector<std::string> args = alike;
    args.insert(args.end(), {"--dir", d.path.string(), "--replica-announce-port", port});
    return args;
  };
  ServerProcess ours = ServerProcess::lawnkv(with(d2, "4001"));
  ServerProcess theirs = ServerProcess::redis(with(d3, "4002"));
  RawClient p(primary.port()), o(ours.port()), t(theirs.port());

  // The primary lists both at their announced addresses.
  std::string listed;
  const bool both = poll_until(steady_clock::now() + kWait, [&] {
    listed = info_field(p, "replication", "slave0") + " " + info_field(p, "replication", "slave1");
    return info_field(p, "replication", "connected_slaves") == "2" &&
           listed.find("ip=127.0.0.5,port=4001,state=online") != std::string::npos &&
           listed.find("ip=127.0.0.5,port=4002,state=online") != std::string::npos;
  });
  CHECK_MESSAGE(both, listed);

  for (const char* field : {"role", "master_host", "master_port", "master_link_status", "slave_priority",
                            "slave_read_only", "replica_announced"}) {
    CAPTURE(field);
    CHECK(info_field(o, "replication", field, "<absent>") == info_field(t, "replication", field, "<absent>"));
  }
  CHECK(info_field(o, "replication", "slave_priority") == "7");
  for (const char* param : {"replica-priority", "replica-announce-ip", "replica-announced", "slave-priority",
                            "min-replicas-to-write", "min-slaves-max-lag"})
    CHECK(o.call({"CONFIG", "GET", param}) == t.call({"CONFIG", "GET", param}));

  // CONFIG SET, as an operator or Sentinel's CONFIG REWRITE flow would.
  for (RawClient* c : {&o, &t}) {
    CHECK(c->call({"CONFIG", "SET", "replica-priority", "0", "replica-announced", "yes"}) == "+OK\r\n");
  }
  CHECK(o.call({"CONFIG", "SET", "replica-announce-port", "70000"}) ==
        t.call({"CONFIG", "SET", "replica-announce-port", "70000"}));
  for (const char* field : {"slave_priority", "replica_announced"})
    CHECK(info_field(o, "replication", field) == info_field(t, "replication", field));
  CHECK(info_field(o, "replication", "slave_priority") == "0");
}

}  // namespace lawnkv::test
