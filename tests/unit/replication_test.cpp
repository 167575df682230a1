// The replica's pure parts (src/replication/): the handshake's requests and
// how it reads the primary's replies, and the snapshot payload in both
// forms, fed whole and cut at every byte.

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "replication/replica_handshake.hpp"
#include "replication/sync_payload.hpp"

namespace lawnkv::replication {

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string temp_path() { return "/tmp/lawnkv-unit-payload-" + std::to_string(::getpid()) + ".rdb"; }

using Outcome = ReplicaHandshake::Outcome;

}  // namespace

TEST_CASE("replica handshake: PING, AUTH, REPLCONF, PSYNC and +FULLRESYNC") {
  HandshakeSettings s;
  s.masterauth = "pw";
  s.masteruser = "repl";
  s.listening_port = 7000;
  ReplicaHandshake h(s);
  h.start();
  CHECK(h.take_pending() == "*1\r\n$4\r\nPING\r\n");
  CHECK(h.on_line("") == Outcome::kWaiting);  // a keepalive
  CHECK(h.take_pending() == "");
  CHECK(h.on_line("-NOAUTH Authentication required.") == Outcome::kWaiting);
  CHECK(h.take_pending() == "*3\r\n$4\r\nAUTH\r\n$4\r\nrepl\r\n$2\r\npw\r\n");
  CHECK(h.on_line("+OK") == Outcome::kWaiting);
  CHECK(h.take_pending() == "*3\r\n$8\r\nREPLCONF\r\n$14\r\nlistening-port\r\n$4\r\n7000\r\n");
  CHECK(h.on_line("-ERR unknown") == Outcome::kWaiting);  // logged, not fatal
  CHECK(h.take_pending() == "*5\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\neof\r\n$4\r\ncapa\r\n$6\r\npsync2\r\n");
  CHECK(h.on_line("+OK") == Outcome::kWaiting);
  CHECK(h.take_pending() == "*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n");
  CHECK(h.on_line("") == Outcome::kWaiting);
  const std::string id(40, 'a');
  CHECK(h.on_line("+FULLRESYNC " + id + " 1234") == Outcome::kFullResync);
  CHECK(h.replid() == id);
  CHECK(h.offset() == 1234);
}

TEST_CASE("replica handshake: replica-announce-ip sends REPLCONF ip-address after listening-port") {
  HandshakeSettings s;
  s.listening_port = 4321;  // replica-announce-port, when set, is given here
  s.announce_ip = "10.1.2.3";
  ReplicaHandshake h(s);
  h.start();
  h.take_pending();
  CHECK(h.on_line("+PONG") == Outcome::kWaiting);
  CHECK(h.take_pending() == "*3\r\n$8\r\nREPLCONF\r\n$14\r\nlistening-port\r\n$4\r\n4321\r\n");
  CHECK(h.on_line("+OK") == Outcome::kWaiting);
  CHECK(h.take_pending() == "*3\r\n$8\r\nREPLCONF\r\n$10\r\nip-address\r\n$8\r\n10.1.2.3\r\n");
  CHECK(h.on_line("-ERR old primary") == Outcome::kWaiting);  // logged, not fatal
  CHECK(h.warning() == "(Non critical) Master does not understand REPLCONF ip-address: -ERR old primary");
  CHECK(h.take_pending().find("capa") != std::string::npos);
  CHECK(h.on_line("+OK") == Outcome::kWaiting);
  CHECK(h.take_pending().find("PSYNC") != std::string::npos);
}

TEST_CASE("replica handshake: a primary's FAILOVER adds FAILOVER to its PSYNC") {
  HandshakeSettings s;
  s.psync_replid = std::string(40, 'e');
  s.psync_offset = 77;
  s.psync_failover = true;
  ReplicaHandshake h(s);
  h.start();
  h.take_pending();
  REQUIRE(h.on_line("+PONG") == Outcome::kWaiting);
  h.take_pending();
  REQUIRE(h.on_line("+OK") == Outcome::kWaiting);
  h.take_pending();
  REQUIRE(h.on_line("+OK") == Outcome::kWaiting);
  CHECK(h.take_pending() == "*4\r\n$5\r\nPSYNC\r\n$40\r\n" + std::string(40, 'e') +
                                "\r\n$2\r\n77\r\n$8\r\nFAILOVER\r\n");
  CHECK(h.on_line("+CONTINUE " + std::string(40, 'f')) == Outcome::kContinue);
}

TEST_CASE("replica handshake: +CONTINUE, a new id, the refusals") {
  HandshakeSettings s;
  s.psync_replid = std::string(40, 'b');
  s.psync_offset = 101;
  auto to_psync = [&](ReplicaHandshake& h) {
    h.start();
    REQUIRE(h.on_line("+PONG") == Outcome::kWaiting);  // no masterauth: no AUTH
    CHECK(h.take_pending().find("listening-port") != std::string::npos);
    REQUIRE(h.on_line("+OK") == Outcome::kWaiting);
    REQUIRE(h.on_line("+OK") == Outcome::kWaiting);
    CHECK(h.take_pending().find("$40\r\n" + std::string(40, 'b') + "\r\n$3\r\n101\r\n") != std::string::npos);
  };
  ReplicaHandshake h(s);
  to_psync(h);
  CHECK(h.on_line("+CONTINUE") == Outcome::kContinue);
  CHECK(h.replid() == std::string(40, 'b'));
  to_psync(h);
  CHECK(h.on_line("+CONTINUE " + std::string(40, 'c')) == Outcome::kContinue);
  CHECK(h.replid() == std::string(40, 'c'));
  to_psync(h);
  CHECK(h.on_line("-LOADING Redis is loading the dataset in memory") == Outcome::kTryLater);
  to_psync(h);
  CHECK(h.on_line("-ERR unknown command 'PSYNC'") == Outcome::kFailed);
  h.start();
  CHECK(h.on_line("-ERR wrong password") == Outcome::kFailed);
  CHECK(h.error() == "Error reply to PING from master: '-ERR wrong password'");
}

TEST_CASE("sync payload: $<len> and $EOF:<mark>, whole and cut at every byte") {
  const std::string rdb = "REDIS0010\xfa" + std::string(100, 'x') + "\xff" + "12345678";
  const std::string mark(40, 'M');
  const std::string after = "*1\r\n$4\r\nPING\r\n";
  for (bool diskless : {false, true}) {
    const std::string wire = diskless ? "\n\n$EOF:" + mark + "\r\n" + rdb + mark
                                      : "\n$" + std::to_string(rdb.size()) + "\r\n" + rdb + after;
    for (size_t cut = 0; cut <= wire.size(); ++cut) {
      CAPTURE(diskless);
      CAPTURE(cut);
      SyncPayload p(temp_path());
      size_t used = 0;
      SyncPayload::Status st = p.feed(std::string_view(wire).substr(0, cut), &used);
      size_t total = used;
      if (st == SyncPayload::Status::kMore) {
        st = p.feed(std::string_view(wire).substr(cut), &used);
        total += used;
      }
      REQUIRE(st == SyncPayload::Status::kDone);
      CHECK(file_text(p.path()) == rdb);
      CHECK(p.diskless() == diskless);
      // The $<len> form leaves the stream that follows to the caller.
      CHECK(wire.substr(total) == (diskless ? "" : after));
    }
  }
  std::remove(temp_path().c_str());
  SyncPayload bad(temp_path());
  size_t used = 0;
  CHECK(bad.feed("-ERR no\r\n", &used) == SyncPayload::Status::kFailed);
  CHECK(bad.error() == "MASTER aborted replication with an error: ERR no");
}

}  // namespace lawnkv::replication
