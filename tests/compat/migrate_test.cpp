// MIGRATE between lawnkv and redis-server 7.0.15, both ways: every type
// both serve moves with its TTL; the replies of a scenario (COPY, REPLACE,
// KEYS, another db, BUSYKEY, AUTH and AUTH2 against a target with a
// password) are Redis's byte for byte whichever server is the source and
// whichever the target; a target that accepts but never answers, one that
// cannot be reached and one that refuses the connection get Redis's IOERR
// texts, within the timeout. The no-target answers (syntax, NOKEY) are in
// tests/compat/cases/migrate.txt.

#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {

namespace {

constexpr std::string_view kOk = "+OK\r\n";

void must(RawClient& c, std::vector<std::string> argv) {
  const Reply r = parse_reply(c.call(std::span<const std::string>(argv)));
  REQUIRE_MESSAGE(r.type != '-', r.text);
}

std::string call(RawClient& c, std::vector<std::string> argv) { return c.call(std::span<const std::string>(argv)); }

// One key of each type both serve, some with a TTL of 100 s.
std::vector<std::string> fill(RawClient& c) {
  must(c, {"SET", "str", "hello"});
  must(c, {"SET", "num", "12345"});
  must(c, {"SET", "big", std::string(100'000, 'z') + "end", "PX", "100000"});
  must(c, {"HSET", "hash", "a", "1", "b", "two"});
  must(c, {"SADD", "ints", "1", "2", "-300"});
  must(c, {"SADD", "set", "x", "y", "z"});
  must(c, {"RPUSH", "list", "a", "b", "12"});
  must(c, {"ZADD", "zset", "1", "a", "2.5", "b", "-inf", "c"});
  must(c, {"XADD", "stream", "1-1", "f", "v"});
  must(c, {"XADD", "stream", "2-0", "g", "w"});
  for (const char* k : {"hash", "set", "zset", "stream"}) must(c, {"PEXPIRE", k, "100000"});
  return {"str", "num", "big", "hash", "ints", "set", "list", "zset", "stream"};
}

std::vector<std::string> sorted_elements(const std::string& reply) {
  std::vector<std::string> out;
  for (const Reply& r : parse_reply(reply).elements) out.push_back(r.text);
  std::sort(out.begin(), out.end());
  return out;
}

// What key holds on c, as one comparable text (type, encoding, content).
std::string value_of(RawClient& c, const std::string& key) {
  const std::string type = c.call({"TYPE", key});
  std::string out = type + c.call({"OBJECT", "ENCODING", key});
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& e : v) s += e + "|";
    return s;
  };
  if (type == "+string\r\n") out += c.call({"GET", key});
  else if (type == "+hash\r\n") out += joined(sorted_elements(c.call({"HGETALL", key})));
  else if (type == "+set\r\n") out += joined(sorted_elements(c.call({"SMEMBERS", key})));
  else if (type == "+list\r\n") out += c.call({"LRANGE", key, "0", "-1"});
  else if (type == "+zset\r\n") out += c.call({"ZRANGE", key, "0", "-1", "WITHSCORES"});
  else if (type == "+stream\r\n") out += c.call({"XRANGE", key, "-", "+"});
  else FAIL("unexpected type " << type);
  return out;
}

long long pttl(RawClient& c, const std::string& key) { return std::stoll(parse_reply(c.call({"PTTL", key})).text); }

// Every key of keys moves from `from` to `to` (port to_port) in one
// MIGRATE ... KEYS: same value, a TTL no longer than it was, gone from
// `from`.
void move_all(RawClient& from, RawClient& to, uint16_t to_port, const std::vector<std::string>& keys) {
  std::vector<std::string> before;
  std::vector<long long> ttls;
  for (const std::string& k : keys) {
    before.push_back(value_of(from, k));
    ttls.push_back(pttl(from, k));
  }
  std::vector<std::string> argv{"MIGRATE", "127.0.0.1", std::to_string(to_port), "", "0", "5000", "KEYS"};
  argv.insert(argv.end(), keys.begin(), keys.end());
  REQUIRE(call(from, argv) == kOk);
  CHECK(from.call({"DBSIZE"}) == ":0\r\n");
  for (size_t i = 0; i < keys.size(); ++i) {
    CAPTURE(keys[i]);
    CHECK(value_of(to, keys[i]) == before[i]);
    const long long ttl = pttl(to, keys[i]);
    if (ttls[i] == -1) {
      CHECK(ttl == -1);
    } else {
      CHECK(ttl > 0);
      CHECK(ttl <= ttls[i]);
    }
  }
}

// A loopback port that accepts connections (the kernel completes them) and
// never reads or answers.
struct SilentListener {
  int fd = -1;
  uint16_t port = 0;
  SilentListener() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
    REQUIRE(listen(fd, 16) == 0);
    REQUIRE(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
    socklen_t len = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~SilentListener() { close(fd); }
  // How many connections were made to it since the last call.
  int drain() {
    int n = 0;
    for (int c; (c = accept4(fd, nullptr, nullptr, SOCK_NONBLOCK)) != -1; ++n) close(c);
    return n;
  }
};

// A loopback port nothing listens on.
uint16_t closed_port() {
  SilentListener l;
  return l.port;  // closed when l goes
}

// The scenario's replies, the source's and the target's, in order.
std::vector<std::string> scenario(RawClient& src, RawClient& dst, uint16_t dst_port) {
  std::vector<std::string> out;
  const std::string port = std::to_string(dst_port);
  auto s = [&](std::vector<std::string> argv) { out.push_back(call(src, argv)); };
  auto d = [&](std::vector<std::string> argv) { out.push_back(call(dst, argv)); };
  auto migrate = [&](std::vector<std::string> tail) {
    std::vector<std::string> argv{"MIGRATE", "127.0.0.1", port};
    argv.insert(argv.end(), tail.begin(), tail.end());
    s(argv);
  };
  s({"FLUSHALL"});
  s({"CONFIG", "RESETSTAT"});
  d({"FLUSHALL"});
  s({"SET", "a", "1"});
  s({"SET", "b", "2", "PX", "100000"});
  s({"RPUSH", "c", "x", "y"});
  d({"SET", "b", "old"});
  migrate({"a", "0", "5000", "COPY"});
  s({"EXISTS", "a"});
  d({"GET", "a"});
  migrate({"a", "0", "5000", "COPY"});  // BUSYKEY
  migrate({"", "0", "5000", "COPY", "REPLACE", "KEYS", "a", "b"});
  d({"GET", "b"});
  migrate({"a", "3", "5000"});
  s({"EXISTS", "a"});
  d({"SELECT", "3"});
  d({"GET", "a"});
  d({"SELECT", "0"});
  migrate({"", "0", "5000", "KEYS", "nokey", "c", "b"});  // c moves, b is busy
  s({"EXISTS", "b", "c"});
  d({"LRANGE", "c", "0", "-1"});
  migrate({"", "0", "5000", "KEYS", "nokey"});
  // A target with a password: AUTH and AUTH2, wrong and right.
  d({"CONFIG", "SET", "requirepass", "secret"});
  d({"AUTH", "secret"});
  migrate({"b", "0", "5000", "REPLACE", "COPY", "AUTH", "wrong"});
  migrate({"b", "0", "5000", "REPLACE", "COPY", "AUTH2", "default", "wrong"});
  migrate({"b", "0", "5000", "REPLACE", "COPY", "AUTH", "secret"});
  migrate({"b", "0", "5000", "REPLACE", "AUTH2", "default", "secret"});
  d({"CONFIG", "SET", "requirepass", ""});
  s({"DBSIZE"});
  d({"DBSIZE"});
  d({"GET", "b"});
  s({"INFO", "errorstats"});
  return out;
}

}  // namespace

TEST_CASE("compat: MIGRATE moves every type with its TTL from lawnkv to redis-server and back") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  const std::vector<std::string> keys = fill(l);
  move_all(l, r, redis.port(), keys);
  move_all(r, l, lawnkv.port(), keys);
  // COPY leaves the source as it was.
  std::vector<std::string> argv{"MIGRATE", "127.0.0.1", std::to_string(redis.port()), "", "0", "5000", "COPY", "KEYS"};
  argv.insert(argv.end(), keys.begin(), keys.end());
  REQUIRE(call(l, argv) == kOk);
  CHECK(l.call({"DBSIZE"}) == ":9\r\n");
  CHECK(r.call({"DBSIZE"}) == ":9\r\n");
}

TEST_CASE("compat: MIGRATE's replies are Redis's whichever server is the source and the target") {
  ServerProcess redis_src = ServerProcess::redis();
  ServerProcess redis_dst = ServerProcess::redis();
  ServerProcess lawnkv_src = ServerProcess::lawnkv();
  ServerProcess lawnkv_dst = ServerProcess::lawnkv();
  RawClient rs(redis_src.port()), rd(redis_dst.port()), ls(lawnkv_src.port()), ld(lawnkv_dst.port());
  const std::vector<std::string> expected = scenario(rs, rd, redis_dst.port());
  CHECK(scenario(ls, rd, redis_dst.port()) == expected);
  CHECK(scenario(rs, ld, lawnkv_dst.port()) == expected);
  CHECK(scenario(ls, ld, lawnkv_dst.port()) == expected);
  // The scenario did get the target's errors.
  CHECK(std::count_if(expected.begin(), expected.end(), [](const std::string& s) {
          return s.starts_with("-ERR Target instance replied with error: BUSYKEY");
        }) == 2);
  CHECK(std::count_if(expected.begin(), expected.end(), [](const std::string& s) {
          return s.starts_with("-ERR Target instance replied with error: WRONGPASS");
        }) == 2);
}

TEST_CASE("compat: MIGRATE to a target that never answers, cannot be reached or refuses: Redis's IOERR, in time") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  // Random bytes LZF cannot shrink: more than the socket buffers hold.
  std::string noise(8 << 20, '\0');
  std::mt19937_64 rng(3);
  for (size_t i = 0; i + 8 <= noise.size(); i += 8) {
    const uint64_t v = rng();
    std::memcpy(&noise[i], &v, 8);
  }
  for (RawClient* c : {&r, &l}) {
    must(*c, {"SET", "k", "v"});
    must(*c, {"SET", "huge", noise});
  }
  SilentListener silent;
  const std::string silent_port = std::to_string(silent.port);
  const std::string refused_port = std::to_string(closed_port());
  const std::vector<std::vector<std::string>> cases = {
      {"MIGRATE", "127.0.0.1", silent_port, "k", "0", "1000"},
      {"MIGRATE", "127.0.0.1", silent_port, "huge", "0", "1000"},
      {"MIGRATE", "127.0.0.1", refused_port, "k", "0", "1000"},
      {"MIGRATE", "nonexistent.invalid", "6379", "k", "0", "1000"},
  };
  for (const auto& argv : cases) {
    CAPTURE(argv[2]);
    CAPTURE(argv[3]);
    const std::string theirs = call(r, argv);
    const int their_tries = silent.drain();
    const auto start = std::chrono::steady_clock::now();
    const std::string ours = call(l, argv);
    const auto took = std::chrono::steady_clock::now() - start;
    CHECK(ours == theirs);
    CHECK(ours.starts_with("-IOERR error or timeout "));
    // One connection: never a second try after a timeout.
    CHECK(silent.drain() == their_tries);
    CHECK(their_tries == (argv[2] == silent_port ? 1 : 0));
    // Bounded: one timeout of 1 s (the read, or the write of the chunk that
    // found the buffers full) and the payload's making and sending.
    CHECK(took < std::chrono::milliseconds(5000));
  }
  CHECK(l.call({"EXISTS", "k", "huge"}) == ":2\r\n");
  CHECK(l.call({"INFO", "errorstats"}) == r.call({"INFO", "errorstats"}));
}

TEST_CASE("MIGRATE keeps its connection to a target (SELECT only when the db changes) for 10 s of disuse") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  const std::string port = std::to_string(redis.port());
  auto selects = [&] {
    const std::string info = r.call({"INFO", "commandstats"});
    const size_t at = info.find("cmdstat_select:calls=");
    return at == std::string::npos ? 0 : std::stoi(info.substr(at + 21));
  };
  for (int i = 0; i < 3; ++i) {
    must(l, {"SET", "k", "v"});
    REQUIRE(call(l, {"MIGRATE", "127.0.0.1", port, "k", "0", "5000", "REPLACE"}) == kOk);
  }
  CHECK(selects() == 1);
  must(l, {"SET", "k", "v"});
  REQUIRE(call(l, {"MIGRATE", "127.0.0.1", port, "k", "1", "5000", "REPLACE"}) == kOk);
  CHECK(selects() == 2);
  // 10 s unused: the next MIGRATE connects again, and selects again.
  must(l, {"DEBUG", "ADVANCE-TIME", "10001"});
  must(l, {"SET", "k", "v"});
  REQUIRE(call(l, {"MIGRATE", "127.0.0.1", port, "k", "1", "5000", "REPLACE"}) == kOk);
  CHECK(selects() == 3);
}

TEST_CASE("MIGRATE is propagated as a DEL of the keys the target took; COPY as nothing") {
  TempDir dir;
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv(
      {"--dir", dir.path.string(), "--appendonly", "yes", "--appendfsync", "always"});
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  const std::string port = std::to_string(redis.port());
  must(r, {"SET", "busy", "x"});
  for (const char* k : {"a", "b", "busy", "c"}) must(l, {"SET", k, "1"});
  REQUIRE(call(l, {"MIGRATE", "127.0.0.1", port, "", "0", "5000", "COPY", "KEYS", "c"}) == kOk);
  REQUIRE(call(l, {"MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS", "a", "busy", "b"}).starts_with(
      "-ERR Target instance replied with error: BUSYKEY"));
  CHECK(l.call({"EXISTS", "a", "b", "busy"}) == ":1\r\n");
  std::ifstream in(dir.path / "appendonlydir" / "appendonly.aof.1.incr.aof", std::ios::binary);
  std::stringstream aof;
  aof << in.rdbuf();
  CHECK(aof.str().find("*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$1\r\nb\r\n") != std::string::npos);
  CHECK(aof.str().find("MIGRATE") == std::string::npos);
  CHECK(aof.str().find("$1\r\nc\r\n$1\r\n1\r\n") != std::string::npos);  // its SET, and nothing after for c
  CHECK(aof.str().find("DEL\r\n$1\r\nc") == std::string::npos);
}

}  // namespace lawnkv::test
