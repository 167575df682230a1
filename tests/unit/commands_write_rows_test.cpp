// Every write row of the command table changes data the way the rest of
// the server hears of it: a representative invocation moves the dataset's
// `dirty` counter (what records the write's effect for the AOF and the
// replication stream) and, where Redis 7.0 does, invalidates a WATCH on the
// key it changes. A handler that forgets `modified` fails here.
//
// kSamples holds one invocation per write row; a new write command adds
// its row (the test fails for a write row without one, and for a sample
// whose command is not a write row).

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "command_fixture.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv {
namespace {

struct Sample {
  std::string command;  // the row's name, "container|sub" for a subcommand
  std::vector<std::vector<std::string>> setup;
  // The write; an argument "$0" is replaced by the last setup reply's
  // payload (a DUMP or FUNCTION DUMP), "$port" by the port of a target
  // that accepts MIGRATE's SELECT and RESTORE (FakeTarget).
  std::vector<std::string> write;
  // The key whose WATCH the write invalidates; "" where Redis 7.0 signals
  // no key (FUNCTION, the consumer-group commands, XSETID).
  std::string watched;
  int64_t advance_ms = 0;  // the clock moves this far after setup (due dehydrator elements)
};

const std::vector<Sample> kSamples = {
    {"append", {}, {"append", "k", "v"}, "k"},
    {"bitfield", {}, {"bitfield", "k", "set", "u8", "0", "1"}, "k"},
    {"bitop", {{"set", "a", "x"}}, {"bitop", "and", "k", "a"}, "k"},
    {"blmove", {{"rpush", "a", "x"}}, {"blmove", "a", "k", "left", "left", "0"}, "k"},
    {"blmpop", {{"rpush", "k", "x"}}, {"blmpop", "0", "1", "k", "left"}, "k"},
    {"blpop", {{"rpush", "k", "x"}}, {"blpop", "k", "0"}, "k"},
    {"brpop", {{"rpush", "k", "x"}}, {"brpop", "k", "0"}, "k"},
    {"brpoplpush", {{"rpush", "a", "x"}}, {"brpoplpush", "a", "k", "0"}, "k"},
    {"bzmpop", {{"zadd", "k", "1", "m"}}, {"bzmpop", "0", "1", "k", "min"}, "k"},
    {"bzpopmax", {{"zadd", "k", "1", "m"}}, {"bzpopmax", "k", "0"}, "k"},
    {"bzpopmin", {{"zadd", "k", "1", "m"}}, {"bzpopmin", "k", "0"}, "k"},
    {"copy", {{"set", "a", "v"}}, {"copy", "a", "k"}, "k"},
    {"decr", {}, {"decr", "k"}, "k"},
    {"decrby", {}, {"decrby", "k", "2"}, "k"},
    {"del", {{"set", "k", "v"}}, {"del", "k"}, "k"},
    {"expire", {{"set", "k", "v"}}, {"expire", "k", "100"}, "k"},
    {"expireat", {{"set", "k", "v"}}, {"expireat", "k", "9999999999"}, "k"},
    {"flushall", {{"set", "k", "v"}}, {"flushall"}, "k"},
    {"flushdb", {{"set", "k", "v"}}, {"flushdb"}, "k"},
    {"function|delete", {{"function", "load", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"}}, {"function", "delete", "lib"}, ""},
    {"function|flush", {{"function", "load", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"}}, {"function", "flush"}, ""},
    {"function|load", {}, {"function", "load", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"}, ""},
    {"function|restore", {{"function", "load", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"}, {"function", "dump"}}, {"function", "restore", "$0", "replace"}, ""},
    {"geoadd", {}, {"geoadd", "k", "13", "38", "m"}, "k"},
    {"georadius", {{"geoadd", "a", "13", "38", "m"}}, {"georadius", "a", "13", "38", "1", "km", "store", "k"}, "k"},
    {"georadiusbymember", {{"geoadd", "a", "13", "38", "m"}}, {"georadiusbymember", "a", "m", "1", "km", "store", "k"}, "k"},
    {"geosearchstore", {{"geoadd", "a", "13", "38", "m"}}, {"geosearchstore", "k", "a", "frommember", "m", "byradius", "1", "km"}, "k"},
    {"getdel", {{"set", "k", "v"}}, {"getdel", "k"}, "k"},
    {"getex", {{"set", "k", "v"}}, {"getex", "k", "ex", "100"}, "k"},
    {"getset", {}, {"getset", "k", "v"}, "k"},
    {"hdel", {{"hset", "k", "f", "v"}}, {"hdel", "k", "f"}, "k"},
    {"hexpire", {{"hset", "k", "f", "v"}}, {"hexpire", "k", "100", "fields", "1", "f"}, "k"},
    {"hexpireat", {{"hset", "k", "f", "v"}}, {"hexpireat", "k", "9999999999", "fields", "1", "f"}, "k"},
    {"hgetdel", {{"hset", "k", "f", "v"}}, {"hgetdel", "k", "fields", "1", "f"}, "k"},
    {"hgetex", {{"hset", "k", "f", "v"}}, {"hgetex", "k", "ex", "100", "fields", "1", "f"}, "k"},
    {"hincrby", {}, {"hincrby", "k", "f", "1"}, "k"},
    {"hincrbyfloat", {}, {"hincrbyfloat", "k", "f", "1.5"}, "k"},
    {"hmset", {}, {"hmset", "k", "f", "v"}, "k"},
    {"hpersist", {{"hset", "k", "f", "v"}, {"hexpire", "k", "100", "fields", "1", "f"}}, {"hpersist", "k", "fields", "1", "f"}, "k"},
    {"hpexpire", {{"hset", "k", "f", "v"}}, {"hpexpire", "k", "100000", "fields", "1", "f"}, "k"},
    {"hpexpireat", {{"hset", "k", "f", "v"}}, {"hpexpireat", "k", "9999999999999", "fields", "1", "f"}, "k"},
    {"hset", {}, {"hset", "k", "f", "v"}, "k"},
    {"hsetex", {}, {"hsetex", "k", "ex", "100", "fields", "1", "f", "v"}, "k"},
    {"hsetnx", {}, {"hsetnx", "k", "f", "v"}, "k"},
    {"incr", {}, {"incr", "k"}, "k"},
    {"incrby", {}, {"incrby", "k", "2"}, "k"},
    {"incrbyfloat", {}, {"incrbyfloat", "k", "1.5"}, "k"},
    {"linsert", {{"rpush", "k", "a"}}, {"linsert", "k", "before", "a", "b"}, "k"},
    {"lmove", {{"rpush", "a", "x"}}, {"lmove", "a", "k", "left", "left"}, "k"},
    {"lmpop", {{"rpush", "k", "x"}}, {"lmpop", "1", "k", "left"}, "k"},
    {"lpop", {{"rpush", "k", "x"}}, {"lpop", "k"}, "k"},
    {"lpush", {}, {"lpush", "k", "x"}, "k"},
    {"lpushx", {{"rpush", "k", "x"}}, {"lpushx", "k", "y"}, "k"},
    {"lrem", {{"rpush", "k", "x"}}, {"lrem", "k", "0", "x"}, "k"},
    {"lset", {{"rpush", "k", "x"}}, {"lset", "k", "0", "y"}, "k"},
    {"ltrim", {{"rpush", "k", "x", "y"}}, {"ltrim", "k", "0", "0"}, "k"},
    {"migrate", {{"set", "k", "v"}}, {"migrate", "127.0.0.1", "$port", "k", "0", "5000"}, "k"},
    {"move", {{"set", "k", "v"}}, {"move", "k", "1"}, "k"},
    {"mset", {}, {"mset", "k", "v"}, "k"},
    {"msetnx", {}, {"msetnx", "k", "v"}, "k"},
    {"persist", {{"set", "k", "v", "ex", "100"}}, {"persist", "k"}, "k"},
    {"pexpire", {{"set", "k", "v"}}, {"pexpire", "k", "100000"}, "k"},
    {"pexpireat", {{"set", "k", "v"}}, {"pexpireat", "k", "9999999999999"}, "k"},
    {"pfadd", {}, {"pfadd", "k", "a"}, "k"},
    // PFDEBUG records its conversion but signals no key, as Redis.
    {"pfdebug", {{"pfadd", "k", "a"}}, {"pfdebug", "todense", "k"}, ""},
    {"pfmerge", {{"pfadd", "a", "x"}}, {"pfmerge", "k", "a"}, "k"},
    {"psetex", {}, {"psetex", "k", "100000", "v"}, "k"},
    {"rede.bpoll", {{"rede.push", "k", "1", "e", "i"}}, {"rede.bpoll", "k", "0"}, "k", 10},
    {"rede.gidpush", {}, {"rede.gidpush", "k", "100", "e"}, "k"},
    {"rede.poll", {{"rede.push", "k", "1", "e", "i"}}, {"rede.poll", "k"}, "k", 10},
    {"rede.pull", {{"rede.push", "k", "100", "e", "i"}}, {"rede.pull", "k", "i"}, "k"},
    {"rede.push", {}, {"rede.push", "k", "100", "e", "i"}, "k"},
    {"rede.update", {{"rede.push", "k", "100", "e", "i"}}, {"rede.update", "k", "i", "e2"}, "k"},
    {"rede.xack", {{"rede.push", "k", "1", "e", "i"}, {"rede.xpoll", "k"}}, {"rede.xack", "k", "i"}, "k", 10},
    {"rename", {{"set", "a", "v"}}, {"rename", "a", "k"}, "k"},
    {"renamenx", {{"set", "a", "v"}}, {"renamenx", "a", "k"}, "k"},
    {"restore", {{"set", "a", "v"}, {"dump", "a"}}, {"restore", "k", "0", "$0"}, "k"},
    {"rpop", {{"rpush", "k", "x"}}, {"rpop", "k"}, "k"},
    {"rpoplpush", {{"rpush", "a", "x"}}, {"rpoplpush", "a", "k"}, "k"},
    {"rpush", {}, {"rpush", "k", "x"}, "k"},
    {"rpushx", {{"rpush", "k", "x"}}, {"rpushx", "k", "y"}, "k"},
    {"sadd", {}, {"sadd", "k", "m"}, "k"},
    {"sdiffstore", {{"sadd", "a", "m"}}, {"sdiffstore", "k", "a"}, "k"},
    {"set", {}, {"set", "k", "v"}, "k"},
    {"setbit", {}, {"setbit", "k", "0", "1"}, "k"},
    {"setex", {}, {"setex", "k", "100", "v"}, "k"},
    {"setnx", {}, {"setnx", "k", "v"}, "k"},
    {"setrange", {}, {"setrange", "k", "0", "v"}, "k"},
    {"sinterstore", {{"sadd", "a", "m"}}, {"sinterstore", "k", "a"}, "k"},
    {"smove", {{"sadd", "a", "m"}}, {"smove", "a", "k", "m"}, "k"},
    {"sort", {{"rpush", "a", "1"}}, {"sort", "a", "store", "k"}, "k"},
    {"spop", {{"sadd", "k", "m"}}, {"spop", "k"}, "k"},
    {"srem", {{"sadd", "k", "m"}}, {"srem", "k", "m"}, "k"},
    {"sunionstore", {{"sadd", "a", "m"}}, {"sunionstore", "k", "a"}, "k"},
    {"swapdb", {{"set", "k", "v"}}, {"swapdb", "0", "1"}, "k"},
    {"unlink", {{"set", "k", "v"}}, {"unlink", "k"}, "k"},
    {"xack", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}, {"xreadgroup", "group", "g", "c", "streams", "k", ">"}}, {"xack", "k", "g", "1-1"}, ""},
    {"xadd", {}, {"xadd", "k", "1-1", "f", "v"}, "k"},
    {"xautoclaim", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}, {"xreadgroup", "group", "g", "c", "streams", "k", ">"}}, {"xautoclaim", "k", "g", "c2", "0", "0"}, ""},
    {"xclaim", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}, {"xreadgroup", "group", "g", "c", "streams", "k", ">"}}, {"xclaim", "k", "g", "c2", "0", "1-1"}, ""},
    {"xdel", {{"xadd", "k", "1-1", "f", "v"}}, {"xdel", "k", "1-1"}, "k"},
    {"xgroup|create", {{"xadd", "k", "1-1", "f", "v"}}, {"xgroup", "create", "k", "g", "0"}, ""},
    {"xgroup|createconsumer", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}}, {"xgroup", "createconsumer", "k", "g", "c"}, ""},
    {"xgroup|delconsumer", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}, {"xgroup", "createconsumer", "k", "g", "c"}}, {"xgroup", "delconsumer", "k", "g", "c"}, ""},
    {"xgroup|destroy", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}}, {"xgroup", "destroy", "k", "g"}, ""},
    {"xgroup|setid", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}}, {"xgroup", "setid", "k", "g", "1-1"}, ""},
    {"xreadgroup", {{"xadd", "k", "1-1", "f", "v"}, {"xgroup", "create", "k", "g", "0"}}, {"xreadgroup", "group", "g", "c", "streams", "k", ">"}, ""},
    {"xsetid", {{"xadd", "k", "1-1", "f", "v"}}, {"xsetid", "k", "2-0"}, ""},
    {"xtrim", {{"xadd", "k", "1-1", "f", "v"}}, {"xtrim", "k", "maxlen", "0"}, "k"},
    {"zadd", {}, {"zadd", "k", "1", "m"}, "k"},
    {"zdiffstore", {{"zadd", "a", "1", "m"}}, {"zdiffstore", "k", "1", "a"}, "k"},
    {"zincrby", {}, {"zincrby", "k", "1", "m"}, "k"},
    {"zinterstore", {{"zadd", "a", "1", "m"}}, {"zinterstore", "k", "1", "a"}, "k"},
    {"zmpop", {{"zadd", "k", "1", "m"}}, {"zmpop", "1", "k", "min"}, "k"},
    {"zpopmax", {{"zadd", "k", "1", "m"}}, {"zpopmax", "k"}, "k"},
    {"zpopmin", {{"zadd", "k", "1", "m"}}, {"zpopmin", "k"}, "k"},
    {"zrangestore", {{"zadd", "a", "1", "m"}}, {"zrangestore", "k", "a", "0", "-1"}, "k"},
    {"zrem", {{"zadd", "k", "1", "m"}}, {"zrem", "k", "m"}, "k"},
    {"zremrangebylex", {{"zadd", "k", "0", "m"}}, {"zremrangebylex", "k", "-", "+"}, "k"},
    {"zremrangebyrank", {{"zadd", "k", "1", "m"}}, {"zremrangebyrank", "k", "0", "-1"}, "k"},
    {"zremrangebyscore", {{"zadd", "k", "1", "m"}}, {"zremrangebyscore", "k", "-inf", "+inf"}, "k"},
    {"zunionstore", {{"zadd", "a", "1", "m"}}, {"zunionstore", "k", "1", "a"}, "k"},
};

// A MIGRATE target on a loopback port: accepts one connection, answers
// +OK to the SELECT and the RESTORE of one key at once (MIGRATE reads the
// replies after sending both), then drains what it is sent until closed.
class FakeTarget {
 public:
  FakeTarget() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
    REQUIRE(listen(fd_, 1) == 0);
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = accept(fd_, nullptr, nullptr);
      if (c == -1) return;
      client_ = c;  // before the replies: once MIGRATE has read them, the destructor sees it
      const char replies[] = "+OK\r\n+OK\r\n";
      (void)!write(c, replies, sizeof(replies) - 1);
      char buf[4096];
      while (read(c, buf, sizeof(buf)) > 0) {
      }
      close(c);
    });
  }
  // The server under test still holds its connection (MIGRATE caches it):
  // shutting it down here ends the drain.
  ~FakeTarget() {
    shutdown(fd_, SHUT_RDWR);
    if (client_ != -1) shutdown(client_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  std::atomic<int> client_{-1};
  uint16_t port_ = 0;
  std::thread thread_;
};

// The payload of a bulk reply "$<n>\r\n<payload>\r\n".
std::string bulk_payload(const std::string& reply) {
  REQUIRE(reply.starts_with("$"));
  const size_t nl = reply.find("\r\n");
  return reply.substr(nl + 2, reply.size() - nl - 4);
}

}  // namespace

TEST_CASE("every write row has a sample that moves dirty and invalidates WATCH") {
  std::set<std::string> write_rows;
  {
    test::CommandServer s;
    s.state.commands.for_each_spec([&](const CommandSpec& spec) {
      if (spec.flags & kWrite) write_rows.insert(spec.name);
    });
  }
  std::map<std::string, const Sample*> by_name;
  for (const Sample& sample : kSamples) {
    CAPTURE(sample.command);
    CHECK(by_name.emplace(sample.command, &sample).second);  // one sample a row
    CHECK(write_rows.count(sample.command) == 1);              // a write row
  }
  for (const std::string& name : write_rows) {
    CAPTURE(name);
    const auto it = by_name.find(name);
    if (it == by_name.end()) {
      FAIL_CHECK("no sample for the write row ", name);
      continue;
    }
    const Sample& sample = *it->second;
    test::CommandServer s;
    // FLUSHALL's sample under the default save rules writes a snapshot: not
    // where the tests run.
    const test::TempDir dir;
    s.state.config.mutable_values().dir = dir.path.string();
    std::string last;
    for (const auto& line : sample.setup) {
      last = s.run(line);
      REQUIRE_MESSAGE(!last.starts_with("-"), line[0], ": ", last);
    }
    s.now += sample.advance_ms;
    std::vector<std::string> write = sample.write;
    std::optional<FakeTarget> target;
    for (std::string& arg : write) {
      if (arg == "$0") arg = bulk_payload(last);
      if (arg == "$port") arg = std::to_string(target.emplace().port());
    }
    if (!sample.watched.empty()) REQUIRE(s.run({"watch", sample.watched}) == "+OK\r\n");
    const uint64_t dirty = s.state.data.dirty;
    const std::string reply = s.run(write);
    CHECK_MESSAGE(!reply.starts_with("-"), reply);
    CHECK(s.state.data.dirty > dirty);
    if (!sample.watched.empty()) {
      REQUIRE(s.run({"multi"}) == "+OK\r\n");
      REQUIRE(s.run({"ping"}) == "+QUEUED\r\n");
      CHECK(s.run({"exec"}) == "*-1\r\n");  // the WATCH was invalidated
    }
  }
}

}  // namespace lawnkv
