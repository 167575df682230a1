#pragma once
// Loopback TCP helpers shared by ServerProcess and RawClient.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lawnkv::test {

// A TCP port on 127.0.0.1 that is free right now (bind port 0, read it back,
// close). Another process may take it before the caller binds it, so whoever
// starts a server on it must be ready to retry with another port.
uint16_t pick_free_port();

// Connects to 127.0.0.1:port. Returns a blocking socket with TCP_NODELAY set,
// or -1 with errno set when nothing accepts the connection.
int connect_loopback(uint16_t port);

// Sends as much of `bytes` as the socket takes without blocking; returns how
// many bytes it took (fewer when its buffers are full or the peer closed).
size_t send_what_fits(int fd, std::string_view bytes);

}  // namespace lawnkv::test
