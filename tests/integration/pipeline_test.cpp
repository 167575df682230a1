// Pipelining: 10,000 requests in one write answered in order, replies that
// pass the pause threshold answered in full, and a client that pipelines
// without ever reading its replies, which must not keep the server from
// serving everyone else.

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/net.hpp"
#include "../support/poll_until.hpp"
#include "../support/process.hpp"
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

constexpr int kPipelineLength = 10'000;

// Request i of a mixed pipeline and the exact reply it must get, given the
// requests before it: SET, GET of the key just set, INCR of one counter,
// an inline ECHO, an unknown command, and EXISTS.
struct Step {
  std::string request;
  std::string reply;
};

std::vector<Step> mixed_pipeline(int n) {
  std::vector<Step> steps;
  long long counter = 0;
  for (int i = 0; i < n; ++i) {
    const std::string key = "key:" + std::to_string(i / 6);
    const std::string value = "value-" + std::to_string(i / 6) + std::string("\0\r\n", 3);
    switch (i % 6) {
      case 0:
        steps.push_back({encode_command({"SET", key, value}), "+OK\r\n"});
        break;
      case 1:
        steps.push_back({encode_command({"GET", key}), "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n"});
        break;
      case 2:
        ++counter;
        steps.push_back({encode_command({"INCR", "counter"}), ":" + std::to_string(counter) + "\r\n"});
        break;
      case 3: {
        const std::string word = "w" + std::to_string(i);
        steps.push_back({"ECHO " + word + "\r\n", "$" + std::to_string(word.size()) + "\r\n" + word + "\r\n"});
        break;
      }
      case 4:
        steps.push_back({encode_command({"NOSUCH", key}),
                         "-ERR unknown command 'NOSUCH', with args beginning with: '" + key + "' \r\n"});
        break;
      case 5:
        steps.push_back({encode_command({"EXISTS", key, "never-set"}), ":1\r\n"});
        break;
    }
  }
  return steps;
}

TEST_CASE("a pipeline of 10,000 requests in one write is answered in order") {
  auto server = ServerProcess::lawnkv();
  const std::vector<Step> steps = mixed_pipeline(kPipelineLength);
  std::string all;
  for (const Step& s : steps) all += s.request;

  RawClient c(server.port());
  c.send(all);
  int mismatches = 0;
  for (int i = 0; i < kPipelineLength; ++i) {
    std::string got = c.read_reply();
    if (got != steps[i].reply && ++mismatches <= 5) {
      FAIL_CHECK("reply ", i, " to ", escape_bytes(steps[i].request), " is ", escape_bytes(got),
                 ", expected ", escape_bytes(steps[i].reply));
    }
  }
  CHECK(mismatches == 0);
  CHECK_FALSE(c.has_buffered_bytes());
  CHECK(c.call({"GET", "counter"}) == "$" + std::to_string(std::to_string(kPipelineLength / 6 + 1).size()) +
                                          "\r\n" + std::to_string(kPipelineLength / 6 + 1) + "\r\n");
}

TEST_CASE("hiredis pipelines 10,000 commands and reads the replies in order") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  for (int i = 0; i < kPipelineLength; ++i) {
    const std::string key = "h" + std::to_string(i);
    if (i % 2 == 0) {
      c.append(Argv{"SET", key, std::to_string(i)});
    } else {
      c.append(Argv{"INCRBY", "h" + std::to_string(i - 1), "1000000"});
    }
  }
  int mismatches = 0;
  for (int i = 0; i < kPipelineLength; ++i) {
    Reply want = i % 2 == 0 ? status("OK") : integer(i - 1 + 1000000);
    Reply got = c.read();
    if (!(got == want) && ++mismatches <= 5) FAIL_CHECK("reply ", i, " is ", escape_bytes(wire(got)));
  }
  CHECK(mismatches == 0);
  CHECK(c.call({"GET", "h9998"}) == bulk("1009998"));
}

// A client pipelines GETs of a 256 KB value and never reads a reply: the
// replies it asked for (far more than any buffer) pile up. Meanwhile another
// client must keep getting prompt answers, and the server must hold only a
// bounded amount of output for the reader that does not read.
// Replies past the point where the server pauses a client's reads (4 MB
// pending) leave in rounds: a flush that drains them runs the requests
// still unread, and their replies must leave before the loop waits again,
// as nothing would wake it: this client has sent everything and waits.
TEST_CASE("a pipeline whose replies pass the pause threshold is answered in full") {
  auto server = ServerProcess::lawnkv();
  RawClient c(server.port());
  const std::string value(1 << 20, 'v');
  REQUIRE(c.call({"SET", "big", value}) == "+OK\r\n");
  const std::string reply = "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
  for (int round = 0; round < 5; ++round) {
    std::string requests;
    for (int i = 0; i < 64; ++i) requests += encode_command({"GET", "big"});
    c.send(requests);
    for (int i = 0; i < 64; ++i) REQUIRE(c.read_reply() == reply);
  }
}

TEST_CASE("a client that pipelines and never reads does not stall the others") {
  auto server = ServerProcess::lawnkv();
  Client other(server.port());
  const std::string value(256 * 1024, 'x');
  REQUIRE(other.call(Argv{"SET", "big", value}) == status("OK"));

  const int fd = test::connect_loopback(server.port());
  REQUIRE(fd >= 0);
  // 20,000 GETs ask for 5 GB of replies.
  std::string requests;
  for (int i = 0; i < 20'000; ++i) requests += encode_command({"GET", "big"});

  // Pump requests until the server stops taking them (its reads are paused
  // or the socket buffers are full), checking between rounds that the other
  // client is answered promptly.
  const auto kPrompt = 2000ms;  // generous: the server answers in microseconds
  size_t offset = 0;
  std::chrono::nanoseconds slowest{0};
  int rounds = 0;
  int refused_in_a_row = 0;  // rounds in which the socket took nothing
  const auto give_up = SteadyClock::now() + 20s;
  while (offset < requests.size() && refused_in_a_row < 100 && SteadyClock::now() < give_up) {
    size_t n = test::send_what_fits(fd, std::string_view(requests).substr(offset));
    offset += n;
    refused_in_a_row = n == 0 ? refused_in_a_row + 1 : 0;
    ++rounds;
    auto start = SteadyClock::now();
    CHECK(other.call({"PING"}) == status("PONG"));
    CHECK(other.call({"GET", "big"}).text.size() == value.size());
    slowest = std::max<std::chrono::nanoseconds>(slowest, SteadyClock::now() - start);
  }
  MESSAGE("pumped ", offset, " of ", requests.size(), " request bytes in ", rounds,
          " rounds; slowest PING+GET of the other client: ",
          std::chrono::duration_cast<std::chrono::microseconds>(slowest).count(), " us");
  CHECK(slowest < kPrompt);

  // Stalled for good now: the other client is still served, repeatedly.
  for (int i = 0; i < 200; ++i) {
    auto start = SteadyClock::now();
    REQUIRE(other.call({"INCR", "n"}) == integer(i + 1));
    CHECK(SteadyClock::now() - start < kPrompt);
  }

  // The output held for the client that does not read stays bounded (the
  // server stops reading its requests while much is pending).
  Reply list = other.call({"CLIENT", "LIST"});
  long long max_omem = 0;
  for (size_t pos = 0; (pos = list.text.find(" omem=", pos)) != std::string::npos;) {
    pos += 6;
    max_omem = std::max(max_omem, std::stoll(list.text.substr(pos)));
  }
  MESSAGE("largest omem in CLIENT LIST: ", max_omem);
  CHECK(max_omem < 256LL * 1024 * 1024);

  // Once the client goes away, its connection and buffers go too.
  ::close(fd);
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return client_count(other) == 1; }));
  CHECK(other.call({"GET", "n"}) == bulk("200"));
  CHECK(serves(server.port()));
}

// Clients that send requests and close without reading the replies: the
// server's writes then fail (EPIPE, ECONNRESET), which must close those
// connections only. A process that does not ignore SIGPIPE dies here.
TEST_CASE("clients that close before reading their replies do not take the server down") {
  auto server = ServerProcess::lawnkv();
  Client observer(server.port());
  REQUIRE(observer.call(Argv{"SET", "big", std::string(4 * 1024 * 1024, 'b')}) == status("OK"));
  std::string gets;
  for (int i = 0; i < 4; ++i) gets += encode_command({"GET", "big"});

  for (int round = 0; round < 20; ++round) {
    INFO("round ", round);
    const int fd = test::connect_loopback(server.port());
    REQUIRE(fd >= 0);
    if (round % 2 == 1) {
      // Odd rounds reset the connection at close instead of a FIN.
      linger reset{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    }
    REQUIRE(test::send_what_fits(fd, gets) == gets.size());
    ::close(fd);
    // The server has seen the close once only the observer is left.
    bool observer_lost = false;
    bool settled = test::poll_until(SteadyClock::now() + 10s, [&] {
      try {
        return client_count(observer) == 1;
      } catch (const std::exception&) {
        observer_lost = true;
        return true;
      }
    });
    if (observer_lost) {
      std::optional<int> exit = server.wait_exit(2000ms);
      FAIL("the server dropped the observer too; ",
           exit ? "it exited: " + test::describe_status(*exit) : std::string("it still runs"));
    }
    REQUIRE(settled);
  }
  CHECK(observer.call({"STRLEN", "big"}) == integer(4 * 1024 * 1024));
  CHECK(serves(server.port()));
}

}  // namespace
}  // namespace lawnkv::itest
