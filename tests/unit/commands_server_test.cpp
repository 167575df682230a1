// The server command family (src/commands/server_family.cpp, info.cpp,
// config_command.cpp, command_command.cpp, debug.cpp, memory.cpp) run through
// the dispatcher on a ServerState of its own: no sockets, no event loop.
// Expected bytes marked "redis" are redis-server 7.0.15's replies.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "../support/temp_dir.hpp"
#include "commands/server_family.hpp"

namespace lawnkv {
namespace {

config::Config debug_config(std::string_view mode) {
  config::Config c;
  REQUIRE(c.set({{"hz", "10"}}).ok());
  c.mutable_values().enable_debug_command = std::string(mode);
  return c;
}

// The server family runs on the state's own clock (DEBUG ADVANCE-TIME moves it).
struct Server : test::CommandServer {
  explicit Server(std::string_view debug = "yes") : CommandServer(debug_config(debug)) {
    state.facts.run_id = std::string(40, 'a');
  }
  std::string run(std::vector<std::string> args) {
    now = state.clock.now_ms();
    return CommandServer::run(std::move(args));
  }
};

// The payload of a bulk or verbatim reply.
std::string payload(const std::string& reply) {
  const size_t nl = reply.find("\r\n");
  std::string body = reply.substr(nl + 2, reply.size() - nl - 4);
  if (reply[0] == '=') body = body.substr(4);
  return body;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0, crlf;
  while ((crlf = text.find("\r\n", start)) != std::string::npos) {
    out.push_back(text.substr(start, crlf - start));
    start = crlf + 2;
  }
  CHECK(start == text.size());  // every line ends in CRLF
  return out;
}

}  // namespace

TEST_CASE("INFO: sections, key:value lines, CRLF, verbatim in RESP3") {
  Server s;
  const std::string info = payload(s.run({"info"}));
  std::vector<std::string> titles;
  for (const std::string& l : lines(info)) {
    if (l.empty()) continue;
    if (l[0] == '#') {
      titles.push_back(l);
      continue;
    }
    CHECK(l.find(':') != std::string::npos);
    CHECK(l.find('\n') == std::string::npos);
  }
  CHECK(titles == std::vector<std::string>{"# Server", "# Clients", "# Memory", "# Persistence", "# Stats",
                                           "# Expiry", "# Replication", "# CPU", "# Modules", "# Errorstats",
                                           "# Cluster", "# Keyspace"});
  CHECK(info.find("redis_version:7.0.15\r\n") != std::string::npos);
  CHECK(info.find("lawnkv_version:") != std::string::npos);
  CHECK(info.find("connected_clients:1\r\n") != std::string::npos);
  CHECK(info.find("\r\n\r\n# Clients\r\n") != std::string::npos);

  CHECK(s.run({"info", "foo"}) == "$0\r\n\r\n");  // redis
  CHECK(s.run({"info", "keyspace"}) == "$12\r\n# Keyspace\r\n\r\n");
  s.run({"set", "a", "1"});
  CHECK(payload(s.run({"info", "KEYSPACE", "keyspace"})) == "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n");
  const std::string all = payload(s.run({"info", "all"}));
  CHECK(all.find("# Commandstats\r\ncmdstat_") != std::string::npos);
  CHECK(all.find("cmdstat_set:calls=1,usec=") != std::string::npos);
  CHECK(all.find("# Modules\r\n\r\n# Commandstats") != std::string::npos);  // redis: empty, in "all" too
  CHECK(payload(s.run({"info", "everything"})).find("# Modules\r\n") != std::string::npos);
  const std::string two = payload(s.run({"info", "clients", "server"}));
  CHECK(two.find("# Server") < two.find("# Clients"));  // table order, not argument order

  s.session.protocol = 3;
  CHECK(s.run({"info", "keyspace"}).rfind("=", 0) == 0);
}

TEST_CASE("INFO expiry: reap counts and lag") {
  Server s;
  s.run({"set", "k", "v", "px", "100"});
  s.state.clock.advance_ms(150);
  s.state.data.keyspace.reap(s.state.clock.now_ms(), 100);
  const std::string text = payload(s.run({"info", "expiry"}));
  CHECK(text.find("expired_keys:1\r\n") != std::string::npos);
  CHECK(text.find("expired_active:1\r\n") != std::string::npos);
  CHECK(text.find("expired_lag_samples:1\r\n") != std::string::npos);
  CHECK(text.find("expired_lag_max_ms:") != std::string::npos);
}

TEST_CASE("CONFIG through the command: map reply, errors, RESETSTAT, REWRITE") {
  Server s;
  CHECK(s.run({"config", "get", "maxmemory"}) == "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
  CHECK(s.run({"config", "set", "maxmemory", "1mb"}) == "+OK\r\n");
  CHECK(s.run({"config", "get", "maxmemory"}) == "*2\r\n$9\r\nmaxmemory\r\n$7\r\n1048576\r\n");
  CHECK(s.run({"config", "set", "port", "1", "maxmemory"}) == "-ERR syntax error\r\n");  // redis
  CHECK(s.run({"config", "set", "foo", "bar"}) ==
        "-ERR Unknown option or number of arguments for CONFIG SET - 'foo'\r\n");  // redis
  CHECK(s.run({"config", "set", "port"}) == "-ERR wrong number of arguments for 'config|set' command\r\n");
  CHECK(s.run({"config", "foo"}) == "-ERR unknown subcommand 'foo'. Try CONFIG HELP.\r\n");
  CHECK(s.run({"config", "rewrite"}) == "-ERR The server is running without a config file\r\n");  // redis
  s.session.protocol = 3;
  CHECK(s.run({"config", "get", "hz"}) == "%1\r\n$2\r\nhz\r\n$2\r\n10\r\n");
  s.run({"get", "nosuch"});
  CHECK(s.state.data.keyspace.stats().keyspace_misses == 1);
  CHECK(s.run({"config", "resetstat"}) == "+OK\r\n");
  CHECK(s.state.data.keyspace.stats().keyspace_misses == 0);
  CHECK(s.state.facts.stats.total_commands_processed == 1);  // RESETSTAT itself, counted after it ran
}

TEST_CASE("COMMAND: rows as Redis 7.0 shapes them") {
  Server s;
  // redis: COMMAND INFO get
  const std::string get_row =
      "*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@string\r\n+@fast\r\n"
      "*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\n"
      "index\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\n"
      "spec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n";
  CHECK(s.run({"command", "info", "get"}) == "*1\r\n" + get_row);
  CHECK(s.run({"command", "info", "nosuch", "get|x", "config|get|x"}) == "*3\r\n$-1\r\n$-1\r\n$-1\r\n");  // redis
  // redis: COMMAND INFO config|get
  CHECK(s.run({"command", "info", "CONFIG|GET"}) ==
        "*1\r\n*10\r\n$10\r\nconfig|get\r\n:-3\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n"
        "*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n");
  CHECK(s.run({"command", "info", "set"}).find("*8\r\n$5\r\nnotes\r\n$48\r\nRW and ACCESS due to the optional `GET` argument\r\n$5\r\nflags\r\n*4\r\n+RW\r\n+access\r\n+update\r\n+variable_flags\r\n") != std::string::npos);  // redis
  CHECK(s.run({"command", "count"}) == ":" + std::to_string(s.state.commands.all().size()) + "\r\n");
  CHECK(s.run({"command", "getkeys", "mset", "a", "b", "c"}) == "*2\r\n$1\r\na\r\n$1\r\nc\r\n");  // redis
  CHECK(s.run({"command", "getkeys", "memory", "usage", "k"}) == "*1\r\n$1\r\nk\r\n");          // redis
  CHECK(s.run({"command", "getkeys", "ping", "x"}) == "-ERR The command has no key arguments\r\n");
  CHECK(s.run({"command", "getkeys", "nosuch", "x"}) == "-ERR Invalid command specified\r\n");
  CHECK(s.run({"command", "getkeys", "get", "a", "b"}) ==
        "-ERR Invalid number of arguments specified for command\r\n");
  CHECK(s.run({"command", "list", "filterby", "pattern", "conf*"}) ==
        "*6\r\n$6\r\nconfig\r\n$10\r\nconfig|get\r\n$10\r\nconfig|set\r\n$16\r\nconfig|resetstat\r\n"
        "$14\r\nconfig|rewrite\r\n$11\r\nconfig|help\r\n");
  CHECK(s.run({"command", "list", "filterby", "module", "x"}) == "*0\r\n");
  CHECK(s.run({"command", "list", "foo"}) == "-ERR syntax error\r\n");
  CHECK(s.run({"command", "docs", "nosuch"}) == "*0\r\n");
  s.session.protocol = 3;
  CHECK(s.run({"command", "docs", "nosuch"}) == "%0\r\n");
  CHECK(s.run({"command", "docs", "get"}).rfind("%1\r\n$3\r\nget\r\n%4\r\n$7\r\nsummary\r\n", 0) == 0);
}

TEST_CASE("DEBUG: refused unless enabled, ADVANCE-TIME, SET-ACTIVE-EXPIRE") {
  const std::string refused =
      "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it "
      "from a local connection, otherwise you need to set this option in the configuration file, and then "
      "restart the server.\r\n";  // redis
  Server off("no");
  CHECK(off.run({"debug", "sleep", "0"}) == refused);
  Server local("local");
  CHECK(local.run({"debug", "sleep", "0"}) == "+OK\r\n");
  local.session.peer = "10.1.2.3:4000";
  CHECK(local.run({"debug", "sleep", "0"}) == refused);

  Server s;
  CHECK(s.run({"debug", "foo"}) == "-ERR unknown subcommand or wrong number of arguments for 'foo'. Try DEBUG HELP.\r\n");
  CHECK(s.run({"debug", "sleep"}) ==
        "-ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG HELP.\r\n");
  s.run({"set", "k", "v", "px", "100000"});
  CHECK(s.run({"debug", "advance-time", "50000"}) == "+OK\r\n");
  CHECK(s.run({"get", "k"}) == "$1\r\nv\r\n");
  CHECK(s.run({"debug", "advance-time", "50001"}) == "+OK\r\n");
  CHECK(s.run({"get", "k"}) == "$-1\r\n");
  CHECK(s.state.clock.offset_ms() == 100001);
  CHECK(s.run({"debug", "advance-time", "-100001"}) == "+OK\r\n");
  CHECK(s.state.clock.offset_ms() == 0);
  // commandstats time commands by the wall clock, which ADVANCE-TIME does
  // not move: its 200 s of jumps count as nothing.
  CHECK(s.state.commands.find("debug")->stats.nsec < 10'000'000'000ULL);
  CHECK(s.run({"debug", "advance-time", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(s.run({"debug", "freeze-time", "1"}) == "+OK\r\n");
  CHECK(s.state.clock.frozen());
  CHECK(s.run({"debug", "freeze-time", "0"}) == "+OK\r\n");
  CHECK_FALSE(s.state.clock.frozen());
  CHECK(s.run({"debug", "freeze-time", "on"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK_FALSE(s.state.clock.frozen());
  CHECK(s.run({"debug", "set-active-expire", "0"}) == "+OK\r\n");
  CHECK_FALSE(s.state.facts.active_expire);
  CHECK(s.run({"debug", "set-active-expire", "1"}) == "+OK\r\n");
  CHECK(s.state.facts.active_expire);
  CHECK(s.run({"debug", "object", "nosuch"}) == "-ERR no such key\r\n");  // redis
  s.run({"set", "n", "12"});
  CHECK(s.run({"debug", "object", "n"}).find(" encoding:int serializedlength:2 ") != std::string::npos);
  // serializedlength is the value's length in an RDB file: "hello" is a
  // length byte and 5 bytes; an edited string is raw, as OBJECT ENCODING says.
  s.run({"set", "s", "hell"});
  s.run({"append", "s", "o"});
  CHECK(s.run({"debug", "object", "s"}).find(" encoding:raw serializedlength:6 ") != std::string::npos);
  // A list adds Redis's quicklist fields.
  s.run({"rpush", "l", "a", "b", "c"});
  // lru: the 24-bit clock of seconds at the last access, as Redis's.
  const std::string list_line = s.run({"debug", "object", "l"});
  const std::string lru = std::to_string((s.now / 1000) & ((1 << 24) - 1));
  CHECK(list_line.find(" encoding:quicklist serializedlength:7 lru:" + lru + " lru_seconds_idle:0 "
                       "ql_nodes:1 ql_avg_node:3.00 ql_listpack_max:-2 ql_compressed:0 "
                       "ql_uncompressed_size:3\r\n") != std::string::npos);
}

TEST_CASE("DBSIZE, FLUSHDB, FLUSHALL: counts, options, WATCH") {
  Server s;
  // FLUSHALL under the default save rules writes a snapshot: not where the tests run.
  const test::TempDir dir;
  s.state.config.mutable_values().dir = dir.path.string();
  s.run({"set", "a", "1"});
  s.run({"set", "b", "1"});
  CHECK(s.run({"dbsize"}) == ":2\r\n");
  s.state.data.keyspace.watches().watch(s.session.watcher, 0, "a", false);
  CHECK(s.run({"flushdb", "foo"}) == "-ERR syntax error\r\n");            // redis
  CHECK(s.run({"flushall", "sync", "async"}) == "-ERR syntax error\r\n");  // redis
  CHECK_FALSE(s.session.watcher.dirty);
  CHECK(s.run({"flushdb", "ASYNC"}) == "+OK\r\n");
  CHECK(s.session.watcher.dirty);
  CHECK(s.run({"dbsize"}) == ":0\r\n");
  s.state.data.keyspace.watches().unwatch_all(s.session.watcher);

  // A watched key that is not there does not change by a flush.
  s.state.data.keyspace.watches().watch(s.session.watcher, 1, "gone", false);
  s.run({"select", "1"});
  s.run({"set", "x", "1"});
  CHECK(s.run({"flushall"}) == "+OK\r\n");
  CHECK_FALSE(s.session.watcher.dirty);
  CHECK(s.run({"dbsize"}) == ":0\r\n");
}

TEST_CASE("SHUTDOWN, SAVE, BGSAVE, LASTSAVE, TIME, MEMORY USAGE") {
  Server s;
  CHECK(s.run({"shutdown", "abort"}) == "-ERR No shutdown in progress.\r\n");  // redis
  CHECK(s.run({"shutdown", "save", "nosave"}) == "-ERR syntax error\r\n");     // redis
  CHECK(s.run({"shutdown", "foo"}) == "-ERR syntax error\r\n");                // redis
  CHECK_FALSE(s.state.shutdown_requested);
  CHECK(s.run({"shutdown", "NOSAVE", "now", "force"}) == "");  // no reply: the server stops
  CHECK(s.state.shutdown_requested);

  Server t;
  CHECK(t.run({"bgsave", "foo"}) == "-ERR syntax error\r\n");  // redis
  CHECK(t.run({"lastsave"}) == ":" + std::to_string(t.state.facts.start_ms / 1000) + "\r\n");
  CHECK(t.run({"time"}).rfind("*2\r\n$10\r\n", 0) == 0);
  CHECK(t.run({"memory", "usage", "nosuch"}) == "$-1\r\n");
  CHECK(t.run({"memory", "usage", "k", "samples", "-1"}) == "-ERR syntax error\r\n");  // redis
  CHECK(t.run({"memory", "usage", "k", "samples", "x"}) == "-ERR value is not an integer or out of range\r\n");
  t.run({"set", "k", std::string(1000, 'x')});
  const std::string usage = t.run({"memory", "usage", "k"});
  REQUIRE(usage[0] == ':');
  CHECK(std::stoll(usage.substr(1)) > 1000);
  CHECK(t.run({"memory", "foo"}) == "-ERR unknown subcommand 'foo'. Try MEMORY HELP.\r\n");  // redis
}

TEST_CASE("bytes_to_human as Redis's bytesToHuman") {
  CHECK(bytes_to_human(0) == "0B");
  CHECK(bytes_to_human(1023) == "1023B");
  CHECK(bytes_to_human(1024) == "1.00K");
  CHECK(bytes_to_human(1138320) == "1.09M");
  CHECK(bytes_to_human(25276502016ULL) == "23.54G");
}

// Every HELP goes through reply_help: Redis's header line and its closing
// "HELP" / "    Prints this help." pair (redis-server 7.0.15's CLIENT HELP and
// PUBSUB HELP end so too).
TEST_CASE("HELP replies share one shape") {
  Server s;
  for (const char* name : {"CLIENT", "PUBSUB", "OBJECT", "CONFIG"}) {
    CAPTURE(name);
    const std::string out = s.run({name, "help"});
    REQUIRE(out.starts_with("*"));
    CHECK(out.find("\r\n+" + std::string(name) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n") !=
          std::string::npos);
    CHECK(out.ends_with("\r\n+HELP\r\n+    Prints this help.\r\n"));
  }
}

}  // namespace lawnkv
