// client-output-buffer-limit normal: a client that pipelines GETs of a
// large value without reading its replies is closed at the hard limit, or
// once over the soft limit for longer than its seconds, as Redis's
// checkClientOutputBufferLimits closes it; the other clients are served
// meanwhile. The soft limit's time runs on the server's clock (DEBUG
// ADVANCE-TIME); the clients cron closes a client whose output stopped
// growing. The kernel's socket buffers take a few MB of replies before the
// server's own output grows, so the tests ask for far more.

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "../support/net.hpp"
#include "../support/poll_until.hpp"
#include "../support/resp_encode.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

constexpr size_t kValueBytes = 1024 * 1024;

// The omem= of the client named `name`, or -1 if CLIENT LIST does not show it.
long long omem_of(Client& admin, const std::string& name) {
  const std::string list = admin.call({"CLIENT", "LIST"}).text;
  const size_t at = list.find(" name=" + name + " ");
  if (at == std::string::npos) return -1;
  const size_t omem = list.find(" omem=", at);
  return std::stoll(list.substr(omem + 6));
}

// A connection named `name` that sends `gets` GETs of "big" and reads
// nothing. Closes its socket when it goes.
class Stalled {
 public:
  Stalled(uint16_t port, const std::string& name, int gets) : fd_(test::connect_loopback(port)) {
    REQUIRE(fd_ >= 0);
    // Named before anything else, so that a client missing from CLIENT
    // LIST has been closed.
    const std::string setname = encode_command({"CLIENT", "SETNAME", name});
    REQUIRE(test::send_what_fits(fd_, setname) == setname.size());
    timeval wait{10, 0};  // no hanging if the server does not answer
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char ok[5];
    REQUIRE(::recv(fd_, ok, sizeof ok, MSG_WAITALL) == 5);
    REQUIRE(std::string(ok, 5) == "+OK\r\n");
    std::string requests;
    for (int i = 0; i < gets; ++i) requests += encode_command({"GET", "big"});
    // A few KB of requests: the socket takes them all.
    REQUIRE(test::send_what_fits(fd_, requests) == requests.size());
  }
  ~Stalled() { ::close(fd_); }
  Stalled(const Stalled&) = delete;
  Stalled& operator=(const Stalled&) = delete;

 private:
  int fd_;
};

}  // namespace

TEST_CASE("output limit normal: a client that does not read is closed at the hard limit") {
  ServerProcess server = ServerProcess::lawnkv({"--client-output-buffer-limit", "normal 64mb 16mb 10"});
  Client admin(server.port());
  REQUIRE(admin.call(Argv{"SET", "big", std::string(kValueBytes, 'v')}) == status("OK"));
  // 200 MB of replies asked for.
  Stalled stalled(server.port(), "stalled", 200);
  CHECK(test::poll_until(SteadyClock::now() + 20s, [&] { return omem_of(admin, "stalled") < 0; }));
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "client_output_buffer_limit_disconnections") == 1);
  CHECK(admin.call({"STRLEN", "big"}) == integer(kValueBytes));
  CHECK(serves(server.port()));
}

TEST_CASE("output limit normal: over the soft limit for longer than its seconds") {
  ServerProcess server = ServerProcess::lawnkv({"--client-output-buffer-limit", "normal 64mb 16mb 10"});
  Client admin(server.port());
  REQUIRE(admin.call(Argv{"SET", "big", std::string(kValueBytes, 'v')}) == status("OK"));
  // 40 MB of replies: over the soft limit, under the hard one.
  Stalled stalled(server.port(), "stalled", 40);
  REQUIRE(test::poll_until(SteadyClock::now() + 20s, [&] { return omem_of(admin, "stalled") >= 16LL << 20; }));
  // Nothing more arrives from it: only the cron can see its time run out.
  REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "11000"}) == status("OK"));
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return omem_of(admin, "stalled") < 0; }));
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "client_output_buffer_limit_disconnections") == 1);
  CHECK(serves(server.port()));
}

TEST_CASE("output limit normal: the default (no limit) pauses the client instead of closing it") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  REQUIRE(admin.call(Argv{"SET", "big", std::string(kValueBytes, 'v')}) == status("OK"));
  Stalled stalled(server.port(), "stalled", 200);
  // Paused once 4 MB wait (most of which the kernel takes): what the server
  // holds stays under that, and the client stays, however long it waits.
  REQUIRE(test::poll_until(SteadyClock::now() + 20s, [&] { return omem_of(admin, "stalled") > 0; }));
  REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "100000"}) == status("OK"));
  for (int i = 0; i < 20; ++i) {
    const long long omem = omem_of(admin, "stalled");
    REQUIRE(omem > 0);
    CHECK(omem < (4LL << 20) + 2 * static_cast<long long>(kValueBytes));
  }
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "client_output_buffer_limit_disconnections") == 0);
}

}  // namespace lawnkv::itest
