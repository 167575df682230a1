// Many clients: 1,000 connected at once and all answered, CLIENT LIST and
// INFO clients seeing them, the server serving on after they leave; and
// maxclients refusing the one too many exactly as redis-server does.

#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::escape_bytes;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

// Writes everything hiredis has queued for `client` without reading.
void flush_requests(Client& client) {
  int done = 0;
  while (!done) {
    if (redisBufferWrite(client.context(), &done) != REDIS_OK)
      throw std::runtime_error(std::string("hiredis write: ") + client.context()->errstr);
  }
}

// The values of `field` ("name") in every line of CLIENT LIST.
std::vector<std::string> client_list_field(Client& observer, const std::string& field) {
  Reply r = observer.call({"CLIENT", "LIST"});
  std::vector<std::string> values;
  const std::string key = " " + field + "=";
  size_t line_start = 0;
  while (line_start < r.text.size()) {
    size_t end = r.text.find('\n', line_start);
    if (end == std::string::npos) end = r.text.size();
    std::string line = " " + r.text.substr(line_start, end - line_start);
    size_t at = line.find(key);
    if (at != std::string::npos) {
      size_t from = at + key.size();
      values.push_back(line.substr(from, line.find(' ', from) - from));
    }
    line_start = end + 1;
  }
  return values;
}

TEST_CASE("1,000 clients connected at once are all answered") {
  constexpr int kClients = 1000;
  auto server = ServerProcess::lawnkv();
  Client observer(server.port());

  std::vector<Client> clients;
  clients.reserve(kClients);
  for (int i = 0; i < kClients; ++i) clients.emplace_back(server.port());

  // Every client sends its requests before any reply is read, so all 1,000
  // have work in flight together.
  for (int i = 0; i < kClients; ++i) {
    clients[i].append(Argv{"CLIENT", "SETNAME", "c" + std::to_string(i)});
    clients[i].append(Argv{"SET", "key:" + std::to_string(i), std::to_string(i)});
    clients[i].append({"INCR", "counter"});
    flush_requests(clients[i]);
  }
  std::set<long long> counts;
  int wrong = 0;
  for (int i = 0; i < kClients; ++i) {
    Reply name = clients[i].read();
    Reply set = clients[i].read();
    Reply incr = clients[i].read();
    if (!(name == status("OK") && set == status("OK") && incr.type == ':') && ++wrong <= 5)
      FAIL_CHECK("client ", i, " got ", escape_bytes(wire(name) + wire(set) + wire(incr)));
    if (incr.type == ':') counts.insert(std::stoll(incr.text));
  }
  CHECK(wrong == 0);
  // Each INCR saw a distinct value: 1..1000.
  CHECK(counts.size() == kClients);
  CHECK(observer.call({"GET", "counter"}) == bulk("1000"));

  // CLIENT LIST shows all of them (and the observer), by name.
  std::vector<std::string> names = client_list_field(observer, "name");
  CHECK(names.size() == kClients + 1);
  std::set<std::string> named(names.begin(), names.end());
  for (int i = 0; i < kClients; ++i) {
    if (!named.count("c" + std::to_string(i))) {
      FAIL_CHECK("CLIENT LIST lacks c", i);
      break;
    }
  }
  std::vector<std::string> ids = client_list_field(observer, "id");
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == kClients + 1);
  CHECK(info_int(observer.call({"INFO", "clients"}).text, "connected_clients") == kClients + 1);

  // A second round on the same connections, and their GETs.
  for (int i = 0; i < kClients; i += 97) CHECK(clients[i].call(Argv{"GET", "key:" + std::to_string(i)}) ==
                                              bulk(std::to_string(i)));
  for (int i = 0; i < kClients; i += 97) CHECK(clients[i].call({"CLIENT", "GETNAME"}) ==
                                              bulk("c" + std::to_string(i)));

  // All leave; the server notices each close and keeps serving.
  clients.clear();
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return client_count(observer) == 1; }));
  CHECK(info_int(observer.call({"INFO", "clients"}).text, "connected_clients") == 1);
  CHECK(observer.call({"DBSIZE"}) == integer(kClients + 1));
  CHECK(observer.call({"GET", "key:999"}) == bulk("999"));
  CHECK(serves(server.port()));

  // And accepts a new crowd.
  for (int i = 0; i < 100; ++i) clients.emplace_back(server.port());
  for (auto& c : clients) CHECK(c.call({"PING"}) == status("PONG"));
}

// maxclients side by side with redis-server: the client over the limit gets
// Redis's error and is closed; once a client leaves, a new one is accepted.
TEST_CASE("maxclients refuses the client over the limit as Redis does") {
  constexpr int kMax = 3;
  const std::vector<std::string> args{"--maxclients", std::to_string(kMax)};
  auto lawnkv = ServerProcess::lawnkv(args);
  auto redis = ServerProcess::redis(args);
  for (ServerProcess* server : {&redis, &lawnkv}) {
    INFO(server->label());
    std::vector<Client> held;
    for (int i = 0; i < kMax; ++i) {
      held.emplace_back(server->port());
      REQUIRE(held.back().call({"PING"}) == status("PONG"));
    }
    Outcome refused = probe(server->port(), "", 1, true);
    CHECK_MESSAGE(refused == (Outcome{"-ERR max number of clients reached\r\n", true}), describe(refused));
    CHECK(info_int(held[0].call({"INFO", "stats"}).text, "rejected_connections") == 1);
    CHECK(held[0].call({"PING"}) == status("PONG"));

    held.pop_back();
    // The server learns of the close asynchronously: poll until a new client
    // is accepted.
    CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return client_count(held[0]) == kMax - 1; }));
    CHECK(serves(server->port()));
  }
}

// CONFIG SET maxclients below the clients connected: they stay, the next
// one is refused, as redis-server does.
TEST_CASE("maxclients lowered at run time keeps the connected clients and refuses the next") {
  auto lawnkv = ServerProcess::lawnkv();
  auto redis = ServerProcess::redis();
  for (ServerProcess* server : {&redis, &lawnkv}) {
    INFO(server->label());
    std::vector<Client> held;
    for (int i = 0; i < 3; ++i) held.emplace_back(server->port());
    REQUIRE(held[0].call({"CONFIG", "SET", "maxclients", "2"}) == status("OK"));
    Outcome refused = probe(server->port(), "PING\r\n", 1, true);
    CHECK_MESSAGE(refused == (Outcome{"-ERR max number of clients reached\r\n", true}), describe(refused));
    for (Client& c : held) CHECK(c.call({"PING"}) == status("PONG"));
    const std::string info = held[0].call({"INFO"}).text;
    CHECK(info_int(info, "connected_clients") == 3);
    CHECK(info_int(info, "rejected_connections") == 1);
  }
}

}  // namespace
}  // namespace lawnkv::itest
