// Expiry in the running server, driven by the server's own clock and never
// by sleeping: DEBUG ADVANCE-TIME <ms> moves lawnkv's clock (forward or
// back), DEBUG FREEZE-TIME 1|0 stops it and lets it run again (a test that
// looks at a key at its deadline stops it, so that the real time its round
// trips take moves nothing), and DEBUG SET-ACTIVE-EXPIRE 0|1 turns the
// active cycle off and on.
//
// Reading the server's "now" exactly: a sentinel key whose deadline is far
// ahead (kFar) turns PTTL into a clock, now = kFar - PTTL.

#include <doctest/doctest.h>

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/escape.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::escape_bytes;
using test::RawClient;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

constexpr long long kFar = 32503680000000LL;  // 3000-01-01 in Unix ms
const char* const kClockKey = "__clock";

// The server's Unix time in ms as TIME reports it.
long long time_ms(Client& c) {
  Reply t = c.call({"TIME"});
  REQUIRE_MESSAGE(t.elements.size() == 2, "TIME replied ", escape_bytes(wire(t)));
  return std::stoll(t.elements[0].text) * 1000 + std::stoll(t.elements[1].text) / 1000;
}

void advance(Client& c, long long ms) {
  REQUIRE(c.call(Argv{"DEBUG", "ADVANCE-TIME", std::to_string(ms)}) == status("OK"));
}

void freeze_time(Client& c, bool on) {
  REQUIRE(c.call(Argv{"DEBUG", "FREEZE-TIME", on ? "1" : "0"}) == status("OK"));
}

void set_active_expire(Client& c, bool on) {
  REQUIRE(c.call({"DEBUG", "SET-ACTIVE-EXPIRE", on ? "1" : "0"}) == status("OK"));
}

// Creates the sentinel clock key.
void start_clock(Client& c) {
  REQUIRE(c.call(Argv{"SET", kClockKey, "t", "PXAT", std::to_string(kFar)}) == status("OK"));
}

// The server's now in ms, from the sentinel (the server's expiry clock).
long long clock_ms(Client& c) {
  Reply r = c.call({"PTTL", kClockKey});
  REQUIRE(r.type == ':');
  return kFar - std::stoll(r.text);
}

long long dbsize(Client& c) { return c.integer({"DBSIZE"}); }

long long expired_keys(Client& c) { return info_int(c.call({"INFO", "stats"}).text, "expired_keys"); }

// keys= and expires= of db0 in INFO keyspace (0 when db0 is not listed).
std::pair<long long, long long> keyspace_db0(Client& c) {
  std::string info = c.call({"INFO", "keyspace"}).text;
  return {info_sub(info, "db0", "keys").value_or(0), info_sub(info, "db0", "expires").value_or(0)};
}

// Round trips on `c`: each takes the server through at least one loop
// iteration, where an (early) active reap would have run.
void round_trips(Client& c, int n) {
  for (int i = 0; i < n; ++i) REQUIRE(c.call({"PING"}) == status("PONG"));
}

TEST_CASE("DEBUG ADVANCE-TIME moves the clock that TIME and TTLs read") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  start_clock(c);
  const long long before = clock_ms(c);
  CHECK(std::llabs(time_ms(c) - before) <= 1000);
  advance(c, 3'600'000);
  const long long after = clock_ms(c);
  CHECK(after - before >= 3'600'000);
  CHECK(after - before < 3'600'000 + 5'000);
  // TIME reads the same moved clock.
  CHECK(std::llabs(time_ms(c) - after) <= 1000);
  advance(c, -7'200'000);
  CHECK(clock_ms(c) - after <= -7'200'000 + 5'000);
  CHECK(std::llabs(time_ms(c) - clock_ms(c)) <= 1000);
}

// DEBUG FREEZE-TIME 1 stops the clock: TIME and TTLs read the same across a
// real delay (DEBUG SLEEP blocks the server that long), and a key whose TTL
// is shorter than the delay stays, active expiry on. ADVANCE-TIME still
// moves it, exactly. FREEZE-TIME 0 lets it run again from the wall clock,
// the offset kept: the real time spent frozen shows at once.
TEST_CASE("DEBUG FREEZE-TIME stops the clock; ADVANCE-TIME still moves it; 0 lets it run again") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  start_clock(c);
  freeze_time(c, true);
  const long long frozen = clock_ms(c);
  const std::string time = wire(c.call({"TIME"}));
  REQUIRE(c.call({"SET", "k", "v", "PX", "100"}) == status("OK"));
  REQUIRE(c.call({"DEBUG", "SLEEP", "0.15"}) == status("OK"));
  CHECK(clock_ms(c) == frozen);
  CHECK(wire(c.call({"TIME"})) == time);  // to the microsecond
  CHECK(c.call({"PTTL", "k"}) == integer(100));
  CHECK(dbsize(c) == 2);
  // Freezing again changes nothing.
  freeze_time(c, true);
  CHECK(clock_ms(c) == frozen);

  advance(c, 60);
  CHECK(clock_ms(c) == frozen + 60);
  CHECK(time_ms(c) == frozen + 60);
  CHECK(c.call({"PTTL", "k"}) == integer(40));

  freeze_time(c, false);
  // The 150 ms slept (and more) show now: k's 40 ms are past.
  const long long thawed = clock_ms(c);
  CHECK(thawed >= frozen + 60 + 150);
  CHECK(c.call({"EXISTS", "k"}) == integer(0));
  // The wall clock plus the 60 ms that ADVANCE-TIME added.
  const long long wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  CHECK(std::llabs(thawed - (wall + 60)) < 1000);
  REQUIRE(c.call({"DEBUG", "SLEEP", "0.01"}) == status("OK"));
  CHECK(clock_ms(c) >= thawed + 10);

  CHECK(c.call({"DEBUG", "FREEZE-TIME", "x"}) == error("ERR value is not an integer or out of range"));
  CHECK(c.call({"DEBUG", "FREEZE-TIME"}) ==
        error("ERR unknown subcommand or wrong number of arguments for 'FREEZE-TIME'. Try DEBUG HELP."));
}

// A clock before 1970 made every relative deadline negative (EXPIRE k 100
// then aborted in the expiry index's assert), and offsets past INT64_MAX us
// wrapped. DEBUG ADVANCE-TIME refuses both; the clock stays where it was.
TEST_CASE("DEBUG ADVANCE-TIME keeps the clock within [0, year 146,000]") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  const long long now = time_ms(c);
  REQUIRE(c.call({"SET", "k", "v"}) == status("OK"));
  for (long long ms : {-now - 1'000'000'000, -now - 1'000'000, LLONG_MIN, LLONG_MIN / 1000, LLONG_MAX, LLONG_MAX / 1000,
                       LLONG_MAX / 2000}) {
    CAPTURE(ms);
    CHECK(c.call(Argv{"DEBUG", "ADVANCE-TIME", std::to_string(ms)}) ==
          error("ERR the clock would leave its range (0 to year 146,000)"));
    CHECK(c.call({"EXPIRE", "k", "100"}) == integer(1));
    CHECK(c.call({"TTL", "k"}) == integer(100));
  }
  CHECK(std::llabs(time_ms(c) - now) < 60'000);
  // To 1 s after 1970 and back is fine.
  advance(c, -now + 1000);
  CHECK(time_ms(c) < 60'000);
  CHECK(c.call({"EXPIRE", "k", "100"}) == integer(1));
  advance(c, now - 1000);
  CHECK(server.running());
}

// Redis's rule: a key exists while now <= deadline. With the server's clock
// stopped the test lands it exactly on the deadlines (an absolute one and a
// relative one, set at the same stopped instant), then 1 ms past them,
// whatever real time the round trips take.
TEST_CASE("a key exists at now == deadline and is gone at deadline + 1") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  set_active_expire(c, false);
  start_clock(c);
  freeze_time(c, true);
  const long long deadline = clock_ms(c) + 100'000;
  REQUIRE(c.call(Argv{"SET", "at", "v", "PXAT", std::to_string(deadline)}) == status("OK"));
  REQUIRE(c.call({"SET", "px", "v", "PX", "100000"}) == status("OK"));
  CHECK(c.call({"PEXPIRETIME", "px"}) == integer(deadline));

  advance(c, 100'000);
  REQUIRE(clock_ms(c) == deadline);
  CHECK(c.call({"EXISTS", "at", "px"}) == integer(2));
  CHECK(c.call({"GET", "at"}) == bulk("v"));
  CHECK(c.call({"GET", "px"}) == bulk("v"));
  CHECK(c.call({"PTTL", "at"}) == integer(0));

  advance(c, 1);
  REQUIRE(clock_ms(c) == deadline + 1);
  CHECK(c.call({"GET", "at"}) == nil());
  CHECK(c.call({"EXISTS", "at", "px"}) == integer(0));
  CHECK(dbsize(c) == 1);  // the clock's sentinel alone
}

// Setting a time already past, side by side with redis-server (active
// expiry off on both, so only the commands themselves act): EXPIRE and
// GETEX delete the key at once; SET ... PXAT <past> stores a key that is
// already expired, invisible to every read and removed on first access.
TEST_CASE("SET, EXPIRE and GETEX with a time already past, as redis-server") {
  auto lawnkv = ServerProcess::lawnkv();
  auto redis = ServerProcess::redis();
  const std::vector<Argv> script = {
      {"DEBUG", "SET-ACTIVE-EXPIRE", "0"},
      {"SET", "a", "v", "PXAT", "1"},
      {"SET", "b", "v", "EXAT", "1"},
      {"DBSIZE"},
      {"SET", "c", "v"},
      {"EXPIRE", "c", "-1"},
      {"SET", "d", "v"},
      {"PEXPIREAT", "d", "1"},
      {"SET", "e", "v"},
      {"EXPIREAT", "e", "0"},
      {"SET", "f", "v"},
      {"GETEX", "f", "PXAT", "1"},
      {"SET", "g", "v"},
      {"SETEX", "g", "0", "v"},
      {"PSETEX", "g", "-5", "v"},
      {"DBSIZE"},
      {"INFO-expired_keys"},
      {"EXISTS", "a", "b", "c", "d", "e", "f"},
      {"GET", "a"},
      {"TTL", "b"},
      {"DBSIZE"},
      {"INFO-expired_keys"},
      {"SET", "h", "v", "PXAT", "1", "GET"},
      {"SET", "h", "v2", "PXAT", "1", "GET"},
      {"GET", "h"},
      {"DBSIZE"},
      {"INFO-expired_keys"},
  };
  Client l(lawnkv.port());
  Client r(redis.port());
  auto run = [](Client& c, const Argv& argv) {
    if (argv[0] == "INFO-expired_keys") return "expired_keys:" + std::to_string(expired_keys(c));
    return escape_bytes(wire(c.call(argv)));
  };
  for (const Argv& argv : script) {
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    INFO("after: ", cmd);
    CHECK(run(l, argv) == run(r, argv));
  }
}

TEST_CASE("active expiry reaps keys nobody touches, once their deadline passes") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  const long long now = time_ms(c);
  // Hot TTLs (one Lawn queue), absolute deadlines (the wheel), and keys
  // without TTL.
  for (int i = 0; i < 100; ++i) c.append(Argv{"SET", "ttl:" + std::to_string(i), "v", "PX", "100000"});
  for (int i = 0; i < 100; ++i)
    c.append(Argv{"SET", "at:" + std::to_string(i), "v", "PXAT", std::to_string(now + 100'000 + i * 37)});
  for (int i = 0; i < 50; ++i) c.append(Argv{"SET", "keep:" + std::to_string(i), "v"});
  for (int i = 0; i < 250; ++i) REQUIRE(c.read() == status("OK"));

  CHECK(dbsize(c) == 250);
  CHECK(keyspace_db0(c) == std::pair<long long, long long>{250, 200});
  CHECK(expired_keys(c) == 0);

  // Half way: nothing is due, nothing goes.
  advance(c, 50'000);
  CHECK(dbsize(c) == 250);
  CHECK(expired_keys(c) == 0);

  // Past every deadline: the cycle reaps them all without any access.
  advance(c, 60'000);
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 50; }));
  CHECK(keyspace_db0(c) == std::pair<long long, long long>{50, 0});
  CHECK(expired_keys(c) == 200);
  CHECK(info_int(c.call({"INFO", "expiry"}).text, "expired_lag_samples") == 200);
  CHECK(c.call({"GET", "keep:7"}) == bulk("v"));
  CHECK(c.call({"EXISTS", "ttl:0", "at:99"}) == integer(0));
  CHECK(expired_keys(c) == 200);
}

// The loop sleeps until the next deadline: a key with a real 30 ms TTL goes
// without any access, no clock moved.
TEST_CASE("active expiry wakes for the next deadline in real time") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  REQUIRE(c.call({"SET", "soon", "v", "PX", "30"}) == status("OK"));
  REQUIRE(c.call({"SET", "later", "v", "PX", "600000"}) == status("OK"));
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 1; }));
  CHECK(expired_keys(c) == 1);
  CHECK(c.call({"EXISTS", "later"}) == integer(1));
  // lawnkv's expiry lag (INFO expiry: reap time - deadline) of that one key: at least
  // 1 ms (never early), and on time; the bound is generous for a loaded CI.
  const std::string stats = c.call({"INFO", "expiry"}).text;
  CHECK(info_int(stats, "expired_lag_samples") == 1);
  const long long lag = info_int(stats, "expired_lag_max_ms");
  MESSAGE("expiry lag of a key with a real 30 ms TTL: ", lag, " ms");
  CHECK(lag >= 1);
  CHECK(lag <= 100);
}

// CPU time (user + system) the process has used so far, from
// /proc/<pid>/stat (fields 14 and 15, after the parenthesised name).
std::chrono::milliseconds cpu_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t name_end = stat.rfind(')');
  REQUIRE_MESSAGE(name_end != std::string::npos, "cannot read /proc/", pid, "/stat");
  std::istringstream fields(stat.substr(name_end + 2));  // from field 3 (state) on
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;
  long long utime = 0, stime = 0;
  fields >> utime >> stime;
  REQUIRE(fields);
  return std::chrono::milliseconds((utime + stime) * 1000 / sysconf(_SC_CLK_TCK));
}

// How much CPU the server burns while nobody talks to it, over a window of
// real time. The window is what is measured, not a wait for some event.
std::chrono::milliseconds idle_cpu(const ServerProcess& server, std::chrono::milliseconds window) {
  const auto before = cpu_time(server.pid());
  std::this_thread::sleep_for(window);
  return cpu_time(server.pid()) - before;
}

// A deadline so far away that (deadline + 1) * 1000 overflows int64 once
// made into microseconds must put the loop to sleep, not wake it at once
// forever. A busy loop burns the whole window; an idle server next to nothing.
TEST_CASE("a deadline centuries away leaves an idle server idle") {
  constexpr auto kWindow = 400ms;
  constexpr auto kMostCpu = 100ms;  // a busy loop uses about kWindow
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  auto check_idle = [&] {
    const auto cpu = idle_cpu(server, kWindow);
    MESSAGE("CPU used in ", kWindow.count(), " ms idle: ", cpu.count(), " ms");
    CHECK(cpu < kMostCpu);
  };
  SUBCASE("a key") {
    // 1e16 and 4.6e18 overflowed (deadline + 1) * 1000; 2^61, 2^62 and
    // 6 * 2^60 wrapped it to a negative wait; the last two are the end of time.
    const char* at[] = {"10000000000000000",   "4600000000000000000", "2305843009213693952",
                        "4611686018427387904", "6917529027641081856", "9223372036854775806",
                        "9223372036854775807"};
    for (const char* deadline : at) {
      CAPTURE(deadline);
      REQUIRE(c.call({"SET", "far", "v", "PXAT", deadline}) == status("OK"));
      check_idle();
      CHECK(c.call({"DEL", "far"}) == integer(1));
    }
  }
  SUBCASE("a client blocked in REDE.BPOLL on an element due that late") {
    REQUIRE(c.call({"REDE.PUSH", "q", "10000000000000000", "v", "id"}) == status("OK"));
    RawClient waiter(server.port());
    waiter.send(encode_command({"REDE.BPOLL", "q", "0"}));
    REQUIRE(test::poll_until(SteadyClock::now() + 5s, [&] {
      return info_int(c.call({"INFO", "clients"}).text, "blocked_clients") == 1;
    }));
    check_idle();
    CHECK(c.call({"PING"}) == status("PONG"));
  }
}

TEST_CASE("with active expiry off keys stay until accessed; expired_keys counts each key once") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  set_active_expire(c, false);
  const long long deadline = time_ms(c) + 100'000;
  for (int i = 0; i < 20; ++i)
    REQUIRE(c.call(Argv{"SET", "k" + std::to_string(i), "v", "PXAT", std::to_string(deadline)}) == status("OK"));
  advance(c, 200'000);

  // Due, but nobody looked: still counted, however long we wait.
  CHECK(dbsize(c) == 20);
  round_trips(c, 3);
  CHECK(dbsize(c) == 20);
  CHECK(expired_keys(c) == 0);
  CHECK(keyspace_db0(c) == std::pair<long long, long long>{20, 20});

  // Lazy expiry: each access finds its key gone and counts it once.
  for (int i = 0; i < 8; ++i) CHECK(c.call(Argv{"GET", "k" + std::to_string(i)}) == nil());
  CHECK(expired_keys(c) == 8);
  for (int i = 0; i < 8; ++i) CHECK(c.call(Argv{"TTL", "k" + std::to_string(i)}) == integer(-2));
  CHECK(expired_keys(c) == 8);
  CHECK(dbsize(c) == 12);

  // Active expiry back on: the rest go, each counted once.
  set_active_expire(c, true);
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 0; }));
  CHECK(expired_keys(c) == 20);
  const std::string expiry = c.call({"INFO", "expiry"}).text;
  CHECK(info_int(expiry, "expired_active") == 12);
  CHECK(info_int(expiry, "expired_lazy") == 8);
  CHECK(info_int(expiry, "expired_lag_samples") == 12);
  CHECK(keyspace_db0(c) == std::pair<long long, long long>{0, 0});
  for (int i = 0; i < 20; ++i) CHECK(c.call(Argv{"GET", "k" + std::to_string(i)}) == nil());
  CHECK(expired_keys(c) == 20);
}

// expired_stale_perc means what Redis's does: the share of keys with a TTL
// that are past their deadline but still in memory. Active expiry is off
// here, so every key with a TTL stays once due; keys without one do not count.
TEST_CASE("expired_stale_perc is the share of keys with a TTL that are due but not yet deleted") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  auto stale_perc = [&] { return info_field(c.call({"INFO", "stats"}).text, "expired_stale_perc"); };
  set_active_expire(c, false);
  const long long deadline = time_ms(c) + 100'000;
  for (int i = 0; i < 20; ++i)
    REQUIRE(c.call(Argv{"SET", "k" + std::to_string(i), "v", "PXAT", std::to_string(deadline)}) == status("OK"));
  for (int i = 0; i < 5; ++i) REQUIRE(c.call(Argv{"SET", "p" + std::to_string(i), "v"}) == status("OK"));
  CHECK(stale_perc() == "0.00");
  advance(c, 200'000);
  CHECK(stale_perc() == "100.00");
  set_active_expire(c, true);
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 5; }));
  CHECK(stale_perc() == "0.00");
}

// A clock that steps back must not make the engine reap early when it moves
// forward again, nor lose a key. Deadlines are absolute: a TTL set while the
// clock is an hour back makes a deadline an hour earlier.
TEST_CASE("the clock stepping back and forth reaps nothing early and loses nothing") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  start_clock(c);
  const long long now = clock_ms(c);
  const long long d1 = now + 100'000, d2 = now + 100'500;
  REQUIRE(c.call(Argv{"SET", "a", "v", "PXAT", std::to_string(d1)}) == status("OK"));
  REQUIRE(c.call({"SET", "b", "v", "PX", "100500"}) == status("OK"));  // deadline about d2
  REQUIRE(c.call(Argv{"SET", "c", "v", "PXAT", std::to_string(d2 + 60'000)}) == status("OK"));

  advance(c, -3'600'000);  // an hour back: nothing is due, and nothing goes
  round_trips(c, 3);
  CHECK(dbsize(c) == 4);
  REQUIRE(c.call({"SET", "d", "v", "PX", "100000"}) == status("OK"));  // deadline about now - 3,500 s
  CHECK(c.call({"PTTL", "a"}).text.size() == 7);                      // about 3,700,000 ms

  // Forward to d1 - 1 s: d is long due and goes; a, b and c are not due.
  advance(c, d1 - 1'000 - clock_ms(c));
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 4; }));
  round_trips(c, 3);
  CHECK(dbsize(c) == 4);
  CHECK(c.call({"EXISTS", "a", "b", "c", "d"}) == integer(3));

  // Past d2: a and b go, actively.
  advance(c, d2 + 2'000 - clock_ms(c));
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 2; }));
  CHECK(c.call({"EXISTS", "c"}) == integer(1));

  // Back again, then forward past c's deadline: c goes exactly once.
  advance(c, -100'000);
  round_trips(c, 3);
  CHECK(c.call({"EXISTS", "c"}) == integer(1));
  advance(c, 100'000 + 60'000);
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 1; }));
  CHECK(c.call({"EXISTS", kClockKey}) == integer(1));
  CHECK(expired_keys(c) == 4);
}

long long stat(Client& c, const char* section, const char* field) {
  return info_int(c.call({"INFO", section}).text, field);
}

// Loads n keys "<prefix><i>" with the same TTL, pipelined.
void load_px(uint16_t port, const std::string& prefix, int n, long long ttl_ms) {
  RawClient loader(port, 30s);
  std::string load;
  for (int i = 0; i < n; ++i)
    load += encode_command({"SET", prefix + std::to_string(i), "value", "PX", std::to_string(ttl_ms)});
  loader.send(load);
  for (int i = 0; i < n; ++i) REQUIRE(loader.read_reply() == "+OK\r\n");
}

// expired_time_cap_reached_count means what Redis's does: cycles that
// stopped at their time limit, not chunks of keys. 1,000 due keys are 8
// chunks of 128, and far less than a budget of 1 s of work.
TEST_CASE("a cycle that reaps every due key within its budget reaches no time cap") {
  constexpr int kKeys = 1'000;
  auto server = ServerProcess::lawnkv({"--expiry-budget-us", "1000000"});
  Client c(server.port());
  load_px(server.port(), "k", kKeys, 100'000);
  advance(c, 200'000);
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return dbsize(c) == 0; }));
  CHECK(stat(c, "stats", "expired_keys") == kKeys);
  CHECK(stat(c, "stats", "expired_time_cap_reached_count") == 0);
  CHECK(stat(c, "expiry", "expire_cycles") >= 1);
}

// 100,000 keys fall due at the same moment. Each cycle stops at its budget
// and the loop serves clients before the next one, so another client's
// PINGs are answered while keys remain. The budget is the smallest, 1 us
// (one chunk of 128 keys a cycle), so that the drain takes hundreds of
// cycles whatever the machine's speed. The keys share one TTL (a Lawn
// queue): nothing but the budget splits their drain, which a wheel slot's
// cascade would also do.
TEST_CASE("100,000 keys due at once are reaped while PINGs are answered") {
  constexpr int kKeys = 100'000;
  auto server = ServerProcess::lawnkv({"--expiry-budget-us", "1"});
  Client admin(server.port());
  load_px(server.port(), "mass:", kKeys, 1'000'000);
  REQUIRE(dbsize(admin) == kKeys);

  Client pinger(server.port());
  advance(admin, 1'000'000 + 5'000);
  // Reads stay right meanwhile: lazy expiry on access (unless the cycle
  // took the key first).
  CHECK(admin.call({"GET", "mass:99999"}) == nil());

  // A PING answered while draining: a DBSIZE before it saw the active cycle
  // at work (fewer than kKeys - 1 keys: more than the GET took), and one
  // after it still sees keys.
  std::chrono::nanoseconds slowest{0};
  long long pings = 0, pings_while_draining = 0;
  const auto give_up = SteadyClock::now() + 20s;
  long long remaining = dbsize(admin);
  while (remaining > 0 && SteadyClock::now() < give_up) {
    const bool draining = remaining < kKeys - 1;
    const auto start = SteadyClock::now();
    REQUIRE(pinger.call({"PING"}) == status("PONG"));
    slowest = std::max<std::chrono::nanoseconds>(slowest, SteadyClock::now() - start);
    ++pings;
    remaining = dbsize(admin);
    if (draining && remaining > 0) ++pings_while_draining;
  }
  const auto slowest_us = std::chrono::duration_cast<std::chrono::microseconds>(slowest).count();
  const long long caps = stat(admin, "stats", "expired_time_cap_reached_count");
  MESSAGE(pings, " PINGs, ", pings_while_draining, " of them while the cycle drained; slowest ", slowest_us,
          " us; ", caps, " cycles stopped at their budget");
  CHECK(remaining == 0);
  CHECK(pings_while_draining > 0);
  CHECK(caps > 0);
  CHECK(caps <= stat(admin, "expiry", "expire_cycles"));
  CHECK(stat(admin, "stats", "expire_cycle_cpu_milliseconds") >= 1);
  CHECK(slowest_us < 500'000);  // generous: a cycle is one chunk of work
  CHECK(expired_keys(admin) == kKeys);
  CHECK(keyspace_db0(admin) == std::pair<long long, long long>{0, 0});
}

}  // namespace
}  // namespace lawnkv::itest
