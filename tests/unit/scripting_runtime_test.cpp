// Scripts run through the dispatcher (scripting/runtime.hpp): what a script
// cannot do to the server (allocate without end, recurse without end; one
// that loops: scripting_busy_test.cpp), what its writes leave (one batch of
// effect records, WATCH invalidated, keyspace events, blocked clients
// served after it), the frozen time, and the memory INFO reports.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "scripting/runtime.hpp"

namespace lawnkv::test {
namespace {

struct BatchSink : EffectSink {
  std::vector<std::vector<std::string>> batches;  // each record as "ARG ARG ..."
  void append(std::span<const EffectRecord> records) override {
    std::vector<std::string>& b = batches.emplace_back();
    for (const EffectRecord& r : records) {
      std::string line;
      for (const std::string& a : r.argv) line += (line.empty() ? "" : " ") + a;
      b.push_back(line);
    }
  }
};

}  // namespace
}  // namespace lawnkv::test

// Failures print the records.
template <>
struct doctest::StringMaker<std::vector<std::string>> {
  static doctest::String convert(const std::vector<std::string>& lines) {
    std::string out = "{";
    for (const auto& l : lines) out += " \"" + l + "\"";
    return (out + " }").c_str();
  }
};

namespace lawnkv::test {
namespace {

bool has(const std::string& reply, const std::string& part) { return reply.find(part) != std::string::npos; }

TEST_CASE("scripting: a script allocating without end gets an error, the heap comes back") {
  CommandServer s;
  scripting::Runtime::of(s.state).set_heap_limit(64 << 20);
  std::string r = s.run({"eval", "return string.rep('x', 2^27)", "0"});
  CHECK(has(r, "-ERR Error running script"));
  CHECK(has(r, "not enough memory"));
  r = s.run({"eval", "local t = {} for i = 1, 1e9 do t[i] = 'some longer string value' .. i end", "0"});
  CHECK(has(r, "not enough memory"));
  CHECK(s.run({"eval", "return 1", "0"}) == ":1\r\n");
  s.run({"script", "flush"});
  CHECK(scripting::Runtime::of(s.state).lua_bytes() < 1024 * 1024);
}

TEST_CASE("scripting: an error object whose metamethods raise cannot reach an unprotected call") {
  // (redis-server 7.0.15 panics on both.)
  CommandServer s;
  std::string r = s.run({"eval", "error(setmetatable({}, {__index = function() error('x') end}))", "0"});
  CHECK(has(r, "-ERR Error running script"));
  r = s.run({"eval", "error({})", "0"});
  CHECK(has(r, "-ERR Error running script"));
  r = s.run({"eval", "return setmetatable({}, {__index = function() error('x') end})", "0"});
  CHECK(r == "*0\r\n");
  CHECK(s.run({"eval", "return 3", "0"}) == ":3\r\n");
}

TEST_CASE("scripting: unbounded recursion is an error") {
  CommandServer s;
  std::string r = s.run({"eval", "local function f(n) return f(n + 1) + 1 end return f(1)", "0"});
  CHECK(has(r, "stack overflow"));
  r = s.run({"eval", "local function f() return pcall(f) end return f()", "0"});
  CHECK(r[0] != '-');  // Lua's C-stack limit ends it as a pcall failure
  CHECK(s.run({"eval", "return 2", "0"}) == ":2\r\n");
}

TEST_CASE("scripting: a script's writes reach the sink as one batch; EVAL itself is not recorded") {
  CommandServer s;
  BatchSink sink;
  s.state.data.effects.attach(&sink);
  s.run({"eval", "redis.call('set', KEYS[1], 'a') redis.call('set', KEYS[2], 'b', 'ex', 10) return 1", "2", "x",
         "y"});
  REQUIRE(sink.batches.size() == 1);
  CHECK(sink.batches[0] == std::vector<std::string>{"SET x a", "SET y b PXAT " + std::to_string(kT0 + 10000)});
  sink.batches.clear();
  // Reads, and a failing write, leave nothing.
  s.run({"eval", "redis.call('get', 'x') return redis.pcall('incr', 'x')", "0"});
  CHECK(sink.batches.empty());
  // What ran before an error stays done, and recorded.
  s.run({"eval", "redis.call('incr', 'n') error('stop')", "0"});
  REQUIRE(sink.batches.size() == 1);
  CHECK(sink.batches[0] == std::vector<std::string>{"incr n"});
  sink.batches.clear();
  // Inside MULTI, the transaction's records are one batch.
  s.run({"multi"});
  s.run({"eval", "return redis.call('incr', 'n')", "0"});
  s.run({"set", "z", "1"});
  s.run({"exec"});
  REQUIRE(sink.batches.size() == 1);
  CHECK(sink.batches[0] == std::vector<std::string>{"incr n", "SET z 1"});
  s.state.data.effects.detach(&sink);
}

TEST_CASE("scripting: redis.set_repl keeps later commands out of the records unless REPL_AOF is in it") {
  CommandServer s;
  BatchSink sink;
  s.state.data.effects.attach(&sink);
  s.run({"eval",
         "redis.call('set', 'a', 1) redis.set_repl(redis.REPL_NONE) redis.call('set', 'b', 2) "
         "redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'c', 3) "
         "redis.set_repl(redis.REPL_AOF) redis.call('set', 'd', 4) "
         "redis.set_repl(redis.REPL_ALL) redis.call('set', 'e', 5) return 1",
         "0"});
  REQUIRE(sink.batches.size() == 1);
  CHECK(sink.batches[0] == std::vector<std::string>{"SET a 1", "SET d 4", "SET e 5"});
  // The next script starts with REPL_ALL again.
  s.run({"eval", "redis.call('set', 'f', 6) return 1", "0"});
  REQUIRE(sink.batches.size() == 2);
  CHECK(sink.batches[1] == std::vector<std::string>{"SET f 6"});
  CHECK(s.run({"get", "b"}) == "$1\r\n2\r\n");
  s.state.data.effects.detach(&sink);
}

TEST_CASE("scripting: writes invalidate WATCH and notify; blocked clients are served after the script") {
  BlockingServer s;
  FakeSession& watcher = s.client();
  s.run_as(watcher, {"watch", "w"});
  s.run_as(watcher, {"multi"});
  s.run_as(watcher, {"get", "w"});
  s.log.take();
  s.run({"eval", "redis.call('set', 'w', 1) redis.call('lpush', 'l', 'e') return 1", "0"});
  CHECK(s.log.take() == std::vector<std::string>{"new w", "set w", "new l", "lpush l"});
  CHECK(s.run_as(watcher, {"exec"}) == "*-1\r\n");

  FakeSession& waiter = s.client();
  s.run({"del", "l"});
  CHECK(s.run_as(waiter, {"blpop", "l", "0"}).empty());
  CHECK(waiter.blocked);
  s.run({"eval", "redis.call('rpush', 'l', 'a') redis.call('rpush', 'l', 'b') return 1", "0"});
  s.serve();
  REQUIRE(waiter.delivered.size() == 1);
  CHECK(waiter.delivered[0] == "*2\r\n$1\r\nl\r\n$1\r\na\r\n");
}

TEST_CASE("scripting: INFO commandstats counts the script and each command it ran, as Redis") {
  CommandServer s;
  auto stat = [&](const std::string& name) {
    const std::string info = s.run({"info", "commandstats"});
    const size_t at = info.find("cmdstat_" + name + ":");
    REQUIRE(at != std::string::npos);
    std::string line = info.substr(at, info.find("\r\n", at) - at);
    // Drop the times, which vary.
    const size_t usec = line.find("usec="), rejected = line.find("rejected_calls=");
    return line.substr(0, usec) + line.substr(rejected);
  };
  s.run({"config", "resetstat"});
  s.run({"eval",
         "redis.call('set','a','1') redis.call('get','a') redis.pcall('get') redis.pcall('incr', 'x', 'y') "
         "return redis.pcall('hget','a','f')",
         "0"});
  CHECK(stat("eval") == "cmdstat_eval:calls=1,rejected_calls=0,failed_calls=1");
  CHECK(stat("set") == "cmdstat_set:calls=1,rejected_calls=0,failed_calls=0");
  CHECK(stat("get") == "cmdstat_get:calls=1,rejected_calls=1,failed_calls=0");
  CHECK(stat("incr") == "cmdstat_incr:calls=0,rejected_calls=1,failed_calls=0");
  CHECK(stat("hget") == "cmdstat_hget:calls=1,rejected_calls=0,failed_calls=1");
  s.run({"eval", "return 1", "0"});
  CHECK(stat("eval") == "cmdstat_eval:calls=2,rejected_calls=0,failed_calls=1");
  s.run({"eval", "return {err = 'x'}", "0"});
  CHECK(stat("eval") == "cmdstat_eval:calls=3,rejected_calls=0,failed_calls=2");
}

TEST_CASE("functions: FUNCTION LOAD, DELETE and FLUSH are recorded; FCALL records what its function did") {
  CommandServer s;
  BatchSink sink;
  s.state.data.effects.attach(&sink);
  const std::string lib = "#!lua name=lib\nredis.register_function('two', function(keys) "
                          "redis.call('set', keys[1], 1) redis.call('incr', keys[1]) return 2 end)";
  CHECK(s.run({"function", "load", lib}) == "$3\r\nlib\r\n");
  CHECK(s.run({"fcall", "two", "1", "k"}) == ":2\r\n");
  CHECK(s.run({"function", "load", lib}).rfind("-ERR Library 'lib' already exists", 0) == 0);
  CHECK(s.run({"function", "delete", "lib"}) == "+OK\r\n");
  CHECK(s.run({"function", "flush"}) == "+OK\r\n");
  REQUIRE(sink.batches.size() == 4);
  CHECK(sink.batches[0] == std::vector<std::string>{"function load " + lib});
  CHECK(sink.batches[1] == std::vector<std::string>{"SET k 1", "incr k"});
  CHECK(sink.batches[2] == std::vector<std::string>{"function delete lib"});
  CHECK(sink.batches[3] == std::vector<std::string>{"function flush"});
  s.state.data.effects.detach(&sink);
}

TEST_CASE("functions: INFO counts libraries and functions") {
  CommandServer s;
  s.run({"function", "load", "#!lua name=a\nredis.register_function('f1', function() end) "
                             "redis.register_function('f2', function() end)"});
  s.run({"function", "load", "#!lua name=b\nredis.register_function('g', function() end)"});
  std::string info = s.run({"info", "memory"});
  CHECK(has(info, "number_of_functions:3\r\n"));
  CHECK(has(info, "number_of_libraries:2\r\n"));
  s.run({"function", "delete", "a"});
  info = s.run({"info", "memory"});
  CHECK(has(info, "number_of_functions:1\r\n"));
  CHECK(has(info, "number_of_libraries:1\r\n"));
  CHECK(s.run({"fcall", "f1", "0"}) == "-ERR Function not found\r\n");
  CHECK(s.run({"fcall", "g", "0"}) == "$-1\r\n");
}

TEST_CASE("scripting: INFO errorstats counts an error once, where Redis counts it") {
  // The figures redis-server 7.0.15 gives for the same scripts: the
  // command's error (or refusal) counts, the script replying it does not
  // count it again; a script's own error counts.
  CommandServer s;
  s.run({"set", "s", "str"});
  s.run({"config", "resetstat"});
  s.run({"eval", "return redis.pcall('incr','s')", "0"});
  s.run({"eval", "redis.call('nosuch')", "0"});
  s.run({"eval", "return {err='XCODE y'}", "0"});
  s.run({"eval", "error('z')", "0"});
  s.run({"eval", "return redis.call('incr','s')", "0"});
  s.run({"eval", "return {1, redis.pcall('incr','s')}", "0"});
  const std::string info = s.run({"info", "errorstats"});
  CHECK(has(info, "errorstat_ERR:count=5\r\n"));
  CHECK(has(info, "errorstat_XCODE:count=1\r\n"));
  CHECK(has(s.run({"info", "stats"}), "total_error_replies:6\r\n"));
}

TEST_CASE("scripting: time is frozen for the script") {
  CommandServer s;
  s.run({"set", "k", "v", "pxat", std::to_string(kT0 + 5)});
  // Every command of the script sees the caller's snapshot: the key's
  // remaining time does not move between two reads.
  CHECK(s.run({"eval", "return {redis.call('pttl', 'k'), redis.call('pttl', 'k')}", "0"}) == "*2\r\n:5\r\n:5\r\n");
  s.now = kT0 + 5;
  CHECK(s.run({"eval", "return redis.call('exists', 'k')", "0"}) == ":1\r\n");
  s.now = kT0 + 6;
  CHECK(s.run({"eval", "return redis.call('exists', 'k')", "0"}) == ":0\r\n");
}

TEST_CASE("scripting: INFO reports the script cache and the Lua heap; SCRIPT FLUSH empties them") {
  CommandServer s;
  s.run({"script", "load", "return 1"});
  s.run({"script", "load", "return 2"});
  std::string info = s.run({"info", "memory"});
  CHECK(has(info, "number_of_cached_scripts:2\r\n"));
  CHECK(has(info, "used_memory_scripts:" + std::to_string(2 * (40 + 8)) + "\r\n"));
  CHECK(has(info, "used_memory_lua:"));
  CHECK(has(info, "used_memory_vm_eval:"));
  s.run({"script", "flush"});
  info = s.run({"info", "memory"});
  CHECK(has(info, "number_of_cached_scripts:0\r\n"));
  CHECK(has(info, "used_memory_scripts:0\r\n"));
}

}  // namespace
}  // namespace lawnkv::test
