#pragma once
// The replica's client for its primary (Redis's server.master): the stream
// of the primary's writes runs as this session's commands, through the
// normal dispatch. It is obeyed whatever replica-read-only says, never
// answered (what dispatch writes goes to a scratch buffer), and listed by
// CLIENT LIST with flags=M; CLIENT KILL TYPE master drops the link.
//
// The socket is the server's (server/replica_link.hpp): the addresses are
// given when the link connects.

#include <functional>
#include <string>
#include <string_view>

#include "engine/session.hpp"

namespace lawnkv::replication {

class PrimarySession final : public Session {
 public:
  PrimarySession() {
    authenticated = true;
    detached = true;  // nothing it runs may block
    master = true;
  }
  std::string peer_address() const override { return peer_; }
  std::string local_address() const override { return local_; }
  int fd() const override { return fd_; }
  size_t query_buffer_bytes() const override { return pending_input; }
  size_t query_buffer_free() const override { return 0; }
  size_t output_buffer_bytes() const override { return 0; }
  void deliver(std::string_view) override {}
  // CLIENT KILL: the link goes once the current command is done.
  void close_soon() override {
    if (on_kill) on_kill();
  }
  void resume() override {}

  void set_socket(std::string peer, std::string local, int fd) {
    peer_ = std::move(peer);
    local_ = std::move(local);
    fd_ = fd;
  }

  std::function<void()> on_kill;
  size_t pending_input = 0;  // stream bytes read, not yet a whole command

 private:
  std::string peer_;
  std::string local_;
  int fd_ = -1;
};

}  // namespace lawnkv::replication
