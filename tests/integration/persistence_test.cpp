// RDB snapshots across a real restart: SAVE, stop by PID, start on the same
// dir, the data is there (same DEBUG DIGEST); keys whose deadline passed
// while down are gone and counted, no `expired` event for them; dehydrator
// elements whose time passed are due at once; SIGTERM saves under save
// rules; a corrupt file stops start-up with a message naming the offset;
// BGSAVE while clients write.
//
// "While down" without sleeping: the first server's clock is moved back
// (DEBUG ADVANCE-TIME), so deadlines it sets are already past by the real
// clock the second server starts with.

#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"
#include "stream_dataset.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;
namespace fs = std::filesystem;
using test::TempDir;

ServerProcess start_in(const TempDir& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--dir", dir.path.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return ServerProcess::lawnkv(args);
}

bool exited_zero(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

// The parent pid of pid (from /proc/<pid>/stat), or -1.
pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const size_t close = text.rfind(')');  // after the command name, which may hold spaces
  if (close == std::string::npos) return -1;
  char state;
  int ppid = -1;
  if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) != 2) return -1;
  return ppid;
}

TEST_CASE("SAVE, stop, start: the dataset is back; what expired while down is not") {
  TempDir dir;
  std::string digest;
  {
    ServerProcess a = start_in(dir);
    Client c(a.port());
    REQUIRE(c.call({"SET", "plain", "v"}) == status("OK"));
    REQUIRE(c.call({"SET", "big", std::string(100000, 'x')}) == status("OK"));
    REQUIRE(c.call({"SET", "lives", "v", "EX", "100000"}) == status("OK"));
    REQUIRE(c.call({"HSET", "h", "keep", "1", "drop", "2"}) == integer(2));
    REQUIRE(c.call({"SADD", "s", "1", "2", "three"}) == integer(3));
    REQUIRE(c.call({"SELECT", "9"}) == status("OK"));
    REQUIRE(c.call({"SET", "in9", "v"}) == status("OK"));
    REQUIRE(c.call({"SELECT", "0"}) == status("OK"));
    REQUIRE(c.call({"REDE.PUSH", "q", "3600000", "later", "id-later"}) == status("OK"));
    // Deadlines 100 s back in real time: past by the time b starts.
    REQUIRE(c.call({"DEBUG", "ADVANCE-TIME", "-100000"}) == status("OK"));
    REQUIRE(c.call({"SET", "gone", "v", "PX", "50000"}) == status("OK"));
    REQUIRE(c.call({"HPEXPIRE", "h", "50000", "FIELDS", "1", "drop"}).elements.size() == 1);
    REQUIRE(c.call({"REDE.PUSH", "q", "50000", "due-now", "id-due"}) == status("OK"));
    REQUIRE(c.call({"SAVE"}) == status("OK"));
    REQUIRE(c.call({"DEBUG", "ADVANCE-TIME", "100000"}) == status("OK"));
    CHECK(exited_zero(a.stop()));  // SIGTERM; save "": no second save
  }
  ServerProcess b = start_in(dir, {"--notify-keyspace-events", "Ex"});
  Client c(b.port());
  const std::string info = c.call({"INFO", "persistence"}).text;
  CHECK(info_int(info, "rdb_last_load_keys_loaded") == 7);
  CHECK(info_int(info, "rdb_last_load_keys_expired") == 1);
  CHECK(info_int(c.call({"INFO", "stats"}).text, "expired_keys") == 0);  // no event for "gone"
  CHECK(c.call({"EXISTS", "gone"}) == integer(0));
  CHECK(c.call({"GET", "plain"}) == bulk("v"));
  CHECK(c.call({"STRLEN", "big"}) == integer(100000));
  CHECK(c.integer({"TTL", "lives"}) > 99000);
  CHECK(c.call({"HKEYS", "h"}).elements.size() == 1);
  CHECK(c.call({"SCARD", "s"}) == integer(3));
  CHECK(c.call({"REDE.POLL", "q"}).elements == std::vector<Reply>{bulk("due-now")});
  CHECK(c.call({"REDE.LOOK", "q", "id-later"}) == bulk("later"));
  REQUIRE(c.call({"SELECT", "9"}) == status("OK"));
  CHECK(c.call({"GET", "in9"}) == bulk("v"));
}

TEST_CASE("DEBUG DIGEST is the same after a restart from the snapshot; streams come back exactly") {
  TempDir dir;
  std::string digest, streams;
  {
    ServerProcess a = start_in(dir);
    Client c(a.port());
    for (int i = 0; i < 500; ++i) {
      const std::string n = std::to_string(i);
      c.append({"SET", "k" + n, n});
      c.append({"HSET", "h" + std::to_string(i % 7), "f" + n, std::string(i % 90, 'v')});
      c.append({"SADD", "s" + std::to_string(i % 5), i % 2 ? n : "m" + n});
      c.append({"PEXPIRE", "k" + n, std::to_string(1000000 + i)});
    }
    for (int i = 0; i < 2000; ++i) c.read();
    write_stream_dataset(c);
    digest = c.call({"DEBUG", "DIGEST"}).text;
    streams = stream_dataset_state(c, false);
    CHECK(digest != std::string(40, '0'));
    REQUIRE(c.call({"SAVE"}) == status("OK"));
  }
  ServerProcess b = start_in(dir);
  Client c(b.port());
  CHECK(c.call({"DEBUG", "DIGEST"}).text == digest);
  // Seen and delivery times included: dump.rdb keeps them as they were.
  CHECK(stream_dataset_state(c, false) == streams);
}

TEST_CASE("SIGTERM saves when save rules are set; SHUTDOWN NOSAVE does not") {
  TempDir dir;
  {
    ServerProcess a = start_in(dir, {"--save", "3600 1"});
    Client c(a.port());
    REQUIRE(c.call({"SET", "k", "v"}) == status("OK"));
    CHECK(exited_zero(a.stop()));
  }
  CHECK(fs::exists(dir.path / "dump.rdb"));
  {
    ServerProcess b = start_in(dir, {"--save", "3600 1"});
    Client c(b.port());
    CHECK(c.call({"GET", "k"}) == bulk("v"));
    REQUIRE(c.call({"SET", "k2", "v"}) == status("OK"));
    test::RawClient raw(b.port());
    raw.send("SHUTDOWN NOSAVE\r\n");
    CHECK(raw.wait_closed());
    CHECK(b.wait_exit(10s).has_value());
  }
  ServerProcess c2 = start_in(dir);
  Client c(c2.port());
  CHECK(c.call({"EXISTS", "k", "k2"}) == integer(1));
}

TEST_CASE("a corrupt or foreign dump.rdb stops start-up, naming the offset") {
  TempDir dir;
  {
    ServerProcess a = start_in(dir);
    Client c(a.port());
    REQUIRE(c.call({"SET", "k", "value"}) == status("OK"));
    REQUIRE(c.call({"SAVE"}) == status("OK"));
  }
  const fs::path file = dir.path / "dump.rdb";
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(bytes.size() > 20);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 12);
  bool threw = false;
  std::string log;
  try {
    ServerProcess b = start_in(dir);
  } catch (const std::exception& e) {
    threw = true;
    log = e.what();
  }
  CHECK(threw);
  CHECK_MESSAGE(log.find("offset") != std::string::npos, log);
}

TEST_CASE("BGSAVE while clients write: the file holds the dataset as at the fork") {
  TempDir dir;
  constexpr int kKeys = 100000;
  ServerProcess a = start_in(dir);
  Client c(a.port());
  for (int i = 0; i < kKeys; ++i) c.append({"SET", "key:" + std::to_string(i), std::string(64, 'v')});
  for (int i = 0; i < kKeys; ++i) c.read();
  REQUIRE(c.call({"BGSAVE"}) == status("Background saving started"));
  Client writer(a.port());
  int written = 0;
  // Writes go on (and are answered) while the child saves.
  bool done = test::poll_until(std::chrono::steady_clock::now() + 60s, [&] {
    for (int i = 0; i < 100; ++i) writer.append({"SET", "during:" + std::to_string(written++), "x"});
    for (int i = 0; i < 100; ++i) REQUIRE(writer.read() == status("OK"));
    return info_int(c.call({"INFO", "persistence"}).text, "rdb_bgsave_in_progress") == 0;
  });
  REQUIRE(done);
  const std::string info = c.call({"INFO", "persistence"}).text;
  CHECK(info_field(info, "rdb_last_bgsave_status") == "ok");
  CHECK(info_int(info, "rdb_changes_since_last_save") == written);
  CHECK(written > 0);

  ServerProcess b = start_in(dir);
  Client check(b.port());
  CHECK(check.call({"DBSIZE"}) == integer(kKeys));
  CHECK(check.call({"EXISTS", "during:0"}) == integer(0));
}

TEST_CASE("a client closed while a BGSAVE child runs is closed at once (the child holds no sockets)") {
  TempDir dir;
  ServerProcess a = start_in(dir);
  Client c(a.port());
  // Enough keys that the child is still writing when it is stopped (a
  // child that ended first fails the in_progress check, not silently).
  constexpr int kKeys = 300000;
  for (int i = 0; i < kKeys; ++i) c.append({"SET", "key:" + std::to_string(i), std::string(32, 'v')});
  for (int i = 0; i < kKeys; ++i) c.read();
  test::RawClient quitter(a.port());
  REQUIRE(quitter.call({"PING"}) == "+PONG\r\n");
  REQUIRE(c.call({"BGSAVE"}) == status("Background saving started"));
  // Hold the child still: the test does not race its end.
  const std::string log = a.log();
  const std::string started = "Background saving started by pid ";
  const size_t at = log.rfind(started);
  REQUIRE(at != std::string::npos);
  const pid_t child = std::stoi(log.substr(at + started.size()));
  REQUIRE(parent_of(child) == a.pid());  // never signal anything but the server's child
  // The child lets go of what it inherited first thing: stdin/out/err and
  // its snapshot file are all it keeps.
  const fs::path fds = "/proc/" + std::to_string(child) + "/fd";
  const bool let_go = test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(fds, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
    return !ec && n <= 4;
  });
  CHECK(let_go);
  REQUIRE(::kill(child, SIGSTOP) == 0);
  REQUIRE(quitter.call({"QUIT"}) == "+OK\r\n");
  const bool closed = quitter.wait_closed();
  const long long in_progress = info_int(c.call({"INFO", "persistence"}).text, "rdb_bgsave_in_progress");
  ::kill(child, SIGCONT);
  CHECK(closed);
  CHECK(in_progress == 1);
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 30s, [&] {
    return info_int(c.call({"INFO", "persistence"}).text, "rdb_bgsave_in_progress") == 0;
  }));
  CHECK(info_field(c.call({"INFO", "persistence"}).text, "rdb_last_bgsave_status") == "ok");
}

}  // namespace
}  // namespace lawnkv::itest
