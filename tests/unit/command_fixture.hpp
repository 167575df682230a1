#pragma once
// A server without sockets for command tests: a ServerState with every
// command registered, one authenticated session, keyspace notifications
// captured, and a "now" the test sets. run() sends one command through the
// dispatcher, as a connection would, and returns the reply's bytes.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/dispatch.hpp"
#include "commands/families.hpp"

namespace lawnkv::test {

struct FakeSession : Session {
  std::string peer_address() const override { return "127.0.0.1:50000"; }
  std::string local_address() const override { return "127.0.0.1:6379"; }
  int fd() const override { return -1; }
  size_t query_buffer_bytes() const override { return 0; }
  size_t query_buffer_free() const override { return 0; }
  size_t output_buffer_bytes() const override { return 0; }
  void deliver(std::string_view) override {}
  void close_soon() override {}
  void resume() override {}
};

// Keeps the keyevent notifications as "event key", or "event key@db" when
// with_db is set.
struct EventLog : pubsub::Publisher {
  std::vector<std::string> events;
  bool with_db = false;

  size_t publish(std::string_view channel, std::string_view message) override {
    // channel: __keyevent@<db>__:<event>
    const size_t at = channel.find('@'), end = channel.find("__:");
    std::string line = std::string(channel.substr(end + 3)) + " " + std::string(message);
    if (with_db) line += "@" + std::string(channel.substr(at + 1, end - at - 1));
    events.push_back(std::move(line));
    return 1;
  }
  std::vector<std::string> take() { return std::exchange(events, {}); }
};

inline constexpr int64_t kT0 = 1'700'000'000'000;  // the tests' first "now", Unix ms

struct CommandServer {
  ServerState state{config::Config()};
  FakeSession session;
  EventLog log;
  int64_t now = kT0;

  // Notifications of the given classes go to log (keyevent channel only).
  explicit CommandServer(uint32_t event_classes = pubsub::kAll | pubsub::kNew | pubsub::kKeyMiss) {
    register_all_commands(state.commands);
    session.id = 1;
    session.authenticated = true;
    state.sessions[1] = &session;
    state.config.mutable_values().notify_keyspace_events = pubsub::kKeyeventChannel | event_classes;
    state.notifier.set_publisher(&log);
    state.keyspace.set_listener(&state.notifier);  // `expired`, as main.cpp wires it
  }

  std::string run(std::vector<std::string> args) {
    std::vector<std::string_view> argv(args.begin(), args.end());
    std::string out;
    resp::Writer w(out, session.protocol);
    dispatch(state, session, w, argv, now);
    return out;
  }
};

}  // namespace lawnkv::test
