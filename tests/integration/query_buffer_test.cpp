// Query and reply buffers as Redis 7.0 keeps them and CLIENT LIST reports
// them. Reply buffer (rbs: its size; rbp: its peak since the clients cron last
// reset it): engine/reply_buffer_figures.hpp. Query buffer
// (qbuf: bytes not yet parsed into arguments; qbuf-free: the room left):
// a pending big request shows its real size, and the clients cron releases
// the buffer of a client idle for more than 2 s (clientsCronResizeQueryBuffer),
// so many idle connections do not hold 16 KB each. Idle time is read on the
// server's clock: the tests move it with DEBUG ADVANCE-TIME and poll, with a
// deadline, for the cron's next visit.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::RawClient;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

// The value of `field` in the CLIENT LIST line of client `id`.
std::string client_field(Client& admin, const std::string& id, const std::string& field) {
  const std::string line = admin.call({"CLIENT", "LIST", "ID", id}).text;
  const std::string key = " " + field + "=";
  const size_t at = line.find(key);
  REQUIRE_MESSAGE(at != std::string::npos, line);
  const size_t from = at + key.size();
  return line.substr(from, line.find(' ', from) - from);
}

std::string id_of(RawClient& c) {
  const std::string r = c.call({"CLIENT", "ID"});  // ":<id>\r\n"
  return r.substr(1, r.size() - 3);
}

}  // namespace

// redis-server 7.0.15 answers the same: of a 400,000-byte SET of which
// 300,000 bytes have come, the 29 bytes before the value are arguments
// already, the value's 299,971 bytes wait in the query buffer.
TEST_CASE("CLIENT LIST shows a pending big request's real query buffer, as redis-server does") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = redis ? ServerProcess::redis() : ServerProcess::lawnkv();
    Client admin(server.port());
    RawClient big(server.port());
    const std::string id = id_of(big);
    const std::string request = encode_command({"SET", "k", std::string(400'000, 'x')});
    big.send(std::string_view(request).substr(0, 300'000));
    CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return client_field(admin, id, "qbuf") == "299971"; }));
    CHECK(std::stoll(client_field(admin, id, "qbuf-free")) >= 100'031);  // room for the rest of the value
    big.send(std::string_view(request).substr(300'000));
    CHECK(big.read_reply() == "+OK\r\n");
  }
}

TEST_CASE("the clients cron releases the query buffer of a client idle for more than 2 s") {
  auto server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient idle(server.port());
  const std::string id = id_of(idle);
  CHECK(client_field(admin, id, "qbuf") == "0");
  CHECK(client_field(admin, id, "qbuf-free") != "0");  // the buffer of its last read
  REQUIRE(admin.call(Argv{"DEBUG", "ADVANCE-TIME", "3000"}) == status("OK"));
  CHECK(test::poll_until(SteadyClock::now() + 10s,
                         [&] { return client_field(admin, id, "qbuf-free") == "0"; }));
  CHECK(client_field(admin, id, "qbuf") == "0");
  // It still serves, with a fresh buffer.
  CHECK(idle.call({"PING"}) == "+PONG\r\n");
}

// 2,000 idle connections held 16 KB each (32 MB of used_memory) until the
// cron released them; then used_memory comes back to about what it was
// without them.
TEST_CASE("idle connections hold no query buffer once the cron has seen them") {
  constexpr int kClients = 2000;
  auto server = ServerProcess::lawnkv();
  Client admin(server.port());
  // A sanitizer build (libc's malloc under ASan) reports no heap in
  // used_memory: nothing to compare there.
  if (admin.call({"INFO", "memory"}).text.find("mem_allocator:libc") != std::string::npos) return;
  const long long before = info_int(admin.call({"INFO", "memory"}).text, "used_memory");
  std::vector<RawClient> clients;
  clients.reserve(kClients);
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back(server.port());
    REQUIRE(clients.back().call({"PING"}) == "+PONG\r\n");
  }
  const long long connected = info_int(admin.call({"INFO", "memory"}).text, "used_memory");
  CHECK(connected - before > kClients * 16'000LL);
  REQUIRE(admin.call(Argv{"DEBUG", "ADVANCE-TIME", "3000"}) == status("OK"));
  long long idle = connected;
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] {
    idle = info_int(admin.call({"INFO", "memory"}).text, "used_memory");
    return idle - before < kClients * 4'000LL;
  }));
  MESSAGE("used_memory: before " << before << ", " << kClients << " clients " << connected << ", idle " << idle);
}

// redis-server 7.0.15 shrinks an idle client's 16 KiB reply buffer to 1 KiB
// within two visits of its cron (its first visit resets the peak), and shows
// rbs=1024 rbp=0 from then on.
TEST_CASE("CLIENT LIST's reply buffer: an idle client's shrinks to 1 KiB, as redis-server's does") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = redis ? ServerProcess::redis() : ServerProcess::lawnkv();
    Client admin(server.port());
    RawClient idle(server.port());
    const std::string id = id_of(idle);
    CHECK(test::poll_until(SteadyClock::now() + 10s, [&] {
      return client_field(admin, id, "rbs") == "1024" && client_field(admin, id, "rbp") == "0";
    }));
  }
}

// The rest on lawnkv's clock, moved by DEBUG ADVANCE-TIME (redis-server
// gives the same figures after real sleeps of the same lengths): a reply that
// fills the buffer sets the peak to its size, and the next visit doubles it;
// 5 s later the peak is reset and the buffer shrinks back.
TEST_CASE("CLIENT LIST's reply buffer: a reply that fills it doubles it; the peak resets every 5 s") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient c(server.port());
  const std::string id = id_of(c);
  REQUIRE(admin.call(Argv{"DEBUG", "ADVANCE-TIME", "1000"}) == status("OK"));
  CHECK(client_field(admin, id, "rbs") == "1024");
  CHECK(client_field(admin, id, "rbp") == "0");
  REQUIRE(admin.call(Argv{"SET", "big", std::string(20'000, 'x')}) == status("OK"));
  CHECK(c.call({"GET", "big"}).size() == 20'010);  // "$20000\r\n", the value, "\r\n"
  CHECK(client_field(admin, id, "rbp") == "1024");
  REQUIRE(admin.call(Argv{"DEBUG", "ADVANCE-TIME", "300"}) == status("OK"));
  CHECK(client_field(admin, id, "rbs") == "2048");
  CHECK(client_field(admin, id, "rbp") == "1024");
  REQUIRE(admin.call(Argv{"DEBUG", "ADVANCE-TIME", "6000"}) == status("OK"));
  CHECK(client_field(admin, id, "rbs") == "1024");
  CHECK(client_field(admin, id, "rbp") == "0");
}

}  // namespace lawnkv::itest
