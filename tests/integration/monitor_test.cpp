// MONITOR in the running server, where lawnkv decides: monitors closed by
// their output limit while a line is delivered to them (each is closed,
// none is skipped), and a monitor that disconnects hears nothing more.
// The lines themselves are compared with redis-server's in
// tests/compat/monitor_test.cpp.

#include <doctest/doctest.h>

#include <string>

#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::itest {

using test::RawClient;
using test::ServerProcess;

TEST_CASE("monitor: monitors past their output limit are all closed as a line reaches them") {
  ServerProcess server = ServerProcess::lawnkv();
  RawClient admin(server.port());
  REQUIRE(admin.call({"CONFIG", "SET", "client-output-buffer-limit", "normal 200 0 0"}) == "+OK\r\n");
  RawClient a(server.port()), b(server.port()), c(server.port());
  for (RawClient* m : {&a, &b, &c}) REQUIRE(m->call({"MONITOR"}) == "+OK\r\n");
  RawClient cmd(server.port());
  CHECK(cmd.call({"SET", "k", std::string(300, 'v')}) == "+OK\r\n");
  for (RawClient* m : {&a, &b, &c}) CHECK(m->wait_closed());
  // The server goes on, with no monitor left.
  REQUIRE(admin.call({"CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"}) == "+OK\r\n");
  RawClient d(server.port());
  REQUIRE(d.call({"MONITOR"}) == "+OK\r\n");
  d.close();
  CHECK(cmd.call({"SET", "k", "v"}) == "+OK\r\n");
  CHECK(cmd.call({"PING"}) == "+PONG\r\n");
}

}  // namespace lawnkv::itest
