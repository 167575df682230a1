// lawnkv as the primary with repl-diskless-sync yes (Redis 7.0's diskless
// full sync): the snapshot goes from a child through a pipe to the
// replicas' sockets as `$EOF:<mark>\r\n<RDB><mark>`. A redis-server 7.0.15
// replica and a lawnkv replica gathered into one child
// (repl-diskless-sync-max-replicas) load it and take the stream; a replica
// without capa eof gets the `$<len>` form; a replica that goes mid-transfer,
// or stops reading for repl-timeout seconds, leaves the other one's
// transfer alone.

#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "../support/info_field.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_calls.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {

namespace {

using std::chrono::steady_clock;
constexpr auto kWait = std::chrono::seconds(10);

// The replica's link is up and it processed every byte the primary sent.
bool caught_up(RawClient& primary, RawClient& replica) {
  return info_field(replica, "replication", "master_link_status") == "up" &&
         info_field(primary, "replication", "master_repl_offset") ==
             info_field(replica, "replication", "slave_repl_offset");
}

std::string fingerprint(RawClient& c) {
  return call(c, {"DBSIZE"}).text + " " + call(c, {"GET", "k:17"}).text + " " + call(c, {"HGET", "h", "f"}).text +
         " " + call(c, {"PEXPIRETIME", "ttl"}).text + " " + call(c, {"ZSCORE", "z", "m"}).text;
}

void fill(RawClient& c, int keys) {
  std::string pipeline;
  for (int i = 0; i < keys; ++i) {
    const std::string k = "k:" + std::to_string(i), v = "value-" + std::to_string(i);
    pipeline += "*3\r\n$3\r\nSET\r\n$" + std::to_string(k.size()) + "\r\n" + k + "\r\n$" + std::to_string(v.size()) +
                "\r\n" + v + "\r\n";
  }
  c.send(pipeline);
  for (int i = 0; i < keys; ++i) REQUIRE(c.read_reply() == "+OK\r\n");
  must(c, {"HSET", "h", "f", "v"});
  must(c, {"ZADD", "z", "2.5", "m"});
  must(c, {"SET", "ttl", "x", "PXAT", "4102444800000"});
}

size_t count_in_log(const ServerProcess& p, std::string_view text) {
  std::ifstream in(p.log_path());
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t n = 0;
  for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
  return n;
}

// A replica of our own on a raw socket: the handshake with the given capa,
// then +FULLRESYNC; returns the payload's header line ("$EOF:<mark>" or
// "$<len>"), after any keepalive newlines.
std::string raw_full_sync(RawClient& link, bool capa_eof) {
  CHECK(link.call({"REPLCONF", "listening-port", "1"}) == "+OK\r\n");
  CHECK((capa_eof ? link.call({"REPLCONF", "capa", "eof", "capa", "psync2"})
                  : link.call({"REPLCONF", "capa", "psync2"})) == "+OK\r\n");
  link.send("*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n");
  const std::string fullresync = link.read_reply();
  CHECK(fullresync.rfind("+FULLRESYNC ", 0) == 0);
  std::string byte;
  while ((byte = link.read_exactly(1)) == "\n") {
  }
  std::string line = byte;
  while ((byte = link.read_exactly(1)) != "\r") line += byte;
  REQUIRE(link.read_exactly(1) == "\n");
  return line;
}

// A replica on a plain socket whose receive buffer is fixed small before it
// connects (autotuned, loopback's may take 32 MB): it asks for a diskless
// full sync, reads what it is told to, then nothing.
class StalledReplica {
 public:
  explicit StalledReplica(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);  // not into the servers started after it
    const int small = 64 * 1024;
    REQUIRE(::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) == 0);
    const timeval timeout{10, 0};
    REQUIRE(::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) == 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  }
  ~StalledReplica() { close(); }
  void send(std::string_view bytes) { REQUIRE(::send(fd_, bytes.data(), bytes.size(), 0) == ssize_t(bytes.size())); }
  // Reads n bytes (or up to the peer's close); returns them.
  std::string read(size_t n) {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::recv(fd_, out.data() + got, n - got, 0);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return out;
  }
  // Reads and discards until the peer closes (true) or 10 s of silence.
  bool wait_closed() {
    char buf[65536];
    while (true) {
      const ssize_t r = ::recv(fd_, buf, sizeof(buf), 0);
      if (r == 0) return true;
      if (r < 0) return false;
    }
  }
  // REPLCONF capa eof, PSYNC ? -1, then the first n bytes of the answer
  // (+FULLRESYNC, $EOF:<mark> and some of the image).
  std::string start_sync(size_t n) {
    send("*3\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\neof\r\n");
    if (read(5) != "+OK\r\n") return {};
    send("*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n");
    return read(n);
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// 16 values of 1 MB that do not compress, blob10..blob25: more than the
// pipe, the primary's chunk and a StalledReplica's kernel buffers hold, so
// a diskless batch cannot end while that replica reads nothing.
void fill_blobs(RawClient& p) {
  std::mt19937_64 rng(7);
  std::string blob(1 << 20, '\0');
  for (int i = 0; i < 16; ++i) {
    for (char& c : blob) c = static_cast<char>('a' + rng() % 26);
    p.send("*3\r\n$3\r\nSET\r\n$6\r\nblob" + std::to_string(10 + i) + "\r\n$" + std::to_string(blob.size()) + "\r\n" +
           blob + "\r\n");
    REQUIRE(p.read_reply() == "+OK\r\n");
  }
}

}  // namespace

TEST_CASE("compat: diskless sync: a redis-server 7.0.15 and a lawnkv replica gathered into one child") {
  TempDir primary_dir, redis_dir, lawnkv_dir;
  // A long delay: only max-replicas starts the child, once both wait.
  ServerProcess primary = ServerProcess::lawnkv({"--dir", primary_dir.path.string(), "--repl-diskless-sync", "yes",
                                                 "--repl-diskless-sync-delay", "60",
                                                 "--repl-diskless-sync-max-replicas", "2"});
  RawClient p(primary.port());
  fill(p, 2000);
  const std::string port = std::to_string(primary.port());
  ServerProcess redis = ServerProcess::redis({"--dir", redis_dir.path.string(), "--replicaof", "127.0.0.1", port});
  RawClient r(redis.port());
  // The lawnkv replica parses the image as it arrives (no file).
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", lawnkv_dir.path.string(), "--repl-diskless-load",
                                                "on-empty-db", "--replicaof", "127.0.0.1", port});
  RawClient l(lawnkv.port());

  REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return caught_up(p, r) && caught_up(p, l); }));
  CHECK(std::filesystem::is_empty(lawnkv_dir.path));
  const std::string want = fingerprint(p);
  CHECK(want == "2003 value-17 v 4102444800000 2.5");
  CHECK(fingerprint(r) == want);
  CHECK(fingerprint(l) == want);
  CHECK(info_field(p, "stats", "sync_full") == "2");
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: replicas sockets") == 1);
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: disk") == 0);
  // Nothing went through the file; no save was counted.
  CHECK_FALSE(std::filesystem::exists(primary_dir.path / "dump.rdb"));
  CHECK(info_field(p, "persistence", "rdb_changes_since_last_save") != "0");
  CHECK(info_field(p, "replication", "slave0").find(",state=online,") != std::string::npos);
  CHECK(info_field(p, "replication", "slave1").find(",state=online,") != std::string::npos);

  // The stream after the ACK.
  must(p, {"SET", "k:17", "changed"});
  must(p, {"INCR", "counter"});
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return caught_up(p, r) && caught_up(p, l); }));
  CHECK(call(r, {"GET", "k:17"}).text == "changed");
  CHECK(call(l, {"GET", "k:17"}).text == "changed");
  CHECK(call(l, {"GET", "counter"}).text == "1");
}

TEST_CASE("compat: diskless sync: delay 0 starts at once; the framing; a replica without capa eof gets the file") {
  TempDir dir;
  ServerProcess primary = ServerProcess::lawnkv(
      {"--dir", dir.path.string(), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"});
  RawClient p(primary.port());
  fill(p, 100);

  RawClient eof(primary.port());
  const std::string header = raw_full_sync(eof, true);
  REQUIRE(header.size() == 5 + 40);
  REQUIRE(header.rfind("$EOF:", 0) == 0);
  const std::string mark = header.substr(5);
  // A write while the image is on its way: it follows the image only once
  // we ACK, never glued to the mark.
  must(p, {"SET", "during", "x"});
  std::string body;
  while (body.size() < 40 || body.compare(body.size() - 40, 40, mark) != 0) body += eof.read_exactly(1);
  body.resize(body.size() - 40);
  CHECK(body.rfind("REDIS0010", 0) == 0);
  CHECK(body.find("value-99") != std::string::npos);
  CHECK(body.find("during") == std::string::npos);
  // Nothing follows the mark until the ACK (a bounded look for absence).
  eof.set_timeout(std::chrono::milliseconds(200));
  CHECK_THROWS_AS(eof.read_exactly(1), Timeout);
  eof.set_timeout(RawClient::kDefaultTimeout);
  CHECK(info_field(p, "replication", "slave0").find(",state=online,") != std::string::npos);
  eof.send("*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$1\r\n0\r\n");
  // SELECT 0, then the SET.
  CHECK(eof.read_reply() == "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n");
  CHECK(eof.read_reply() == "*3\r\n$3\r\nSET\r\n$6\r\nduring\r\n$1\r\nx\r\n");

  // Without capa eof: the $<len> form, from dir/dbfilename.
  RawClient disk(primary.port());
  const std::string len = raw_full_sync(disk, false);
  REQUIRE(len[0] == '$');
  const std::string rdb = disk.read_exactly(std::stoul(len.substr(1)));
  CHECK(rdb.rfind("REDIS0010", 0) == 0);
  CHECK(rdb.find("during") != std::string::npos);
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: disk") == 1);
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: replicas sockets") == 1);
}

TEST_CASE("compat: diskless sync: a replica that goes mid-transfer leaves the other's alone") {
  TempDir primary_dir, redis_dir;
  ServerProcess primary = ServerProcess::lawnkv({"--dir", primary_dir.path.string(), "--repl-diskless-sync", "yes",
                                                 "--repl-diskless-sync-delay", "60",
                                                 "--repl-diskless-sync-max-replicas", "2"});
  RawClient p(primary.port());
  fill_blobs(p);
  must(p, {"SET", "small", "v"});

  StalledReplica stalled(primary.port());
  const std::string port = std::to_string(primary.port());
  ServerProcess redis = ServerProcess::redis({"--dir", redis_dir.path.string(), "--replicaof", "127.0.0.1", port});
  RawClient r(redis.port());
  const std::string start = stalled.start_sync(64 * 1024);
  REQUIRE(start.size() == 64 * 1024);
  CHECK(start.find("\r\n$EOF:") != std::string::npos);
  // The redis-server replica is in the same batch, and waits on the stalled one.
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] {
    return std::stoull("0" + info_field(r, "replication", "master_sync_read_bytes")) > 0;
  }));
  CHECK(info_field(r, "replication", "master_sync_in_progress") == "1");
  SUBCASE("it closes its socket") { stalled.close(); }
  SUBCASE("it reads nothing for repl-timeout seconds: the primary closes it") {
    must(p, {"CONFIG", "SET", "repl-timeout", "1"});
    REQUIRE(poll_until(steady_clock::now() + kWait, [&] {
      return count_in_log(primary, "Disconnecting timedout replica (full sync)") == 1;
    }));
    CHECK(stalled.wait_closed());  // what was on its way, then the close
  }
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return caught_up(p, r); }));
  CHECK(call(r, {"DBSIZE"}).text == "17");
  CHECK(call(r, {"GET", "small"}).text == "v");
  CHECK(call(r, {"STRLEN", "blob25"}).text == std::to_string(1 << 20));
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: replicas sockets") == 1);
  must(p, {"SET", "after", "1"});
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return caught_up(p, r); }));
  CHECK(call(r, {"GET", "after"}).text == "1");
}

TEST_CASE("compat: diskless sync: a replica that comes during a transfer waits for the next child") {
  TempDir primary_dir, redis_dir;
  ServerProcess primary = ServerProcess::lawnkv(
      {"--dir", primary_dir.path.string(), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"});
  RawClient p(primary.port());
  fill_blobs(p);
  StalledReplica stalled(primary.port());
  REQUIRE(stalled.start_sync(64 * 1024).size() == 64 * 1024);
  ServerProcess redis = ServerProcess::redis(
      {"--dir", redis_dir.path.string(), "--replicaof", "127.0.0.1", std::to_string(primary.port())});
  RawClient r(redis.port());
  // It asked, and waits: no image for it while the first one's runs.
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return info_field(p, "stats", "sync_full") == "2"; }));
  CHECK(info_field(p, "replication", "slave1").find(",state=wait_bgsave,") != std::string::npos);
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: replicas sockets") == 1);
  // The first batch's only replica goes: its child stops, the next starts.
  stalled.close();
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] { return caught_up(p, r); }));
  CHECK(call(r, {"STRLEN", "blob25"}).text == std::to_string(1 << 20));
  CHECK(count_in_log(primary, "Starting BGSAVE for SYNC with target: replicas sockets") == 2);
  CHECK(count_in_log(primary, "Diskless rdb transfer, last replica dropped") == 1);
}

}  // namespace lawnkv::test
