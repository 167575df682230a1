#pragma once
// A client without a socket: the AOF loader replays the file as one, a
// script's redis.call runs its commands as one, and next the replica's link
// to its primary. Nothing it runs may block (Call::may_block), and what is
// delivered to it (a push message) goes nowhere; a caller that wants the
// replies passes its own resp::Writer to dispatch.

#include <string>
#include <string_view>

#include "engine/session.hpp"

namespace lawnkv {

class DetachedSession final : public Session {
 public:
  DetachedSession() {
    authenticated = true;
    detached = true;
  }
  std::string peer_address() const override { return ""; }
  std::string local_address() const override { return ""; }
  int fd() const override { return -1; }
  size_t query_buffer_bytes() const override { return 0; }
  size_t query_buffer_free() const override { return 0; }
  size_t output_buffer_bytes() const override { return 0; }
  void deliver(std::string_view) override {}
  void close_soon() override {}
  void resume() override {}
};

}  // namespace lawnkv
