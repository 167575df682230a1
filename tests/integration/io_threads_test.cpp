// io-threads 4 with io-threads-do-reads yes (src/server/io_threads.hpp), and
// once with no (the threads write only):
// three I/O threads read, parse and write for the clients while commands run
// on the main thread. Each case is one that a thread could break: replies of
// a pipeline in order, clients served concurrently, a client killed while
// its reply is half written, messages and popped elements delivered to
// clients served by other threads, output-buffer limits, QUIT and RESET, and
// connections opening and closing under load. The bytes of the main
// thread's own reads and writes (/proc/<pid>/task/<pid>/io) show that the
// threads move the sockets' bytes.

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/net.hpp"
#include "../support/poll_until.hpp"
#include "../support/process.hpp"
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

ServerProcess threaded_server(std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--io-threads", "4", "--io-threads-do-reads", "yes"};
  args.insert(args.end(), extra.begin(), extra.end());
  return ServerProcess::lawnkv(args);
}

// A field of /proc/<pid>/task/<tid>/io ("rchar", "wchar"): the bytes that
// thread's read and write system calls moved.
long long task_io(pid_t pid, pid_t tid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/io");
  std::string name;
  long long value = 0;
  while (in >> name >> value)
    if (name == field + ":") return value;
  return -1;
}

// The names of the server's threads (/proc/<pid>/task/*/comm).
std::vector<std::string> thread_names(pid_t pid) {
  std::vector<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream in(task.path() / "comm");
    std::string name;
    if (in >> name) names.push_back(name);
  }
  return names;
}

TEST_CASE("io-threads: the directives, CONFIG GET, and CONFIG SET refused as Redis refuses it") {
  auto server = threaded_server();
  Client c(server.port());
  CHECK(wire(c.call({"CONFIG", "GET", "io-threads*"})) ==
        "*4\r\n$10\r\nio-threads\r\n$1\r\n4\r\n$19\r\nio-threads-do-reads\r\n$3\r\nyes\r\n");
  CHECK(wire(c.call({"CONFIG", "SET", "io-threads", "2"})) ==
        "-ERR CONFIG SET failed (possibly related to argument 'io-threads') - can't set immutable config\r\n");
  CHECK(wire(c.call({"CONFIG", "SET", "io-threads-do-reads", "no"})) ==
        "-ERR CONFIG SET failed (possibly related to argument 'io-threads-do-reads') - can't set immutable "
        "config\r\n");
}

TEST_CASE("io-threads: the I/O threads, not the main thread, read and write the sockets") {
  auto server = threaded_server();
  const pid_t pid = server.pid();
  int io_threads = 0;
  for (const std::string& name : thread_names(pid)) io_threads += name.rfind("io_thd_", 0) == 0;
  CHECK(io_threads == 3);
  RawClient c(server.port());
  REQUIRE(c.call({"PING"}) == "+PONG\r\n");
  // Bytes, not calls: the main thread reads and writes the eventfds that
  // wake it and the threads (8 bytes a wake-up), never the sockets, whose
  // requests and replies here carry 200-byte values.
  const long long read0 = task_io(pid, pid, "rchar"), written0 = task_io(pid, pid, "wchar");
  REQUIRE(read0 >= 0);
  constexpr int kRequests = 1000;
  const std::string value(200, 'v');
  size_t sent = 0, received = 0;
  for (int i = 0; i < kRequests; ++i) {
    const std::string set = encode_command({"SET", "k", value});
    const std::string get = encode_command({"GET", "k"});
    REQUIRE(c.call({"SET", "k", value}) == "+OK\r\n");
    REQUIRE(c.call({"GET", "k"}) == "$200\r\n" + value + "\r\n");
    sent += set.size() + get.size();
    received += 5 + 7 + value.size();
  }
  const long long main_read = task_io(pid, pid, "rchar") - read0;
  const long long main_written = task_io(pid, pid, "wchar") - written0;
  MESSAGE("main thread: " << main_read << " bytes read, " << main_written << " written; clients sent " << sent
                          << ", received " << received);
  CHECK(main_read < static_cast<long long>(sent / 4));
  CHECK(main_written < static_cast<long long>(received / 4));
}

// io-threads-do-reads no (Redis 7.0's default): the loop reads and parses
// every socket as with one thread, and the I/O threads only write.
TEST_CASE("io-threads-do-reads no: the main thread reads the sockets, the I/O threads write them") {
  auto server = ServerProcess::lawnkv({"--io-threads", "4", "--io-threads-do-reads", "no"});
  const pid_t pid = server.pid();
  RawClient c(server.port());
  REQUIRE(c.call({"CONFIG", "GET", "io-threads-do-reads"}) == "*2\r\n$19\r\nio-threads-do-reads\r\n$2\r\nno\r\n");
  const long long read0 = task_io(pid, pid, "rchar"), written0 = task_io(pid, pid, "wchar");
  REQUIRE(read0 >= 0);
  constexpr int kRequests = 500;
  const std::string value(200, 'v');
  size_t sent = 0, received = 0;
  for (int i = 0; i < kRequests; ++i) {
    REQUIRE(c.call({"SET", "k", value}) == "+OK\r\n");
    REQUIRE(c.call({"GET", "k"}) == "$200\r\n" + value + "\r\n");
    sent += encode_command({"SET", "k", value}).size() + encode_command({"GET", "k"}).size();
    received += 5 + 7 + value.size();
  }
  const long long main_read = task_io(pid, pid, "rchar") - read0;
  const long long main_written = task_io(pid, pid, "wchar") - written0;
  MESSAGE("main thread: " << main_read << " bytes read, " << main_written << " written; clients sent " << sent
                          << ", received " << received);
  CHECK(main_read >= static_cast<long long>(sent));
  CHECK(main_written < static_cast<long long>(received / 4));

  // A pipeline parsed on the main thread, answered in order; a reply too
  // big for the socket at once (its thread waits for room), then more.
  std::string pipeline;
  for (int i = 0; i < 100; ++i) pipeline += encode_command({"INCR", "n"});
  c.send(pipeline);
  bool in_order = true;
  for (int i = 1; i <= 100; ++i) in_order = in_order && c.read_reply() == ":" + std::to_string(i) + "\r\n";
  CHECK(in_order);
  const std::string big(8 << 20, 'b');
  REQUIRE(c.call({"SET", "big", big}) == "+OK\r\n");
  CHECK(c.call({"GET", "big"}) == "$" + std::to_string(big.size()) + "\r\n" + big + "\r\n");
  CHECK(c.call({"PING"}) == "+PONG\r\n");

  const std::string info = c.call({"INFO", "stats"});
  CHECK(info_int(info, "io_threaded_reads_processed") == 0);
  CHECK(info_int(info, "io_threaded_writes_processed") >= 2 * kRequests);
  c.send("QUIT\r\n");
  CHECK(c.read_reply() == "+OK\r\n");
  CHECK(c.wait_closed());
}

TEST_CASE("io-threads: INFO counts the threads' reads and writes, as Redis's io_threaded_*_processed") {
  auto server = threaded_server();
  Client c(server.port());
  // The harness's readiness probe may still be closing: its EOF is a read
  // too. Counted from when this client is the only one.
  REQUIRE(test::poll_until(SteadyClock::now() + 5s, [&] {
    return info_int(c.call({"INFO", "clients"}).text, "connected_clients") == 1;
  }));
  const std::string before = c.call({"INFO", "stats"}).text;
  constexpr int kRequests = 100;
  for (int i = 0; i < kRequests; ++i) REQUIRE(c.integer({"INCR", "n"}) == i + 1);
  const std::string after = c.call({"INFO", "everything"}).text;
  // A read and a write a request, and the INFO's own.
  CHECK(info_int(after, "io_threaded_reads_processed") - info_int(before, "io_threaded_reads_processed") ==
        kRequests + 1);
  CHECK(info_int(after, "io_threaded_writes_processed") - info_int(before, "io_threaded_writes_processed") ==
        kRequests + 1);
  CHECK(info_int(after, "io_threads_active") == 1);
  CHECK(c.call({"CONFIG", "RESETSTAT"}) == status("OK"));
  CHECK(info_int(c.call({"INFO", "stats"}).text, "io_threaded_writes_processed") == 1);  // CONFIG RESETSTAT's reply

  // io-threads 1: no thread, nothing counted, as Redis.
  auto plain = ServerProcess::lawnkv({"--io-threads", "1"});
  Client p(plain.port());
  for (int i = 0; i < kRequests; ++i) REQUIRE(p.integer({"INCR", "n"}) == i + 1);
  const std::string info = p.call({"INFO", "everything"}).text;
  CHECK(info_int(info, "io_threads_active") == 0);
  CHECK(info_int(info, "io_threaded_reads_processed") == 0);
  CHECK(info_int(info, "io_threaded_writes_processed") == 0);
}

TEST_CASE("io-threads: a pipeline's replies come back whole and in order") {
  auto server = threaded_server();
  RawClient c(server.port());
  // About 1 MB of requests in one send: many reads, some parsed on a
  // thread, the rest on the main thread, replies written in pieces.
  constexpr int kRequests = 20'000;
  std::string requests;
  for (int i = 0; i < kRequests; ++i) {
    const std::string n = std::to_string(i);
    requests += encode_command({"INCR", "counter"});
    requests += encode_command({"SET", "k" + n, std::string(20, 'v') + n});
    requests += encode_command({"GET", "k" + n});
  }
  std::thread sender([&] { c.send(requests); });
  bool in_order = true;
  for (int i = 0; i < kRequests && in_order; ++i) {
    const std::string n = std::to_string(i);
    const std::string value = std::string(20, 'v') + n;
    in_order = c.read_reply() == ":" + std::to_string(i + 1) + "\r\n" && c.read_reply() == "+OK\r\n" &&
               c.read_reply() == "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
    if (!in_order) MESSAGE("reply " << i << " out of order");
  }
  sender.join();
  CHECK(in_order);
  CHECK(c.call({"GET", "counter"}) == "$5\r\n20000\r\n");
}

TEST_CASE("io-threads: many clients at once, each served in its own order") {
  auto server = threaded_server();
  constexpr int kClients = 16, kEach = 1000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      try {
        Client c(server.port());
        const std::string own = "own" + std::to_string(t);
        for (int i = 0; i < kEach; ++i) {
          // Its own key counts its requests in its order; the shared key
          // counts everyone's.
          if (c.integer({"INCR", own}) != i + 1) ++wrong;
          c.append({"INCR", "shared"});
          c.append({"RPUSH", "list" + std::to_string(t), std::to_string(i)});
          c.read();
          if (c.read().text != std::to_string(i + 1)) ++wrong;
        }
      } catch (const std::exception&) {
        ++wrong;
      }
    });
  }
  for (auto& t : clients) t.join();
  CHECK(wrong == 0);
  Client c(server.port());
  CHECK(std::stoll(c.call({"GET", "shared"}).text) == kClients * kEach);
  const Reply list = c.call({"LRANGE", "list7", "0", "-1"});
  REQUIRE(list.elements.size() == kEach);
  bool ordered = true;
  for (int i = 0; i < kEach; ++i) ordered = ordered && list.elements[i].text == std::to_string(i);
  CHECK(ordered);
}

TEST_CASE("io-threads: CLIENT KILL of a client whose big reply is half written") {
  auto server = threaded_server();
  Client admin(server.port());
  REQUIRE(admin.call({"SET", "big", std::string(1 << 20, 'x')}) == status("OK"));
  const int fd = test::connect_loopback(server.port());
  REQUIRE(fd >= 0);
  std::string requests = encode_command({"CLIENT", "SETNAME", "stalled"});
  for (int i = 0; i < 20; ++i) requests += encode_command({"GET", "big"});
  REQUIRE(test::send_what_fits(fd, requests) == requests.size());
  // 20 MB of replies that it does not read: the kernel takes a few MB, the
  // rest of a reply waits in its output buffer (part of it written), and
  // the GETs after it wait unread (the 4 MB pause).
  long long omem = 0;
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] {
    const std::string list = admin.call({"CLIENT", "LIST"}).text;
    const size_t at = list.find(" name=stalled ");
    if (at == std::string::npos) return false;
    omem = std::stoll(list.substr(list.find(" omem=", at) + 6));
    return omem > 0;
  }));
  MESSAGE("stalled client's omem " << omem);
  CHECK(admin.integer({"CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal"}) == 1);
  // Gone at once, as Redis frees it, while it still reads nothing (not once
  // its half-written reply has drained).
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return client_count(admin) == 1; }));
  // Its socket is closed: reading drains what was sent and ends.
  char buf[65536];
  ssize_t n;
  size_t got = 0;
  timeval wait{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got += static_cast<size_t>(n);
  CHECK(n == 0);
  CHECK(got < 20u * (1 << 20));
  ::close(fd);
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] { return client_count(admin) == 1; }));
  CHECK(serves(server.port()));
}

TEST_CASE("io-threads: pub/sub fan-out and blocking pops reach clients on other threads") {
  auto server = threaded_server();
  constexpr int kSubscribers = 8, kMessages = 200;
  std::vector<RawClient> subs;
  for (int i = 0; i < kSubscribers; ++i) {
    subs.emplace_back(server.port());
    REQUIRE(subs.back().call({"SUBSCRIBE", "news"}) == "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n");
  }
  Client pub(server.port());
  for (int m = 0; m < kMessages; ++m) REQUIRE(pub.integer({"PUBLISH", "news", std::to_string(m)}) == kSubscribers);
  bool all = true;
  for (auto& s : subs)
    for (int m = 0; m < kMessages && all; ++m) {
      const std::string text = std::to_string(m);
      all = s.read_reply() == "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$" + std::to_string(text.size()) + "\r\n" +
                                 text + "\r\n";
    }
  CHECK(all);

  // Blocked in this order, served in this order, one element each.
  constexpr int kPoppers = 6;
  std::vector<RawClient> poppers;
  for (int i = 0; i < kPoppers; ++i) {
    poppers.emplace_back(server.port());
    poppers.back().send(encode_command({"BLPOP", "q", "0"}));
    REQUIRE(test::poll_until(SteadyClock::now() + 5s, [&] {
      return info_int(pub.call({"INFO", "clients"}).text, "blocked_clients") == i + 1;
    }));
  }
  CHECK(pub.integer({"RPUSH", "q", "e0", "e1", "e2", "e3", "e4", "e5"}) == kPoppers);
  for (int i = 0; i < kPoppers; ++i)
    CHECK(poppers[i].read_reply() == "*2\r\n$1\r\nq\r\n$2\r\ne" + std::to_string(i) + "\r\n");
}

TEST_CASE("io-threads: the output-buffer limit closes a client that does not read") {
  auto server = threaded_server({"--client-output-buffer-limit", "normal 2mb 0 0"});
  Client admin(server.port());
  REQUIRE(admin.call({"SET", "big", std::string(256 * 1024, 'x')}) == status("OK"));
  const int fd = test::connect_loopback(server.port());
  REQUIRE(fd >= 0);
  std::string requests;
  for (int i = 0; i < 200; ++i) requests += encode_command({"GET", "big"});
  REQUIRE(test::send_what_fits(fd, requests) == requests.size());
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] {
    return info_int(admin.call({"INFO", "stats"}).text, "client_output_buffer_limit_disconnections") == 1;
  }));
  ::close(fd);
  CHECK(serves(server.port()));
}

TEST_CASE("io-threads: QUIT closes after its reply; RESET resets") {
  auto server = threaded_server();
  RawClient q(server.port());
  q.send("PING\r\nQUIT\r\nPING\r\n");
  CHECK(q.read_reply() == "+PONG\r\n");
  CHECK(q.read_reply() == "+OK\r\n");
  CHECK(q.wait_closed());

  RawClient r(server.port());
  r.send(encode_command({"CLIENT", "SETNAME", "x"}) + encode_command({"SELECT", "3"}) + encode_command({"MULTI"}) +
         encode_command({"RESET"}) + encode_command({"CLIENT", "GETNAME"}) + encode_command({"EXEC"}));
  CHECK(r.read_reply() == "+OK\r\n");
  CHECK(r.read_reply() == "+OK\r\n");
  CHECK(r.read_reply() == "+OK\r\n");
  CHECK(r.read_reply() == "+RESET\r\n");
  CHECK(r.read_reply() == "$-1\r\n");
  CHECK(r.read_reply() == "-ERR EXEC without MULTI\r\n");
}

// An I/O thread told to stop just as it went to sleep slept on: SIGTERM
// then hung in the join (until the harness's SIGKILL). Stopped right after
// a request, while the threads go from work to sleep, each server must exit
// on its own within the grace.
TEST_CASE("io-threads: SIGTERM stops the server while its threads fall asleep") {
  for (int round = 0; round < 25; ++round) {
    CAPTURE(round);
    auto server = threaded_server();
    RawClient c(server.port());
    REQUIRE(c.call({"PING"}) == "+PONG\r\n");
    const int status = server.stop(3s);
    CHECK_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0), test::describe_status(status));
  }
}

TEST_CASE("io-threads: 10,000 connections open at once and close while others load the server") {
  constexpr int kWaves = 20, kPerWave = 500, kConnections = kWaves * kPerWave;
  // This process holds every client socket at once: room for them, up to
  // the hard limit (the server, a child, inherits it and raises its own).
  constexpr rlim_t kFiles = kConnections + 200;
  rlimit rl{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &rl) == 0);
  if (rl.rlim_cur < kFiles) {
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < kFiles) {
      MESSAGE("skipped: the hard limit of open files is " << rl.rlim_max << ", " << kFiles << " are needed");
      return;
    }
    rl.rlim_cur = kFiles;
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &rl) == 0);
  }
  auto server = threaded_server({"--maxclients", std::to_string(kConnections + 100)});
  const long long connections_before =
      info_int(Client(server.port()).call({"INFO", "stats"}).text, "total_connections_received");
  std::atomic<bool> stop{false};
  std::atomic<long long> done{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> load;
  for (int t = 0; t < 2; ++t) {
    load.emplace_back([&] {
      try {
        Client c(server.port());
        while (!stop) {
          for (int i = 0; i < 16; ++i) c.append({"INCR", "load"});
          for (int i = 0; i < 16; ++i) c.read();
          done += 16;
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  int served = 0;
  {
    std::vector<RawClient> open;
    open.reserve(kConnections);
    for (int w = 0; w < kWaves; ++w) {
      for (int i = 0; i < kPerWave; ++i) open.emplace_back(server.port());
      // Some say something first, some stay silent.
      for (int i = 0; i < kPerWave; i += 2) served += open[w * kPerWave + i].call({"PING"}) == "+PONG\r\n";
    }
    Client c(server.port());
    CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return client_count(c) == kConnections + 3; }));
  }  // all of them close at once
  stop = true;
  for (auto& t : load) t.join();
  CHECK(errors == 0);
  CHECK(served == kConnections / 2);
  Client c(server.port());
  CHECK(std::stoll(c.call({"GET", "load"}).text) == done);
  CHECK(test::poll_until(SteadyClock::now() + 10s, [&] { return client_count(c) == 1; }));
  // The waves, the two loaders, the count's client and c.
  CHECK(info_int(c.call({"INFO", "stats"}).text, "total_connections_received") - connections_before ==
        kConnections + 4);
}

}  // namespace
}  // namespace lawnkv::itest
