// Expiry in the running server, driven by the server's own clock and never
// by sleeping: DEBUG ADVANCE-TIME <ms> moves lawnkv's clock (forward or
// back) and DEBUG SET-ACTIVE-EXPIRE 0|1 turns the active cycle off and on.
//
// Reading the server's "now" exactly: a sentinel key whose deadline is far
// ahead (kFar) turns PTTL into a clock, now = kFar - PTTL, read with the same
// time snapshot as the commands beside it in one MULTI/EXEC.

#include <doctest/doctest.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <optional>
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

// MULTI; PTTL clock; EXISTS key; GET key; PTTL clock; EXEC. Returns the
// server's now if both clock readings agree (nullopt otherwise) with what
// EXISTS and GET saw at that now.
struct Look {
  long long now;
  Reply exists;
  Reply get;
};
std::optional<Look> look_at(Client& c, const std::string& key) {
  c.append({"MULTI"});
  c.append({"PTTL", kClockKey});
  c.append(Argv{"EXISTS", key});
  c.append(Argv{"GET", key});
  c.append({"PTTL", kClockKey});
  c.append({"EXEC"});
  for (int i = 0; i < 5; ++i) c.read();
  Reply exec = c.read();
  REQUIRE_MESSAGE(exec.elements.size() == 4, "EXEC replied ", escape_bytes(wire(exec)));
  const long long n1 = kFar - std::stoll(exec.elements[0].text);
  const long long n2 = kFar - std::stoll(exec.elements[3].text);
  if (n1 != n2) return std::nullopt;
  return Look{n1, exec.elements[1], exec.elements[2]};
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

// Redis's rule: a key exists while now <= deadline. The test lands the
// server's clock exactly on a key's deadline (and on deadline + 1): set the
// key PXAT now + 100 s from TIME, advance the clock by the difference, and
// look at it in one MULTI/EXEC whose clock readings tell the exact now. Real
// time may tick between the advance and the look; such a try still checks
// the rule at the now it saw, and another try follows.
TEST_CASE("a key exists at now == deadline and is gone at deadline + 1") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  set_active_expire(c, false);
  start_clock(c);

  bool at_deadline = false, after_deadline = false;
  int tries = 0;
  for (; tries < 300 && !(at_deadline && after_deadline); ++tries) {
    const long long target_offset = at_deadline ? 1 : 0;  // land on D, then on D + 1
    const std::string key = "k" + std::to_string(tries);
    const long long now = time_ms(c);
    const long long deadline = now + 100'000;
    REQUIRE(c.call(Argv{"SET", key, "v", "PXAT", std::to_string(deadline)}) == status("OK"));
    advance(c, deadline + target_offset - clock_ms(c));
    std::optional<Look> look = look_at(c, key);
    if (!look) continue;
    INFO("try ", tries, ": deadline ", deadline, ", now ", look->now);
    if (look->now <= deadline) {
      CHECK(look->exists == integer(1));
      CHECK(look->get == bulk("v"));
    } else {
      CHECK(look->exists == integer(0));
      CHECK(look->get == nil());
    }
    at_deadline = at_deadline || look->now == deadline;
    after_deadline = after_deadline || look->now == deadline + 1;
  }
  MESSAGE("landed on the deadline and after it in ", tries, " tries");
  CHECK(at_deadline);
  CHECK(after_deadline);
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

// Nanoseconds the server's main thread (the loop) has run on a CPU.
long long cpu_ns(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  long long ns = -1;
  in >> ns;
  REQUIRE_MESSAGE(ns >= 0, "cannot read /proc/", pid, "/schedstat");
  return ns;
}

// And between deadlines it sleeps, however far the next one is. The wait
// for a deadline of 2^61 or 2^62 ms used to be computed as (next + 1) *
// 1000 us, which wrapped to a negative number: a timer of 0 ms, fired on
// every turn, the server spinning at 100% CPU from one PEXPIREAT. Idleness
// needs real time to show: 300 ms of it per deadline, in which a spinning
// loop runs for most of it and a sleeping one for well under 1 ms.
TEST_CASE("a deadline at the far end of time leaves the loop asleep") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  for (std::string deadline : {"2305843009213693952", "4611686018427387904", "6917529027641081856",
                               "9223372036854775806", "9223372036854775807"}) {
    CAPTURE(deadline);
    REQUIRE(c.call({"SET", "far", "v", "PXAT", deadline}) == status("OK"));
    const long long before = cpu_ns(server.pid());
    const auto start = SteadyClock::now();
    std::this_thread::sleep_for(300ms);  // the measurement itself, see above
    const double share = static_cast<double>(cpu_ns(server.pid()) - before) /
                         static_cast<double>(std::chrono::nanoseconds(SteadyClock::now() - start).count());
    MESSAGE("loop CPU share with one key due at ", deadline, ": ", share);
    CHECK(share < 0.05);
    CHECK(c.call({"DEL", "far"}) == integer(1));
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

// 100,000 keys fall due at the same moment. The cycle reaps them in bounded
// slices, so another client's PINGs keep being answered while it works.
TEST_CASE("100,000 keys due at once are reaped while PINGs are answered") {
  constexpr int kKeys = 100'000;
  auto server = ServerProcess::lawnkv();
  Client admin(server.port());
  const long long now = time_ms(admin);
  const long long deadline = now + 1'000'000;
  {
    RawClient loader(server.port(), 30s);
    std::string load;
    for (int i = 0; i < kKeys; ++i) {
      const std::string key = "mass:" + std::to_string(i);
      load += i % 2 == 0 ? encode_command({"SET", key, "value", "PXAT", std::to_string(deadline)})
                         : encode_command({"SET", key, "value", "PX", "1000000"});
    }
    loader.send(load);
    for (int i = 0; i < kKeys; ++i) REQUIRE(loader.read_reply() == "+OK\r\n");
  }
  REQUIRE(dbsize(admin) == kKeys);

  Client pinger(server.port());
  advance(admin, 1'000'000 + 5'000);
  // Reads stay right meanwhile: lazy expiry on access.
  CHECK(admin.call({"GET", "mass:99999"}) == nil());

  std::chrono::nanoseconds slowest{0};
  long long pings = 0, pings_during_backlog = 0;
  const auto give_up = SteadyClock::now() + 20s;
  long long remaining = kKeys;
  while (remaining > 0 && SteadyClock::now() < give_up) {
    for (int i = 0; i < 20; ++i) {
      auto start = SteadyClock::now();
      REQUIRE(pinger.call({"PING"}) == status("PONG"));
      slowest = std::max<std::chrono::nanoseconds>(slowest, SteadyClock::now() - start);
      ++pings;
    }
    remaining = dbsize(admin);
    if (remaining > 0) pings_during_backlog = pings;
  }
  const auto slowest_us = std::chrono::duration_cast<std::chrono::microseconds>(slowest).count();
  MESSAGE(pings, " PINGs, ", pings_during_backlog, " of them while keys were left; slowest ", slowest_us, " us");
  CHECK(remaining == 0);
  CHECK(slowest_us < 500'000);  // generous: a slice is about 1 ms of work
  CHECK(expired_keys(admin) == kKeys);
  CHECK(keyspace_db0(admin) == std::pair<long long, long long>{0, 0});
}

}  // namespace
}  // namespace lawnkv::itest
