// Lists with blocking pops against the running server, over real sockets: a
// job queue (producers pushing, consumers blocked in BLMOVE with a
// processing list) that must lose and duplicate nothing, a client that
// disconnects while blocked, and CLIENT UNBLOCK from another connection (of
// a list pop, and of WAIT, which replies its own timeout).
// Nothing sleeps: clients wait on replies, and on INFO blocked_clients.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;

// Waits until INFO reports n blocked clients.
bool blocked_clients(Client& c, long long n) {
  return test::poll_until(std::chrono::steady_clock::now() + 5s, [&] {
    return info_int(c.call({"INFO", "clients"}).text, "blocked_clients") == n;
  });
}

size_t queue_jobs() {
  const char* env = std::getenv("LAWNKV_QUEUE_JOBS");
  return env ? std::strtoul(env, nullptr, 10) : 100'000;
}

}  // namespace

TEST_CASE("a job queue on BLMOVE: 10 producers, 10 blocked consumers, no job lost or repeated") {
  ServerProcess server = ServerProcess::lawnkv();
  constexpr size_t kProducers = 10, kConsumers = 10;
  const size_t jobs = queue_jobs();  // LAWNKV_QUEUE_JOBS=1000000 for the full run
  const uint16_t port = server.port();

  // Consumers: take a job into `processing`, record it, acknowledge it
  // (LREM from processing); a STOP job ends a consumer.
  std::vector<std::vector<std::string>> taken(kConsumers);
  std::vector<std::string> failures(kConsumers);
  std::vector<std::thread> consumers;
  for (size_t i = 0; i < kConsumers; ++i) {
    consumers.emplace_back([&, i] {
      try {
        Client c(port);
        for (;;) {
          Reply job = c.call({"BLMOVE", "jobs", "processing", "RIGHT", "LEFT", "0"});
          if (job.type != '$' || job.null) throw std::runtime_error("BLMOVE replied " + wire(job));
          if (c.call({"LREM", "processing", "1", job.text}) != integer(1))
            throw std::runtime_error("job not in processing: " + job.text);
          if (job.text == "STOP") return;
          taken[i].push_back(job.text);
        }
      } catch (const std::exception& e) {
        failures[i] = e.what();
      }
    });
  }
  Client control(port);
  REQUIRE(blocked_clients(control, kConsumers));

  // Producers: pipelined LPUSHes of their share, one job each.
  std::vector<std::thread> producers;
  std::vector<std::string> producer_failures(kProducers);
  for (size_t p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      try {
        Client c(port);
        const size_t mine = jobs / kProducers + (p < jobs % kProducers ? 1 : 0);
        size_t sent = 0;
        while (sent < mine) {
          const size_t batch = std::min<size_t>(100, mine - sent);
          for (size_t j = 0; j < batch; ++j)
            c.append({"LPUSH", "jobs", "job:" + std::to_string(p) + ":" + std::to_string(sent + j)});
          for (size_t j = 0; j < batch; ++j)
            if (c.read().type != ':') throw std::runtime_error("LPUSH failed");
          sent += batch;
        }
      } catch (const std::exception& e) {
        producer_failures[p] = e.what();
      }
    });
  }
  for (std::thread& t : producers) t.join();
  for (const std::string& f : producer_failures) CHECK(f.empty());
  // Queued behind every job (consumers pop from the right, producers push
  // on the left): one STOP per consumer.
  for (size_t i = 0; i < kConsumers; ++i) control.call({"LPUSH", "jobs", "STOP"});
  for (std::thread& t : consumers) t.join();
  for (const std::string& f : failures) CHECK(f.empty());

  std::vector<std::string> all;
  for (const auto& v : taken) all.insert(all.end(), v.begin(), v.end());
  CHECK(all.size() == jobs);
  std::sort(all.begin(), all.end());
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // none twice
  std::vector<std::string> expected;
  for (size_t p = 0; p < kProducers; ++p) {
    const size_t mine = jobs / kProducers + (p < jobs % kProducers ? 1 : 0);
    for (size_t j = 0; j < mine; ++j) expected.push_back("job:" + std::to_string(p) + ":" + std::to_string(j));
  }
  std::sort(expected.begin(), expected.end());
  CHECK(all == expected);
  CHECK(control.wire({"EXISTS", "jobs", "processing"}) == ":0\r\n");
  CHECK(info_int(control.call({"INFO", "clients"}).text, "blocked_clients") == 0);
}

TEST_CASE("a client that disconnects while blocked is forgotten: the next push stays in the list") {
  ServerProcess server = ServerProcess::lawnkv();
  Client control(server.port());
  {
    Client waiter(server.port());
    waiter.append({"BLPOP", "q", "0"});
    redisContext* ctx = waiter.context();
    int done = 0;
    while (!done) REQUIRE(redisBufferWrite(ctx, &done) == REDIS_OK);
    REQUIRE(blocked_clients(control, 1));
  }  // closes the connection
  REQUIRE(blocked_clients(control, 0));
  CHECK(control.wire({"RPUSH", "q", "kept"}) == ":1\r\n");
  CHECK(control.wire({"LRANGE", "q", "0", "-1"}) == "*1\r\n$4\r\nkept\r\n");
}

TEST_CASE("CLIENT UNBLOCK from another connection, and the unblocked client goes on") {
  ServerProcess server = ServerProcess::lawnkv();
  Client control(server.port());
  Client waiter(server.port());
  const long long id = waiter.integer({"CLIENT", "ID"});
  // A blocked BRPOP, then a PING pipelined behind it: the PING's reply
  // comes once the client is unblocked.
  waiter.append({"BRPOP", "q", "0"});
  waiter.append({"PING"});
  redisContext* ctx = waiter.context();
  int done = 0;
  while (!done) REQUIRE(redisBufferWrite(ctx, &done) == REDIS_OK);
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id), "ERROR"}) == ":1\r\n");
  CHECK(wire(waiter.read()) == "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  CHECK(wire(waiter.read()) == "+PONG\r\n");
  waiter.append({"BLMOVE", "q", "d", "LEFT", "LEFT", "0"});
  done = 0;
  while (!done) REQUIRE(redisBufferWrite(ctx, &done) == REDIS_OK);
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id)}) == ":1\r\n");
  CHECK(waiter.read().null);  // the timeout's null array (hiredis shows no kind of nil)
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id)}) == ":0\r\n");
}

TEST_CASE("CLIENT UNBLOCK of a client in WAIT replies what its timeout would: the replicas that acked") {
  ServerProcess server = ServerProcess::lawnkv();
  Client control(server.port());
  Client waiter(server.port());
  const long long id = waiter.integer({"CLIENT", "ID"});
  redisContext* ctx = waiter.context();
  // No replica: WAIT 1 0 waits for ever. Redis 7.0.15 replies :0 to the
  // unblocked client (replyToBlockedClientTimedOut), not a null array.
  waiter.append({"WAIT", "1", "0"});
  int done = 0;
  while (!done) REQUIRE(redisBufferWrite(ctx, &done) == REDIS_OK);
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id)}) == ":1\r\n");
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id)}) == ":0\r\n");
  CHECK(wire(waiter.read()) == ":0\r\n");
  REQUIRE(blocked_clients(control, 0));
  // With ERROR, the error, as for any blocked command.
  waiter.append({"WAIT", "1", "0"});
  done = 0;
  while (!done) REQUIRE(redisBufferWrite(ctx, &done) == REDIS_OK);
  REQUIRE(blocked_clients(control, 1));
  CHECK(control.wire({"CLIENT", "UNBLOCK", std::to_string(id), "ERROR"}) == ":1\r\n");
  CHECK(wire(waiter.read()) == "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
}

}  // namespace lawnkv::itest
