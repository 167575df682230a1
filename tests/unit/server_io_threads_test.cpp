// The I/O threads' parts (src/server/spsc_queue.hpp, io_threads.hpp): the
// queue hands items over in order across threads and block boundaries; an
// I/O thread reads a socket it was given only while it holds the read side,
// hands it over with a kRead message that wakes the loop, writes what a
// kWrite job hands it (waiting for room when the peer does not read; a
// message only when its end was asked for or it failed), and lets go of
// the socket on kClose before answering kClosed.

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/io_threads.hpp"
#include "server/spsc_queue.hpp"

namespace lawnkv::server {
namespace {

TEST_CASE("spsc queue: every item once, in order, across threads and blocks") {
  SpscQueue<IoMessage> q;
  IoMessage m;
  CHECK(q.empty());
  CHECK_FALSE(q.pop(&m));
  constexpr int64_t kItems = 100'000;  // about 100 blocks
  std::thread producer([&] {
    for (int64_t i = 0; i < kItems; ++i) q.push(IoMessage{nullptr, IoMessage::kRead, i});
  });
  int64_t next = 0;
  bool in_order = true;
  while (next < kItems) {
    if (!q.pop(&m)) continue;
    in_order = in_order && m.value == next;
    ++next;
  }
  producer.join();
  CHECK(in_order);
  CHECK(q.empty());
  CHECK_FALSE(q.pop(&m));
}

// A socket's read side and output as the thread sees them.
class FakeClient final : public IoClient {
 public:
  explicit FakeClient(int fd) : fd_(fd) {}
  ssize_t io_read(bool* drained) override {
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    *drained = n < 0 && errno == EAGAIN;
    if (n > 0) {
      got.append(buf, static_cast<size_t>(n));
      return n;
    }
    return n == 0 ? -1 : 0;
  }
  bool io_write(bool* failed) override {
    while (sent < out.size()) {
      const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n < 0) {
        *failed = errno != EAGAIN;
        return *failed;
      }
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  int io_fd() const override { return fd_; }

  std::string got;   // the thread's while it holds the read side
  std::string out;   // handed to the thread by a kWrite job
  size_t sent = 0;

 private:
  int fd_;
};

struct Loop {
  uv_loop_t loop;
  std::vector<IoMessage> messages;
  IoThreads* threads = nullptr;  // before_sleep() before each turn, as the server's prepare phase
  Loop() { uv_loop_init(&loop); }
  ~Loop() {
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_loop_close(&loop);
  }
  // One turn of the loop, without waiting.
  void turn() {
    if (threads != nullptr) threads->before_sleep();
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  // Runs the loop until a message of this kind came (false after 5 s).
  bool wait_for(uint8_t kind) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      for (const IoMessage& m : messages)
        if (m.kind == kind) return true;
      turn();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }
};

TEST_CASE("io threads: read, hand over, write, wait for room, let go") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0);
  Loop l;
  size_t batches = 0;
  IoThreads threads(
      1, &l.loop, [&](const IoMessage& m) { l.messages.push_back(m); }, [&](const IoThreads::Batch&) { ++batches; });
  l.threads = &threads;
  FakeClient c(fds[0]);

  // The main thread holds the read side: the thread does not read.
  REQUIRE(::write(fds[1], "ping", 4) == 4);
  c.input_owner.store(IoClient::kMain);
  threads.post(0, &c, IoMessage::kAdd);
  threads.kick();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  l.turn();
  CHECK(l.messages.empty());

  // Given back (kResume): it reads what came meanwhile and hands it over.
  c.input_owner.store(IoClient::kThreadIdle, std::memory_order_release);
  threads.post(0, &c, IoMessage::kResume);
  threads.kick();
  REQUIRE(l.wait_for(IoMessage::kRead));
  CHECK(batches >= 1);
  CHECK(c.input_owner.load(std::memory_order_acquire) == IoClient::kMain);
  CHECK(c.got == "ping");
  CHECK(l.messages[0].value == 4);
  l.messages.clear();

  // A write done at once, its end not asked for: no message, the state
  // says it (the main thread takes it in when it next looks).
  c.out = "+PONG\r\n";
  c.write_state.store(IoClient::kWriteOut, std::memory_order_relaxed);
  threads.post(0, &c, IoMessage::kWrite);
  threads.kick();
  const auto written_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (c.write_state.load(std::memory_order_acquire) != IoClient::kWriteDone &&
         std::chrono::steady_clock::now() < written_by)
    std::this_thread::yield();
  CHECK(c.write_state.load(std::memory_order_acquire) == IoClient::kWriteDone);
  CHECK(c.sent == c.out.size());
  l.turn();
  CHECK(l.messages.empty());
  char pong[16];
  CHECK(::read(fds[1], pong, sizeof pong) == 7);

  // A write the peer does not read in full, its end asked for after it was
  // handed over (the main thread's compare-exchange): kWritten only once
  // it drains.
  c.out.assign(4 << 20, 'x');
  c.sent = 0;
  c.write_state.store(IoClient::kWriteOut, std::memory_order_relaxed);
  threads.post(0, &c, IoMessage::kWrite);
  threads.kick();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  l.turn();
  CHECK(l.messages.empty());
  uint8_t out = IoClient::kWriteOut;
  CHECK(c.write_state.compare_exchange_strong(out, IoClient::kWriteNotify));
  size_t drained = 0;
  char buf[65536];
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (drained < c.out.size() && std::chrono::steady_clock::now() < until) {
    const ssize_t n = ::read(fds[1], buf, sizeof buf);
    if (n > 0) drained += static_cast<size_t>(n);
  }
  CHECK(drained == c.out.size());
  REQUIRE(l.wait_for(IoMessage::kWritten));
  CHECK(c.write_state.load(std::memory_order_acquire) == IoClient::kWriteNotified);
  l.messages.clear();

  // A write that fails is always told of, asked for or not.
  c.out = "+PONG\r\n";
  c.sent = 0;
  c.write_state.store(IoClient::kWriteOut, std::memory_order_relaxed);
  ::shutdown(fds[0], SHUT_WR);
  threads.post(0, &c, IoMessage::kWrite);
  threads.kick();
  REQUIRE(l.wait_for(IoMessage::kWritten));
  CHECK(c.write_state.load(std::memory_order_acquire) == IoClient::kWriteNotified);
  l.messages.clear();

  // kClose: the thread lets go; after kClosed the socket may be closed.
  threads.post(0, &c, IoMessage::kClose);
  threads.kick();
  REQUIRE(l.wait_for(IoMessage::kClosed));
  threads.stop();
  uv_run(&l.loop, UV_RUN_NOWAIT);  // the loop lets go of the threads' handle
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_CASE("io threads: messages sent while the loop is awake wake nothing; once it sleeps, one wake-up") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0);
  Loop l;
  IoThreads threads(1, &l.loop, [&](const IoMessage& m) { l.messages.push_back(m); }, [](const IoThreads::Batch&) {});
  l.threads = &threads;
  FakeClient c(fds[0]);
  c.input_owner.store(IoClient::kThreadIdle, std::memory_order_release);

  // The loop is awake (it has not been through before_sleep): the thread
  // queues its kRead without writing the eventfd, and the loop's poll has
  // nothing to report.
  REQUIRE(::write(fds[1], "ping", 4) == 4);
  threads.post(0, &c, IoMessage::kAdd);
  threads.kick();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!threads.messages_waiting() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  REQUIRE(threads.messages_waiting());
  uv_run(&l.loop, UV_RUN_NOWAIT);
  CHECK(l.messages.empty());
  CHECK(threads.loop_wakeups() == 0);
  // Its look before sleeping finds the message; the next turn drains it.
  l.turn();
  REQUIRE(l.messages.size() == 1);
  CHECK(l.messages[0].kind == IoMessage::kRead);
  CHECK(threads.loop_wakeups() == 0);
  l.messages.clear();

  // Nothing waits now: the loop counts as asleep, and the next message
  // writes the eventfd once; the poll alone drains it.
  threads.before_sleep();
  c.input_owner.store(IoClient::kThreadIdle, std::memory_order_release);
  REQUIRE(::write(fds[1], "pong", 4) == 4);
  threads.post(0, &c, IoMessage::kResume);
  threads.kick();
  while (threads.loop_wakeups() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  CHECK(threads.loop_wakeups() == 1);
  for (int i = 0; i < 100 && l.messages.empty(); ++i) {
    uv_run(&l.loop, UV_RUN_NOWAIT);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(l.messages.size() == 1);
  CHECK(l.messages[0].kind == IoMessage::kRead);
  CHECK(c.got == "pingpong");

  threads.post(0, &c, IoMessage::kClose);
  threads.kick();
  REQUIRE(l.wait_for(IoMessage::kClosed));
  threads.stop();
  uv_run(&l.loop, UV_RUN_NOWAIT);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace lawnkv::server
