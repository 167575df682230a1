#pragma once
// A server without sockets for command tests: a ServerState built as main
// builds it (make_server_state), one authenticated session, keyspace
// notifications captured, and a "now" the test sets. run() sends one command
// through the dispatcher, as a connection would, and returns the reply's
// bytes.

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/server_factory.hpp"
#include "engine/dispatch.hpp"
#include "engine/server_state.hpp"

namespace lawnkv::test {

// A client without a socket: what it is delivered (messages, the replies of
// blocked commands) is kept in `delivered`; on_deliver runs after each
// delivery (to act as the server does when an output limit closes it).
struct FakeSession : Session {
  std::string peer = "127.0.0.1:50000";
  std::vector<std::string> delivered;
  std::function<void()> on_deliver;
  size_t resumed = 0;

  std::string peer_address() const override { return peer; }
  std::string local_address() const override { return "127.0.0.1:6379"; }
  int fd() const override { return -1; }
  size_t query_buffer_bytes() const override { return 0; }
  size_t query_buffer_free() const override { return 0; }
  size_t output_buffer_bytes() const override { return 0; }
  void deliver(std::string_view frame) override {
    delivered.emplace_back(frame);
    if (on_deliver) on_deliver();
  }
  void close_soon() override {}
  void resume() override { ++resumed; }
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
  std::unique_ptr<ServerState> owned;
  ServerState& state;
  FakeSession session;
  EventLog log;
  int64_t now = kT0;

  // Notifications of the given classes go to log (keyevent channel only).
  explicit CommandServer(uint32_t event_classes = pubsub::kAll | pubsub::kNew | pubsub::kKeyMiss)
      : CommandServer(config::Config()) {
    state.config.mutable_values().notify_keyspace_events = pubsub::kKeyeventChannel | event_classes;
    state.data.notifier.set_publisher(&log);
  }
  // With cfg as it is: notifications as configured, to the server's own hub.
  explicit CommandServer(config::Config cfg) : owned(make_server_state(std::move(cfg))), state(*owned) {
    session.id = state.clients.next_id();
    session.authenticated = true;
    state.clients.add(session);
  }
  ~CommandServer() { state.clients.remove(session); }

  std::string run(std::vector<std::string> args) { return run_as(session, std::move(args)); }
  // The same for another client (registered in state.clients by the test).
  std::string run_as(Session& client, std::vector<std::string> args) {
    std::vector<std::string_view> argv(args.begin(), args.end());
    std::string out;
    resp::Writer w(out, client.protocol);
    dispatch(state, client, w, argv, now);
    return out;
  }
};

// A fixture with extra clients, each registered as the server registers
// its connections.
struct BlockingServer : CommandServer {
  using CommandServer::CommandServer;
  std::deque<FakeSession> others;

  FakeSession& client() {
    FakeSession& c = others.emplace_back();
    c.id = state.clients.next_id();
    c.authenticated = true;
    state.clients.add(c);
    return c;
  }
  ~BlockingServer() {
    for (FakeSession& c : others) {
      state.data.blocking.forget(c);
      state.clients.remove(c);
    }
  }
  BlockingTable& table() { return state.data.blocking; }
  void serve() { serve_blocked(state, now); }
};

}  // namespace lawnkv::test
