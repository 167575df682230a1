// CONFIG SET port / bind at run time, against both servers: the listener
// moves (connected clients stay), a port or address that cannot be bound is
// Redis's error and changes nothing, including the other parameters of the
// same CONFIG SET, and the server still listens where it did.

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "../support/net.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using test::ServerProcess;

// A socket listening on 127.0.0.1:port, so that nobody else can bind it.
class PortHolder {
 public:
  PortHolder() {
    for (int attempt = 0; attempt < 20 && fd_ < 0; ++attempt) {
      port_ = test::pick_free_port();
      fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(port_);
      sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd_, 1) != 0) {
        ::close(fd_);
        fd_ = -1;
      }
    }
    REQUIRE(fd_ >= 0);
  }
  ~PortHolder() { ::close(fd_); }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

std::string config_get(Client& c, const std::string& name) {
  const Reply r = c.call({"CONFIG", "GET", name});
  REQUIRE(r.elements.size() == 2);
  return r.elements[1].text;
}

bool accepts(uint16_t port) {
  const int fd = test::connect_loopback(port);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace

TEST_CASE("CONFIG SET port moves the listener; a port in use is refused and nothing changes") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = redis ? ServerProcess::redis() : ServerProcess::lawnkv();
    const uint16_t old_port = server.port();
    Client admin(old_port);
    const std::string old = std::to_string(old_port);

    // To a port in use, with other parameters: none of them changes.
    PortHolder taken;
    const std::string busy = std::to_string(taken.port());
    CHECK(admin.call({"CONFIG", "SET", "timeout", "30", "port", busy, "maxmemory", "10mb"}) ==
          error("ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. "
                "Check server logs."));
    CHECK(config_get(admin, "port") == old);
    CHECK(config_get(admin, "timeout") == "0");
    CHECK(config_get(admin, "maxmemory") == "0");
    CHECK(info_int(admin.call({"INFO", "server"}).text, "tcp_port") == old_port);
    CHECK(accepts(old_port));
    CHECK(serves(old_port));

    // The same port: nothing to do.
    CHECK(admin.call({"CONFIG", "SET", "port", old}) == status("OK"));
    CHECK(serves(old_port));

    // To a free port: the server listens there, no longer on the old one,
    // and the client that asked stays connected.
    const uint16_t new_port = test::pick_free_port();
    CHECK(admin.call({"CONFIG", "SET", "port", std::to_string(new_port), "timeout", "30"}) == status("OK"));
    CHECK(config_get(admin, "port") == std::to_string(new_port));
    CHECK(config_get(admin, "timeout") == "30");
    CHECK(info_int(admin.call({"INFO", "server"}).text, "tcp_port") == new_port);
    CHECK(serves(new_port));
    CHECK_FALSE(accepts(old_port));
    // Back, so that the server can be stopped where it was started.
    CHECK(admin.call({"CONFIG", "SET", "port", old}) == status("OK"));
    CHECK(serves(old_port));
  }
}

TEST_CASE("CONFIG SET bind rebinds; an address that cannot be bound is refused and nothing changes") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = redis ? ServerProcess::redis() : ServerProcess::lawnkv();
    Client admin(server.port());
    const std::string old = config_get(admin, "bind");
    // 192.0.2.1 (TEST-NET-1) is no address of this machine.
    CHECK(admin.call({"CONFIG", "SET", "bind", "192.0.2.1", "timeout", "30"}) ==
          error("ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses."));
    CHECK(config_get(admin, "bind") == old);
    CHECK(config_get(admin, "timeout") == "0");
    CHECK(serves(server.port()));
    // An optional address that cannot be bound is skipped.
    CHECK(admin.call({"CONFIG", "SET", "bind", "127.0.0.1 -192.0.2.1"}) == status("OK"));
    CHECK(config_get(admin, "bind") == "127.0.0.1 -192.0.2.1");
    CHECK(serves(server.port()));
    CHECK(admin.call({"CONFIG", "SET", "bind", old}) == status("OK"));
    CHECK(serves(server.port()));
  }
}

}  // namespace lawnkv::itest
