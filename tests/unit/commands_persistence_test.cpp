// SAVE, BGSAVE, LASTSAVE, the save rules, SHUTDOWN's save, DEBUG RELOAD /
// DIGEST / DIGEST-VALUE and INFO persistence (durability/snapshots.hpp), on a
// CommandServer writing into a temporary directory.

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/temp_dir.hpp"
#include "command_fixture.hpp"
#include "durability/snapshots.hpp"

namespace lawnkv {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

config::Config config_in(const TempDir& dir, const std::string& save_rules = "") {
  config::Config cfg;
  config::Values& v = cfg.mutable_values();
  v.enable_debug_command = "yes";
  v.dir = dir.path.string();
  v.save = save_rules;
  return cfg;
}

std::string info_field(test::CommandServer& s, const std::string& name) {
  const std::string info = s.run({"INFO", "persistence"});
  const size_t at = info.find(name + ":");
  REQUIRE(at != std::string::npos);
  const size_t end = info.find("\r\n", at);
  return info.substr(at + name.size() + 1, end - at - name.size() - 1);
}

// Runs the server's snapshot timer until no BGSAVE child is left (reap
// never blocks), at most 30 s.
void wait_for_bgsave(test::CommandServer& s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (s.state.snapshots().in_progress()) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    s.state.snapshots().cron(s.state);
    if (s.state.snapshots().in_progress()) usleep(1000);
  }
}

const std::string kZeros = "+" + std::string(40, '0') + "\r\n";

TEST_CASE("SAVE writes dump.rdb, counts changes, moves LASTSAVE; a restart loads it") {
  TempDir dir;
  test::CommandServer s(config_in(dir));
  s.run({"SET", "a", "1"});
  s.run({"HSET", "h", "f", "v", "g", "w"});
  s.run({"SADD", "s", "x"});
  CHECK(info_field(s, "rdb_changes_since_last_save") == "3");
  s.state.clock.advance_ms(5000);
  CHECK(s.run({"SAVE"}) == "+OK\r\n");
  CHECK(fs::exists(dir.path / "dump.rdb"));
  CHECK(info_field(s, "rdb_changes_since_last_save") == "0");
  CHECK(info_field(s, "rdb_saves") == "1");
  CHECK(s.run({"LASTSAVE"}) == ":" + std::to_string(s.state.clock.now_ms() / 1000) + "\r\n");
  const std::string digest = s.run({"DEBUG", "DIGEST"});
  CHECK(digest != kZeros);

  test::CommandServer t(config_in(dir));
  const persistence::LoadResult r = t.state.snapshots().load_at_start(t.state);
  REQUIRE_MESSAGE(r.ok(), r.error);
  CHECK(r.keys_loaded == 3);
  CHECK(t.run({"DEBUG", "DIGEST"}) == digest);
  CHECK(info_field(t, "rdb_last_load_keys_loaded") == "3");
  CHECK(t.run({"HGET", "h", "g"}) == "$1\r\nw\r\n");
}

TEST_CASE("DEBUG DIGEST, DIGEST-VALUE and RELOAD") {
  TempDir dir;
  test::CommandServer s(config_in(dir));
  CHECK(s.run({"DEBUG", "DIGEST"}) == kZeros);  // redis
  CHECK(s.run({"DEBUG", "DIGEST-VALUE", "nosuch"}) == "*1\r\n" + kZeros);
  s.run({"SET", "k", "v", "PX", "100000"});
  s.run({"REDE.PUSH", "d", "100", "elem", "id"});
  s.run({"HSET", "h", "f", "1"});
  s.run({"HPEXPIRE", "h", "50000", "FIELDS", "1", "f"});
  const std::string before = s.run({"DEBUG", "DIGEST"});
  const std::string values = s.run({"DEBUG", "DIGEST-VALUE", "k", "d", "h"});
  CHECK(s.run({"DEBUG", "RELOAD"}) == "+OK\r\n");
  CHECK(s.run({"DEBUG", "DIGEST"}) == before);
  CHECK(s.run({"DEBUG", "DIGEST-VALUE", "k", "d", "h"}) == values);
  s.run({"SET", "k", "w"});
  CHECK(s.run({"DEBUG", "DIGEST"}) != before);
  CHECK(s.run({"DEBUG", "DIGEST-VALUE", "k"}) != s.run({"DEBUG", "DIGEST-VALUE", "d"}));

  // A file that does not load leaves the dataset as it was.
  const std::string now = s.run({"DEBUG", "DIGEST"});
  { std::ofstream(dir.path / "dump.rdb", std::ios::trunc) << "REDIS0010\xfe"; }
  CHECK(s.run({"DEBUG", "RELOAD", "NOSAVE"}) == "-ERR Error trying to load the RDB dump\r\n");
  CHECK(s.run({"DEBUG", "DIGEST"}) == now);
  CHECK(s.run({"DEBUG", "RELOAD", "FOO"}) ==
        "-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.\r\n");  // redis
}

TEST_CASE("BGSAVE forks a child that writes the file; the parent reaps it") {
  TempDir dir;
  test::CommandServer s(config_in(dir));
  for (int i = 0; i < 1000; ++i) s.run({"SET", "key:" + std::to_string(i), std::string(100, 'v')});
  const std::string at_fork = s.run({"DEBUG", "DIGEST"});
  CHECK(s.run({"BGSAVE"}) == "+Background saving started\r\n");  // redis
  CHECK(info_field(s, "rdb_bgsave_in_progress") == "1");
  CHECK(s.run({"BGSAVE"}) == "-ERR Background save already in progress\r\n");              // redis
  CHECK(s.run({"BGSAVE", "SCHEDULE"}) == "-ERR Background save already in progress\r\n");  // redis 7.0
  CHECK(s.run({"SAVE"}) == "-ERR Background save already in progress\r\n");                // redis
  s.run({"SET", "during", "x"});  // after the fork: not in the file, still unsaved
  wait_for_bgsave(s);
  CHECK(info_field(s, "rdb_bgsave_in_progress") == "0");
  CHECK(info_field(s, "rdb_last_bgsave_status") == "ok");
  CHECK(info_field(s, "rdb_changes_since_last_save") == "1");
  test::CommandServer t(config_in(dir));
  REQUIRE(t.state.snapshots().load_at_start(t.state).ok());
  CHECK(t.run({"DBSIZE"}) == ":1000\r\n");
  CHECK(t.run({"DEBUG", "DIGEST"}) == at_fork);

  // Inside EXEC a BGSAVE is scheduled; the snapshot timer starts it.
  s.run({"MULTI"});
  s.run({"BGSAVE"});
  CHECK(s.run({"EXEC"}) == "*1\r\n+Background saving scheduled\r\n");  // redis
  CHECK(s.state.snapshots().wants_cron(s.state));
  s.state.snapshots().cron(s.state);
  CHECK(s.state.snapshots().in_progress());
  wait_for_bgsave(s);
  CHECK(info_field(s, "rdb_changes_since_last_save") == "0");

  // A child that cannot write: the status says so.
  fs::remove_all(dir.path);
  CHECK(s.run({"BGSAVE"}) == "+Background saving started\r\n");
  wait_for_bgsave(s);
  CHECK(info_field(s, "rdb_last_bgsave_status") == "err");
  fs::create_directory(dir.path);
}

TEST_CASE("save rules start a BGSAVE once the seconds passed with enough changes") {
  TempDir dir;
  test::CommandServer s(config_in(dir, "10 2"));
  CHECK_FALSE(s.state.snapshots().wants_cron(s.state));
  s.run({"SET", "a", "1"});
  CHECK(s.state.snapshots().wants_cron(s.state));
  s.state.clock.advance_ms(11000);
  s.state.snapshots().cron(s.state);
  CHECK_FALSE(s.state.snapshots().in_progress());  // 1 change of 2
  s.run({"SET", "b", "1"});
  s.state.snapshots().cron(s.state);
  CHECK(s.state.snapshots().in_progress());
  wait_for_bgsave(s);
  CHECK(fs::exists(dir.path / "dump.rdb"));
  CHECK_FALSE(s.state.snapshots().wants_cron(s.state));
  // Not again before the seconds pass anew.
  s.run({"SET", "c", "1"});
  s.run({"SET", "d", "1"});
  s.state.snapshots().cron(s.state);
  CHECK_FALSE(s.state.snapshots().in_progress());
}

TEST_CASE("SHUTDOWN saves when save rules are set or SAVE is given, not with NOSAVE") {
  TempDir dir;
  const fs::path file = dir.path / "dump.rdb";
  {
    test::CommandServer s(config_in(dir, "3600 1"));
    s.run({"SET", "a", "1"});
    CHECK(s.run({"SHUTDOWN", "NOSAVE"}) == "");
    CHECK_FALSE(fs::exists(file));
    CHECK(s.run({"SHUTDOWN"}) == "");
    CHECK(fs::exists(file));
  }
  fs::remove(file);
  {
    test::CommandServer s(config_in(dir));
    CHECK(s.run({"SHUTDOWN"}) == "");
    CHECK_FALSE(fs::exists(file));
    CHECK(s.run({"SHUTDOWN", "SAVE"}) == "");
    CHECK(fs::exists(file));
    // A save that fails keeps the server up, unless FORCE.
    fs::remove_all(dir.path);
    s.state.shutdown_requested = false;
    CHECK(s.run({"SHUTDOWN", "SAVE"}) == "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");  // redis
    CHECK_FALSE(s.state.shutdown_requested);
    CHECK(s.run({"SAVE"}) == "-ERR\r\n");  // redis
    CHECK(s.run({"SHUTDOWN", "SAVE", "FORCE"}) == "");
    CHECK(s.state.shutdown_requested);
    fs::create_directory(dir.path);
  }
}

TEST_CASE("FLUSHALL saves the empty dataset when save rules are set, as Redis 7.0") {
  TempDir dir;
  const fs::path file = dir.path / "dump.rdb";
  {
    test::CommandServer s(config_in(dir));
    s.run({"SET", "a", "1"});
    CHECK(s.run({"FLUSHALL"}) == "+OK\r\n");
    CHECK_FALSE(fs::exists(file));
  }
  test::CommandServer s(config_in(dir, "3600 1"));
  s.run({"SET", "a", "1"});
  CHECK(s.run({"SAVE"}) == "+OK\r\n");
  const auto size_with_key = fs::file_size(file);
  s.run({"SET", "b", "1"});
  CHECK(s.run({"BGSAVE"}) == "+Background saving started\r\n");
  CHECK(s.run({"FLUSHALL"}) == "+OK\r\n");  // stops the child, saves the empty dataset
  CHECK_FALSE(s.state.snapshots().in_progress());
  CHECK(fs::file_size(file) < size_with_key);
  CHECK(info_field(s, "rdb_changes_since_last_save") == "0");  // redis 7.0.15
  test::CommandServer t(config_in(dir));
  REQUIRE(t.state.snapshots().load_at_start(t.state).ok());
  CHECK(t.run({"DBSIZE"}) == ":0\r\n");
}

}  // namespace
}  // namespace lawnkv
