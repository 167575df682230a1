// ceiling-server: a RESP server that stores nothing. It exists to measure what
// redis-benchmark and loopback TCP allow on this machine: whatever a real
// server (lawnkv, redis-server) does per request comes on top of this.
//
//   ceiling-server [--port N] [--bind ADDR]
//
// One thread, level-triggered epoll, non-blocking sockets. Per readable event:
// one read() of up to 64 KB, every complete request in the buffer answered into
// one output buffer, one write(). Requests are parsed just enough to find their
// boundaries and the command name (multibulk; an inline request is one line):
//   GET ...        -> $-1          (a miss, as for a key never set)
//   PING           -> +PONG
//   CONFIG GET p   -> *2 p ""      (redis-benchmark asks for save/appendonly)
//   DBSIZE         -> :0
//   anything else  -> +OK          (SET with or without EX, SELECT...)
// A malformed request closes the connection. SIGINT/SIGTERM exit 0.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace {

volatile sig_atomic_t g_stop = 0;

struct Conn {
  int fd = -1;
  std::string in;   // unparsed bytes
  std::string out;  // replies not yet written
  bool want_out = false;  // registered for EPOLLOUT
};

bool name_is(std::string_view name, const char* want) {
  const size_t n = std::strlen(want);
  if (name.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if ((name[i] | 0x20) != want[i]) return false;
  }
  return true;
}

// Reads a decimal number ending in \r\n at p; returns the position after the
// line end, nullptr if the line is incomplete, or sets *bad.
const char* read_number(const char* p, const char* end, long* value, bool* bad) {
  const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
  if (!nl) return nullptr;
  char* stop = nullptr;
  *value = std::strtol(p, &stop, 10);
  if (stop != nl - 1 || *stop != '\r') *bad = true;
  return nl + 1;
}

void reply(std::string& out, std::string_view name, std::string_view arg1, std::string_view arg2) {
  if (name_is(name, "get")) {
    out += "$-1\r\n";
  } else if (name_is(name, "ping")) {
    out += "+PONG\r\n";
  } else if (name_is(name, "config") && name_is(arg1, "get")) {
    out += "*2\r\n$" + std::to_string(arg2.size()) + "\r\n";
    out.append(arg2);
    out += "\r\n$0\r\n\r\n";
  } else if (name_is(name, "dbsize")) {
    out += ":0\r\n";
  } else {
    out += "+OK\r\n";
  }
}

// Answers every complete request in c.in; returns false on a protocol error.
bool serve(Conn& c) {
  const char* p = c.in.data();
  const char* end = p + c.in.size();
  bool bad = false;
  while (p < end) {
    const char* start = p;
    if (*p != '*') {  // inline: one line
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!nl) break;
      std::string_view line(p, static_cast<size_t>(nl - p));
      p = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      const size_t sp = line.find(' ');
      reply(c.out, line.substr(0, sp), {}, {});
      continue;
    }
    long argc = 0;
    const char* q = read_number(p + 1, end, &argc, &bad);
    if (bad || argc > 1024 * 1024) return false;
    if (!q) break;
    std::string_view args[3];
    bool complete = true;
    for (long i = 0; i < argc; ++i) {
      if (q >= end) { complete = false; break; }
      if (*q != '$') return false;
      long len = 0;
      const char* data = read_number(q + 1, end, &len, &bad);
      if (bad || len < 0) return false;
      if (!data || end - data < len + 2) { complete = false; break; }
      if (i < 3) args[i] = std::string_view(data, static_cast<size_t>(len));
      q = data + len + 2;
    }
    if (!complete) { p = start; break; }
    p = q;
    if (argc > 0) reply(c.out, args[0], args[1], args[2]);
  }
  c.in.erase(0, static_cast<size_t>(p - c.in.data()));
  return true;
}

// Writes what it can of c.out; returns false if the connection failed.
bool flush(Conn& c) {
  size_t off = 0;
  while (off < c.out.size()) {
    const ssize_t n = ::write(c.fd, c.out.data() + off, c.out.size() - off);
    if (n > 0) { off += static_cast<size_t>(n); continue; }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    return false;
  }
  c.out.erase(0, off);
  return true;
}

void on_signal(int) { g_stop = 1; }

}  // namespace

int main(int argc, char** argv) {
  int port = 6399;
  std::string bind_addr = "127.0.0.1";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view opt = argv[i];
    if (opt == "--port") port = std::atoi(argv[i + 1]);
    else if (opt == "--bind") bind_addr = argv[i + 1];
    else { std::fprintf(stderr, "usage: %s [--port N] [--bind ADDR]\n", argv[0]); return 2; }
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, bind_addr.c_str(), &addr.sin_addr) != 1 ||
      ::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(lfd, 511) != 0) {
    std::fprintf(stderr, "ceiling-server: cannot listen on %s:%d: %s\n", bind_addr.c_str(), port,
                 std::strerror(errno));
    return 1;
  }
  const int ep = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::printf("ceiling-server listening on %s:%d pid=%d\n", bind_addr.c_str(), port, static_cast<int>(getpid()));
  std::fflush(stdout);

  std::unordered_map<int, std::unique_ptr<Conn>> conns;
  static char buf[64 * 1024];
  epoll_event events[256];
  auto close_conn = [&](int fd) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns.erase(fd);
  };
  while (!g_stop) {
    const int n = epoll_wait(ep, events, 256, 1000);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == lfd) {
        for (;;) {
          const int cfd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK);
          if (cfd < 0) break;
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          epoll_event cev{};
          cev.events = EPOLLIN;
          cev.data.fd = cfd;
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
          auto c = std::make_unique<Conn>();
          c->fd = cfd;
          conns.emplace(cfd, std::move(c));
        }
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      Conn& c = *it->second;
      if (events[i].events & EPOLLIN) {
        const ssize_t r = ::read(fd, buf, sizeof(buf));
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) { close_conn(fd); continue; }
        if (r > 0) {
          c.in.append(buf, static_cast<size_t>(r));
          if (!serve(c)) { close_conn(fd); continue; }
        }
      }
      if (!flush(c)) { close_conn(fd); continue; }
      const bool pending = !c.out.empty();
      if (pending != c.want_out) {
        c.want_out = pending;
        epoll_event cev{};
        cev.events = EPOLLIN | (pending ? EPOLLOUT : 0u);
        cev.data.fd = fd;
        epoll_ctl(ep, EPOLL_CTL_MOD, fd, &cev);
      }
    }
  }
  for (auto& [fd, c] : conns) ::close(fd);
  ::close(lfd);
  return 0;
}
