// maxmemory-clients against both servers: a client whose pending query or
// output buffer takes the clients' memory past the limit is disconnected
// (INFO evicted_clients counts it), one with CLIENT NO-EVICT on is not.

#include <doctest/doctest.h>

#include <chrono>
#include <string>

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

long long evicted_clients(Client& admin) { return info_int(admin.call({"INFO", "stats"}).text, "evicted_clients"); }

// Whether CLIENT LIST shows a client named `name`.
bool listed(Client& admin, const std::string& name) {
  return admin.call({"CLIENT", "LIST"}).text.find(" name=" + name + " ") != std::string::npos;
}

RawClient named(uint16_t port, const std::string& name, bool no_evict) {
  RawClient c(port);
  REQUIRE(c.call({"CLIENT", "SETNAME", name}) == "+OK\r\n");
  if (no_evict) REQUIRE(c.call({"CLIENT", "NO-EVICT", "on"}) == "+OK\r\n");
  return c;
}

ServerProcess start(bool redis) { return redis ? ServerProcess::redis() : ServerProcess::lawnkv(); }

}  // namespace

TEST_CASE("maxmemory-clients evicts a client with a big pending request, never a NO-EVICT one") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = start(redis);
    Client admin(server.port());
    REQUIRE(admin.call({"CLIENT", "NO-EVICT", "on"}) == status("OK"));
    REQUIRE(admin.call({"CONFIG", "SET", "maxmemory-clients", "1mb"}) == status("OK"));
    RawClient kept = named(server.port(), "kept", true);
    RawClient evicted = named(server.port(), "evicted", false);
    const std::string request = encode_command({"SET", "k", std::string(700'000, 'x')});
    const std::string_view pending = std::string_view(request).substr(0, 600'000);
    kept.send(pending);
    REQUIRE(test::poll_until(SteadyClock::now() + 10s, [&] {
      const std::string list = admin.call({"CLIENT", "LIST"}).text;
      const size_t at = list.find("name=kept");
      return at != std::string::npos && std::stoll(list.substr(list.find(" qbuf=", at) + 6)) > 500'000;
    }));
    CHECK(evicted_clients(admin) == 0);
    evicted.send(pending);  // ~1.4 MB of query buffers with kept's
    CHECK(evicted.wait_closed());
    CHECK(evicted_clients(admin) == 1);
    CHECK(listed(admin, "kept"));
    kept.send(std::string_view(request).substr(600'000));
    CHECK(kept.read_reply() == "+OK\r\n");
  }
}

TEST_CASE("maxmemory-clients evicts a client whose replies pile up unread, never a NO-EVICT one") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = start(redis);
    {
      // Another client, gone before the limit is set: Redis counts the
      // memory of a NO-EVICT client as its cron last saw it, which may be
      // while the 4 MB request was in its query buffer.
      Client writer(server.port());
      REQUIRE(writer.call({"SET", "big", std::string(4 << 20, 'v')}) == status("OK"));
    }
    Client admin(server.port());
    REQUIRE(admin.call({"CLIENT", "NO-EVICT", "on"}) == status("OK"));
    REQUIRE(admin.call({"CONFIG", "SET", "maxmemory-clients", "3mb"}) == status("OK"));
    RawClient kept = named(server.port(), "kept", true);
    RawClient evicted = named(server.port(), "evicted", false);
    // Neither reads: what the kernel does not take waits in the server.
    std::string gets;
    for (int i = 0; i < 5; ++i) gets += encode_command({"GET", "big"});
    evicted.send(gets);
    CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return evicted_clients(admin) == 1; }));
    CHECK_FALSE(listed(admin, "evicted"));
    // Part of its replies may have reached its socket before the eviction.
    CHECK(evicted.wait_closed_discarding());
    kept.send(gets);
    CHECK(test::poll_until(SteadyClock::now() + 10s, [&] {
      const std::string list = admin.call({"CLIENT", "LIST"}).text;
      const size_t at = list.find("name=kept");
      if (at == std::string::npos) return false;
      const size_t mem = list.find(" tot-mem=", at);
      return mem != std::string::npos && std::stoll(list.substr(mem + 9)) > (3 << 20);  // alone over the limit
    }));
    CHECK(evicted_clients(admin) == 1);
    CHECK(listed(admin, "kept"));
  }
}

}  // namespace lawnkv::itest
