// client-output-buffer-limit pubsub: a subscriber that stops reading is cut
// off once its pending output crosses the hard limit (or stays over the soft
// limit longer than allowed), while the publisher is never held up and a
// subscriber that keeps reading gets every message. The kernel's socket
// buffers take a few MB before the server's own output starts to grow, so
// the tests publish well past that. Soft-limit time is moved with DEBUG
// ADVANCE-TIME.

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::parse_reply;
using test::RawClient;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMessageBytes = 64 * 1024;
constexpr int kMessages = 512;  // 32 MB in all

// Whether CLIENT LIST shows a client named `name`.
bool listed(Client& admin, const std::string& name) {
  return admin.call({"CLIENT", "LIST"}).text.find(" name=" + name + " ") != std::string::npos;
}

// A subscriber to `channel` named `name`, which then reads nothing.
RawClient stalled_subscriber(uint16_t port, const std::string& name, const std::string& channel) {
  RawClient c(port);
  REQUIRE(c.call({"CLIENT", "SETNAME", name}) == "+OK\r\n");
  c.send(encode_command({"SUBSCRIBE", channel}));
  c.read_reply();
  return c;
}

}  // namespace

TEST_CASE("output limit: a stalled subscriber is cut at the hard limit; the others go on") {
  ServerProcess server = ServerProcess::lawnkv();
  Client publisher(server.port()), admin(server.port());
  REQUIRE(admin.call({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 256kb 60"}) == status("OK"));
  RawClient stalled = stalled_subscriber(server.port(), "stalled", "flood");
  RawClient reader(server.port());
  reader.send(encode_command({"SUBSCRIBE", "flood"}));
  reader.read_reply();

  const std::string payload(kMessageBytes, 'x');
  int cut_at = -1;
  auto slowest = SteadyClock::duration::zero();
  for (int i = 0; i < kMessages; ++i) {
    const auto start = SteadyClock::now();
    const long long receivers = publisher.integer({"PUBLISH", "flood", payload});
    slowest = std::max(slowest, SteadyClock::now() - start);
    if (receivers == 1 && cut_at < 0) cut_at = i;
    if (cut_at < 0) CHECK(receivers == 2);
    // The reading subscriber keeps up, message by message.
    const test::Reply m = parse_reply(reader.read_reply());
    REQUIRE(m.elements.size() == 3);
    CHECK(m.elements[2].text.size() == kMessageBytes);
    // Other clients are served all along.
    if (i % 64 == 0) CHECK(admin.call({"PING"}) == status("PONG"));
  }
  CHECK_MESSAGE(cut_at > 0, "the stalled subscriber was never cut off");
  MESSAGE("stalled subscriber cut after " << cut_at << " messages of " << kMessageBytes
                                          << " bytes; slowest PUBLISH round trip "
                                          << std::chrono::duration_cast<std::chrono::microseconds>(slowest).count()
                                          << " us");
  CHECK(slowest < 500ms);
  CHECK_FALSE(listed(admin, "stalled"));
  CHECK(admin.call({"PUBSUB", "NUMSUB", "flood"}).elements.at(1) == integer(1));
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "client_output_buffer_limit_disconnections") == 1);
  // What the stalled client can still read (what the kernel held) ends
  // with the close, possibly in the middle of a frame.
  int read = 0;
  try {
    for (;;) {
      stalled.read_reply();
      ++read;
    }
  } catch (const test::ConnectionClosed&) {
  }
  CHECK(read < cut_at);
}

TEST_CASE("output limit: over the soft limit for longer than its seconds") {
  ServerProcess server = ServerProcess::lawnkv();
  Client publisher(server.port()), admin(server.port());
  // No hard limit: only time over 256 KB cuts the client.
  REQUIRE(admin.call({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 256kb 10"}) == status("OK"));
  RawClient stalled = stalled_subscriber(server.port(), "stalled", "flood");

  const std::string payload(kMessageBytes, 'x');
  for (int i = 0; i < kMessages; ++i) publisher.integer({"PUBLISH", "flood", payload});
  // Well over 256 KB now, for (much) less than 10 s of server time.
  CHECK(listed(admin, "stalled"));
  REQUIRE(admin.call({"DEBUG", "ADVANCE-TIME", "11000"}) == status("OK"));
  // The limit is checked when output is added.
  CHECK(publisher.integer({"PUBLISH", "flood", "one more"}) == 1);
  CHECK_FALSE(listed(admin, "stalled"));
  CHECK(admin.call({"PUBSUB", "NUMSUB", "flood"}).elements.at(1) == integer(0));
  CHECK(publisher.integer({"PUBLISH", "flood", "after"}) == 0);
}

}  // namespace lawnkv::itest
