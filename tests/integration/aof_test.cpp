// The append-only file across real restarts: writes answered are on disk
// (the process killed with SIGKILL loses none), the dataset comes back with
// the same DEBUG DIGEST, what expired while down is not served, a last
// command cut by a crash is truncated with a warning, BGREWRITEAOF replaces
// the base and deletes the old files, CONFIG SET appendonly yes at run time
// writes a base from the dataset, and appendfsync always makes a reply wait
// for its record.

#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"
#include "itest.hpp"
#include "stream_dataset.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;
using test::TempDir;
namespace fs = std::filesystem;

ServerProcess start_aof(const TempDir& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--dir", dir.path.string(), "--appendonly", "yes"};
  args.insert(args.end(), extra.begin(), extra.end());
  return ServerProcess::lawnkv(args);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path aof_dir(const TempDir& dir) { return dir.path / "appendonlydir"; }

// Kills the server as a crash would: no shutdown, no final write.
void crash(ServerProcess& s) {
  s.signal(SIGKILL);
  REQUIRE(s.wait_exit(10s).has_value());
}

// A mixed dataset over every type, and some expiry.
void write_dataset(Client& c) {
  for (int i = 0; i < 300; ++i) {
    const std::string n = std::to_string(i);
    c.append({"SET", "k" + n, n, "EX", std::to_string(100000 + i)});
    c.append({"HSET", "h" + std::to_string(i % 7), "f" + n, n});
    c.append({"SADD", "s" + std::to_string(i % 5), i % 2 ? n : "m" + n});
    c.append({"INCRBYFLOAT", "f", "0.1"});
  }
  for (int i = 0; i < 1200; ++i) c.read();
  REQUIRE(c.call({"HPEXPIRE", "h1", "100000000", "FIELDS", "1", "f1"}).elements.size() == 1);
  REQUIRE(c.call({"REDE.PUSH", "q", "3600000", "e", "id1"}) == status("OK"));
  REQUIRE(c.call({"SPOP", "s1"}).type == '$');
  REQUIRE(c.call({"MULTI"}) == status("OK"));
  REQUIRE(c.call({"SELECT", "3"}) == status("QUEUED"));
  REQUIRE(c.call({"SET", "in3", "v"}) == status("QUEUED"));
  REQUIRE(c.call({"EXEC"}).elements.size() == 2);
  write_stream_dataset(c);
}

}  // namespace

TEST_CASE("AOF: every write answered survives SIGKILL; the digest comes back") {
  for (const char* policy : {"always", "everysec", "no"}) {
    CAPTURE(policy);
    TempDir dir;
    std::string digest, streams;
    {
      ServerProcess a = start_aof(dir, {"--appendfsync", policy});
      Client c(a.port());
      write_dataset(c);
      digest = c.call({"DEBUG", "DIGEST"}).text;
      streams = stream_dataset_state(c, true);
      crash(a);
    }
    CHECK(fs::exists(aof_dir(dir) / "appendonly.aof.manifest"));
    ServerProcess b = start_aof(dir);
    Client c(b.port());
    CHECK(c.call({"DEBUG", "DIGEST"}).text == digest);
    CHECK(stream_dataset_state(c, true) == streams);
    CHECK(c.call({"INFO", "persistence"}).text.find("aof_enabled:1") != std::string::npos);
  }
}

TEST_CASE("AOF: keys and fields whose time passed while down are not served; due elements are") {
  TempDir dir;
  {
    ServerProcess a = start_aof(dir);
    Client c(a.port());
    REQUIRE(c.call({"SET", "lives", "v", "EX", "100000"}) == status("OK"));
    // Deadlines 100 s back in real time: past when b starts.
    REQUIRE(c.call({"DEBUG", "ADVANCE-TIME", "-100000"}) == status("OK"));
    REQUIRE(c.call({"SET", "gone", "v", "PX", "50000"}) == status("OK"));
    REQUIRE(c.call({"APPEND", "gone", "x"}) == integer(2));
    REQUIRE(c.call({"HSET", "h", "keep", "1", "drop", "2"}) == integer(2));
    REQUIRE(c.call({"HPEXPIRE", "h", "50000", "FIELDS", "1", "drop"}).elements.size() == 1);
    REQUIRE(c.call({"REDE.PUSH", "q", "50000", "due", "id-due"}) == status("OK"));
    REQUIRE(c.call({"DEBUG", "ADVANCE-TIME", "100000"}) == status("OK"));
    crash(a);
  }
  ServerProcess b = start_aof(dir, {"--notify-keyspace-events", "Ex"});
  Client c(b.port());
  CHECK(c.call({"EXISTS", "gone"}) == integer(0));
  CHECK(info_int(c.call({"INFO", "stats"}).text, "expired_keys") == 0);
  CHECK(c.call({"GET", "lives"}) == bulk("v"));
  CHECK(c.call({"HKEYS", "h"}).elements == std::vector<Reply>{bulk("keep")});
  CHECK(c.call({"REDE.POLL", "q"}).elements == std::vector<Reply>{bulk("due")});
}

TEST_CASE("AOF: a last command cut by a crash is truncated with a warning; a cut elsewhere stops start-up") {
  TempDir dir;
  {
    ServerProcess a = start_aof(dir);
    Client c(a.port());
    REQUIRE(c.call({"SET", "a", "1"}) == status("OK"));
    REQUIRE(c.call({"SET", "b", "2"}) == status("OK"));
    crash(a);
  }
  const fs::path incr = aof_dir(dir) / "appendonly.aof.1.incr.aof";
  std::string bytes = read_file(incr);
  REQUIRE(bytes.size() > 10);
  std::ofstream(incr, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 5);
  {
    ServerProcess b = start_aof(dir);
    Client c(b.port());
    CHECK(c.call({"GET", "a"}) == bulk("1"));
    CHECK(c.call({"EXISTS", "b"}) == integer(0));
    CHECK(b.log().find("short read while loading the AOF file") != std::string::npos);
    REQUIRE(c.call({"SET", "c", "3"}) == status("OK"));  // appended after the cut, not inside it
    crash(b);
  }
  {
    ServerProcess b = start_aof(dir);
    Client c(b.port());
    CHECK(c.call({"MGET", "a", "b", "c"}).elements == std::vector<Reply>{bulk("1"), nil(), bulk("3")});
  }
  // aof-load-truncated no: a cut file stops start-up.
  bytes = read_file(incr);
  std::ofstream(incr, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 3);
  bool threw = false;
  try {
    ServerProcess c3 = start_aof(dir, {"--aof-load-truncated", "no"});
  } catch (const std::exception& e) {
    threw = true;
  }
  CHECK(threw);
}

TEST_CASE("AOF: BGREWRITEAOF makes a new base from the dataset and deletes the old files") {
  TempDir dir;
  std::string digest, streams;
  {
    ServerProcess a = start_aof(dir);
    Client c(a.port());
    write_dataset(c);
    CHECK(c.call({"BGREWRITEAOF"}) == status("Background append only file rewriting started"));
    Client writer(a.port());
    int written = 0;
    // Writes go on while the child writes the base; they land in the new increment.
    REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 30s, [&] {
      REQUIRE(writer.call({"SET", "during:" + std::to_string(written++), "x"}) == status("OK"));
      return info_int(c.call({"INFO", "persistence"}).text, "aof_rewrite_in_progress") == 0;
    }));
    const std::string info = c.call({"INFO", "persistence"}).text;
    CHECK(info.find("aof_last_bgrewrite_status:ok") != std::string::npos);
    CHECK(info_int(info, "aof_rewrites") == 1);
    CHECK(read_file(aof_dir(dir) / "appendonly.aof.manifest") ==
          "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n");
    CHECK_FALSE(fs::exists(aof_dir(dir) / "appendonly.aof.1.base.rdb"));
    CHECK_FALSE(fs::exists(aof_dir(dir) / "appendonly.aof.1.incr.aof"));
    REQUIRE(c.call({"SET", "after", "v"}) == status("OK"));
    REQUIRE(c.call({"XREADGROUP", "GROUP", "g1", "frank", "COUNT", "2", "STREAMS", "st", ">"}).elements.size() == 1);
    digest = c.call({"DEBUG", "DIGEST"}).text;
    streams = stream_dataset_state(c, true);
    crash(a);
  }
  ServerProcess b = start_aof(dir);
  Client c(b.port());
  CHECK(c.call({"DEBUG", "DIGEST"}).text == digest);
  CHECK(stream_dataset_state(c, true) == streams);
}

TEST_CASE("AOF: CONFIG SET appendonly yes writes a base from the dataset; no stops appending") {
  TempDir dir;
  std::string digest;
  {
    ServerProcess a = ServerProcess::lawnkv({"--dir", dir.path.string()});
    Client c(a.port());
    write_dataset(c);
    REQUIRE(c.call({"CONFIG", "SET", "appendonly", "yes"}) == status("OK"));
    CHECK(c.call({"CONFIG", "GET", "appendonly"}).elements.back() == bulk("yes"));
    REQUIRE(c.call({"SET", "after", "v"}) == status("OK"));
    REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 30s, [&] {
      return fs::exists(aof_dir(dir) / "appendonly.aof.manifest");
    }));
    digest = c.call({"DEBUG", "DIGEST"}).text;
    crash(a);
  }
  {
    ServerProcess b = start_aof(dir);
    Client c(b.port());
    CHECK(c.call({"DEBUG", "DIGEST"}).text == digest);
    REQUIRE(c.call({"CONFIG", "SET", "appendonly", "no"}) == status("OK"));
    REQUIRE(c.call({"SET", "unlogged", "v"}) == status("OK"));
    CHECK(c.call({"INFO", "persistence"}).text.find("aof_enabled:0") != std::string::npos);
    crash(b);
  }
  ServerProcess b = start_aof(dir);
  Client c(b.port());
  CHECK(c.call({"EXISTS", "unlogged"}) == integer(0));
  CHECK(c.call({"DEBUG", "DIGEST"}).text == digest);
}

TEST_CASE("AOF: under appendfsync always a write's reply leaves after its record is written") {
  TempDir dir;
  ServerProcess a = start_aof(dir, {"--appendfsync", "always"});
  Client c(a.port());
  const fs::path incr = aof_dir(dir) / "appendonly.aof.1.incr.aof";
  for (int i = 0; i < 50; ++i) {
    const auto before = fs::file_size(incr);
    REQUIRE(c.call({"SET", "k", std::to_string(i)}) == status("OK"));
    CHECK(fs::file_size(incr) > before);
  }
  // Pipelined writes share the loop iteration's fdatasync.
  for (int i = 0; i < 1000; ++i) c.append({"INCR", "n"});
  for (int i = 0; i < 1000; ++i) c.read();
  CHECK(read_file(incr).find("INCR") != std::string::npos);
}

TEST_CASE("AOF: BGREWRITEAOF and BGSAVE take turns, as Redis") {
  TempDir dir;
  ServerProcess a = start_aof(dir);
  Client c(a.port());
  for (int i = 0; i < 200000; ++i) c.append({"SET", "key:" + std::to_string(i), std::string(100, 'v')});
  for (int i = 0; i < 200000; ++i) c.read();
  REQUIRE(c.call({"BGREWRITEAOF"}) == status("Background append only file rewriting started"));
  const Reply again = c.call({"BGREWRITEAOF"});
  const Reply save = c.call({"BGSAVE"});
  const std::string info = c.call({"INFO", "persistence"}).text;
  if (info_int(info, "aof_rewrite_in_progress") == 1) {
    CHECK(again == error("ERR Background append only file rewriting already in progress"));
    CHECK(save == error("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE "
                        "in order to schedule a BGSAVE whenever possible."));
  }
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 60s, [&] {
    return info_int(c.call({"INFO", "persistence"}).text, "aof_rewrite_in_progress") == 0;
  }));
}

}  // namespace lawnkv::itest

namespace lawnkv::itest {
namespace {

// One crash round: a client pipelines writes in batches of 16, some in a
// MULTI/EXEC of two keys, plus dehydrator pushes and polls, until the
// server is killed (SIGKILL) after `kill_after`; what it saw acknowledged is
// returned. Keys are unique to the round.
struct Acked {
  std::vector<std::string> keys;                 // SET k v answered +OK
  std::vector<std::pair<std::string, std::string>> pairs;  // MULTI { SET a; SET b } answered
  std::vector<std::string> pushed;               // REDE.PUSH answered +OK (ids)
  std::set<std::string> polled;                  // elements REDE.POLL returned
  int unanswered = 0;                            // sent, no reply before the kill
  bool poll_unanswered = false;                  // a POLL went out without its reply
  // Stream "cs", group "g": entries XADD answered with their ID, entries an
  // answered XREADGROUP delivered, and those XACK answered as acknowledged
  // (or that an XACK without reply may have acknowledged).
  std::vector<std::string> xadded;
  std::vector<std::string> delivered;
  std::set<std::string> acked, maybe_acked;
};

Acked write_until_killed(ServerProcess& s, int round, std::chrono::milliseconds kill_after) {
  Acked a;
  std::atomic<bool> killed{false};
  std::thread killer([&] {
    std::this_thread::sleep_for(kill_after);
    s.signal(SIGKILL);
    killed = true;
  });
  try {
    Client c(s.port(), 2s);
    c.call({"XGROUP", "CREATE", "cs", "g", "$", "MKSTREAM"});  // BUSYGROUP after the first round
    size_t next_ack = 0;  // a.delivered[next_ack] is the next to acknowledge
    for (int batch = 0; !killed; ++batch) {
      std::vector<std::function<void(const Reply&)>> expect;
      for (int i = 0; i < 16; ++i) {
        const std::string id = std::to_string(round) + ":" + std::to_string(batch) + ":" + std::to_string(i);
        switch (i % 8) {
          case 0:
            c.append({"MULTI"});
            c.append({"SET", "a:" + id, id});
            c.append({"SET", "b:" + id, id});
            c.append({"EXEC"});
            expect.push_back([](const Reply&) {});
            expect.push_back([](const Reply&) {});
            expect.push_back([](const Reply&) {});
            expect.push_back([&a, id](const Reply& r) {
              if (r.type == '*' && r.elements.size() == 2) a.pairs.emplace_back("a:" + id, "b:" + id);
            });
            break;
          case 1:
            c.append({"REDE.PUSH", "q", "0", "e:" + id, "id:" + id});
            expect.push_back([&a, id](const Reply& r) {
              if (r == status("OK")) a.pushed.push_back("id:" + id);
            });
            break;
          case 2:
            c.append({"REDE.POLL", "q"});
            a.poll_unanswered = true;  // until its reply comes
            expect.push_back([&a](const Reply& r) {
              for (const Reply& e : r.elements) a.polled.insert(e.text);
              a.poll_unanswered = false;
            });
            break;
          case 3:
            c.append({"XADD", "cs", "*", "id", id});
            expect.push_back([&a](const Reply& r) {
              if (r.type == '$' && !r.null) a.xadded.push_back(r.text);
            });
            break;
          case 4:
            c.append({"XREADGROUP", "GROUP", "g", "w" + std::to_string(batch % 3), "COUNT", "2", "STREAMS", "cs", ">"});
            expect.push_back([&a](const Reply& r) {
              if (r.elements.size() != 1) return;
              for (const Reply& e : r.elements[0].elements[1].elements) a.delivered.push_back(e.elements[0].text);
            });
            break;
          case 5: {
            if (next_ack >= a.delivered.size()) {
              c.append({"PING"});
              expect.push_back([](const Reply&) {});
              break;
            }
            const std::string entry = a.delivered[next_ack++];
            c.append({"XACK", "cs", "g", entry});
            a.maybe_acked.insert(entry);  // until its reply comes
            expect.push_back([&a, entry](const Reply& r) {
              a.maybe_acked.erase(entry);
              if (r == integer(1)) a.acked.insert(entry);
            });
            break;
          }
          default:
            c.append({"SET", "k:" + id, id});
            expect.push_back([&a, id](const Reply& r) {
              if (r == status("OK")) a.keys.push_back("k:" + id);
            });
        }
      }
      for (size_t i = 0; i < expect.size(); ++i) {
        try {
          expect[i](c.read());
        } catch (const std::exception&) {
          a.unanswered += static_cast<int>(expect.size() - i);
          throw;
        }
      }
    }
  } catch (const std::exception&) {
    // The connection died with the server: what was answered is in `a`.
  }
  killer.join();
  REQUIRE(s.wait_exit(10s).has_value());
  return a;
}

}  // namespace

TEST_CASE("AOF crash test: kill -9 at random moments under pipelined writes loses nothing answered") {
  // 20 kills under always, 12 under everysec (which loses nothing either:
  // a record is in the file before its reply leaves; only a power failure
  // could lose the last second of everysec).
  for (const char* policy : {"always", "everysec"}) {
    CAPTURE(policy);
    TempDir dir;
    std::mt19937 rng(42);
    Acked all;
    size_t answered = 0;
    // An element pushed before a POLL whose reply never came may have been
    // taken by it (POLL hands out at most once): only later ones must stay.
    size_t maybe_taken = 0;
    const int rounds = std::string(policy) == "always" ? 20 : 12;
    for (int round = 0; round < rounds; ++round) {
      ServerProcess s = start_aof(dir, {"--appendfsync", policy});
      const Acked a = write_until_killed(s, round, std::chrono::milliseconds(30 + rng() % 250));
      answered += a.keys.size() + a.pairs.size() + a.pushed.size();
      all.keys.insert(all.keys.end(), a.keys.begin(), a.keys.end());
      all.pairs.insert(all.pairs.end(), a.pairs.begin(), a.pairs.end());
      all.pushed.insert(all.pushed.end(), a.pushed.begin(), a.pushed.end());
      all.polled.insert(a.polled.begin(), a.polled.end());
      if (a.poll_unanswered) maybe_taken = all.pushed.size();
      answered += a.xadded.size() + a.delivered.size() + a.acked.size();
      all.xadded.insert(all.xadded.end(), a.xadded.begin(), a.xadded.end());
      all.delivered.insert(all.delivered.end(), a.delivered.begin(), a.delivered.end());
      all.acked.insert(a.acked.begin(), a.acked.end());
      all.maybe_acked.insert(a.maybe_acked.begin(), a.maybe_acked.end());
    }
    ServerProcess s = start_aof(dir, {"--appendfsync", policy});
    Client c(s.port());
    size_t lost = 0, lost_pairs = 0, lost_pushes = 0;
    for (const std::string& k : all.keys) lost += c.call({"EXISTS", k}) != integer(1);
    for (const auto& [ka, kb] : all.pairs) lost_pairs += c.call({"EXISTS", ka, kb}) != integer(2);
    // No element answered as pushed is lost: still waiting, or returned by a POLL.
    for (size_t i = maybe_taken; i < all.pushed.size(); ++i) {
      const std::string& id = all.pushed[i];
      if (all.polled.count("e:" + id.substr(3))) continue;
      lost_pushes += c.call({"REDE.LOOK", "q", id}).null;
    }
    // None returned by a POLL comes back.
    size_t back = 0;
    for (const Reply& e : c.call({"REDE.POLL", "q"}).elements) back += all.polled.count(e.text);
    // Every entry XADD answered is in the stream; every delivered entry not
    // acknowledged is pending, and none acknowledged is.
    std::set<std::string> in_stream, pending;
    for (const Reply& e : c.call({"XRANGE", "cs", "-", "+"}).elements) in_stream.insert(e.elements[0].text);
    for (const Reply& e : c.call({"XPENDING", "cs", "g", "-", "+", "100000000"}).elements)
      pending.insert(e.elements[0].text);
    size_t lost_entries = 0, lost_pending = 0, acked_pending = 0;
    for (const std::string& id : all.xadded) lost_entries += in_stream.count(id) == 0;
    for (const std::string& id : all.delivered)
      if (!all.acked.count(id) && !all.maybe_acked.count(id)) lost_pending += pending.count(id) == 0;
    for (const std::string& id : all.acked) acked_pending += pending.count(id);
    CHECK(lost_entries == 0);
    CHECK(lost_pending == 0);
    CHECK(acked_pending == 0);
    CHECK(all.delivered.size() > 100);
    CHECK(all.acked.size() > 50);
    CHECK(lost == 0);
    CHECK(lost_pairs == 0);
    CHECK(lost_pushes == 0);
    CHECK(back == 0);
    CHECK(answered > 1000);
    MESSAGE("appendfsync " << std::string(policy) << ": " << rounds << " kills, " << answered << " answered writes, " << lost
                           << " keys, " << lost_pairs << " transactions, " << lost_pushes << " pushes lost, " << back
                           << " polled elements back; " << all.xadded.size() << " stream entries, "
                           << all.delivered.size() << " delivered, " << all.acked.size() << " acknowledged: "
                           << lost_entries << " entries, " << lost_pending << " pending entries lost, "
                           << acked_pending << " acknowledged ones pending");
  }
}

TEST_CASE("AOF: no half transaction after a kill; pipelined MULTI blocks whole or absent") {
  TempDir dir;
  for (int round = 0; round < 8; ++round) {
    ServerProcess s = start_aof(dir);
    write_until_killed(s, 100 + round, std::chrono::milliseconds(20 + 37 * round));
  }
  ServerProcess s = start_aof(dir);
  Client c(s.port());
  const Reply keys = c.call({"KEYS", "a:*"});
  for (const Reply& k : keys.elements) CHECK(c.call({"EXISTS", "b:" + k.text.substr(2)}) == integer(1));
  CHECK(c.call({"KEYS", "b:*"}).elements.size() == keys.elements.size());
}

}  // namespace lawnkv::itest

namespace lawnkv::itest {

TEST_CASE("AOF: the files past auto-aof-rewrite-percentage of the base start a rewrite by themselves") {
  TempDir dir;
  ServerProcess a = start_aof(dir, {"--auto-aof-rewrite-percentage", "100", "--auto-aof-rewrite-min-size", "1mb"});
  Client c(a.port());
  for (int i = 0; i < 4000; ++i) c.append({"SET", "k" + std::to_string(i % 100), std::string(500, 'v')});
  for (int i = 0; i < 4000; ++i) c.read();
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 30s, [&] {
    return info_int(c.call({"INFO", "persistence"}).text, "aof_rewrites") >= 1;
  }));
  // The rewrite shrank the files to about the dataset (100 keys, LZF-packed
  // in the base).
  const std::string info = c.call({"INFO", "persistence"}).text;
  CHECK(info_int(info, "aof_current_size") < 1000000);
  CHECK(info_int(info, "aof_base_size") > 0);
  CHECK(c.call({"STRLEN", "k7"}) == integer(500));
}

}  // namespace lawnkv::itest
