// The config room (src/config/): the parameter table, Redis's text forms,
// redis.conf and command-line loading with redis-server's fatal errors, and
// CONFIG SET / GET. Expected texts were taken from redis-server 7.0.15
// (bad lines in a file, `redis-server --x y`, CONFIG SET / GET by redis-cli).

#include <doctest/doctest.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/params.hpp"
#include "pubsub/event_class.hpp"

using namespace lawnkv::config;
using Pairs = std::vector<std::pair<std::string, std::string>>;

namespace {

std::string fatal_text(int line, std::string_view text, std::string_view reason) {
  return "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line " +
         std::to_string(line) + "\n>>> '" + std::string(text) + "'\n" + std::string(reason);
}

std::string get1(const Config& c, std::string_view name) {
  auto r = c.get({name});
  REQUIRE(r.size() == 1);
  return r[0].second;
}

std::filesystem::path repo_root() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  REQUIRE(n > 0);
  return std::filesystem::path(std::string(buf, static_cast<size_t>(n))).parent_path().parent_path();
}

}  // namespace

TEST_CASE("config table: names, defaults and round trips") {
  const Values defaults;
  std::set<std::string> names;
  for (const Param& p : params()) {
    CAPTURE(p.name);
    for (std::string_view n : {p.name, p.alias}) {
      if (n.empty()) continue;
      CHECK(names.insert(std::string(n)).second);
      for (char c : n) CHECK(!(c >= 'A' && c <= 'Z'));
      CHECK(find_param(n) == &p);
    }
    CHECK(!p.doc.empty());
    // The documented default is what an untouched Values prints (dir prints
    // its absolute form).
    if (p.name != "dir") CHECK(get_param(p, defaults) == p.def);
    // Setting a parameter to what it prints changes nothing.
    // replicaof's "" (a primary) is no value it takes: "no one" is.
    if (p.name == "dir" || p.name == "save" || p.name == "replicaof") continue;
    Values v;
    const std::string printed = get_param(p, v);
    std::vector<std::string> words{printed};
    if (p.multi_arg) {
      words.clear();
      size_t start = 0;
      while (start <= printed.size()) {
        const size_t sp = printed.find(' ', start);
        words.push_back(printed.substr(start, sp - start));
        if (sp == std::string::npos) break;
        start = sp + 1;
      }
    }
    CHECK(set_param(p, v, words, false) == "");
    CHECK(get_param(p, v) == printed);
  }
  CHECK(find_param("PORT") == find_param("port"));
  CHECK(find_param("Slave-Read-Only") == find_param("replica-read-only"));
  CHECK(find_param("slaveof") == find_param("replicaof"));
  {
    const Param& p = *find_param("replicaof");
    Values v;
    CHECK(set_param(p, v, std::vector<std::string>{"10.0.0.1", "6380"}, false) == "");
    CHECK(get_param(p, v) == "10.0.0.1 6380");
    CHECK(set_param(p, v, std::vector<std::string>{"NO", "one"}, false) == "");
    CHECK(get_param(p, v) == "");
  }
  CHECK(find_param("nosuch") == nullptr);
}

TEST_CASE("config memory units: memtoull and the rewrite form") {
  auto mem = [](std::string_view s) {
    uint64_t v = 12345;
    return parse_memory(s, &v) ? static_cast<long long>(v) : -1LL;
  };
  CHECK(mem("0") == 0);
  CHECK(mem("100") == 100);
  CHECK(mem("100b") == 100);
  CHECK(mem("1k") == 1000);
  CHECK(mem("1kb") == 1024);
  CHECK(mem("1KB") == 1024);
  CHECK(mem("2m") == 2000000);
  CHECK(mem("512mb") == 512LL << 20);
  CHECK(mem("1g") == 1000000000);
  CHECK(mem("1GB") == 1LL << 30);
  CHECK(mem("") == 0);    // Redis: CONFIG SET maxmemory "" is 0
  CHECK(mem("mb") == 0);  // no digits
  CHECK(mem("010") == 10);
  CHECK(mem("1.5mb") == -1);
  CHECK(mem("-1") == -1);
  CHECK(mem("+1") == -1);
  CHECK(mem(" 1") == -1);
  CHECK(mem("1 ") == -1);
  CHECK(mem("1tb") == -1);
  uint64_t big;
  REQUIRE(parse_memory("99999999999999999999", &big));
  CHECK(big == UINT64_MAX);  // strtoull saturates

  CHECK(format_memory(0) == "0");
  CHECK(format_memory(1000) == "1000");
  CHECK(format_memory(1024) == "1kb");
  CHECK(format_memory(64ULL << 20) == "64mb");
  CHECK(format_memory(512ULL << 20) == "512mb");
  CHECK(format_memory(3ULL << 30) == "3gb");
  for (uint64_t v : {0ULL, 1ULL, 1000ULL, 4096ULL, 1ULL << 20, 1536ULL << 20, 7ULL << 30}) {
    uint64_t back;
    REQUIRE(parse_memory(format_memory(v), &back));
    CHECK(back == v);
  }
}

TEST_CASE("config notify-keyspace-events reads back in Redis's order") {
  auto round = [](std::string_view in) {
    uint32_t f;
    REQUIRE(parse_notify_flags(in, &f));
    return format_notify_flags(f);
  };
  CHECK(round("") == "");
  CHECK(round("KEA") == "AKE");
  CHECK(round("Exgm") == "gxEm");
  CHECK(round("Kt") == "tK");
  CHECK(round("Kmd") == "dKm");
  CHECK(round("KEnm") == "nKEm");
  CHECK(round("nKEAmt") == "AKEm");  // 7.0 drops n after A when printing
  CHECK(round("d$lshzxetgK") == "AK");
  uint32_t f;
  REQUIRE(parse_notify_flags("Ex", &f));
  CHECK(f == (lawnkv::pubsub::kKeyeventChannel | lawnkv::pubsub::kExpired));
  CHECK_FALSE(parse_notify_flags("Z", &f));
  CHECK_FALSE(parse_notify_flags("a", &f));
}

TEST_CASE("config file: values, comments, quoting, repeated directives") {
  Config c;
  const Status st = c.load_text(
      "# a comment\n"
      "\n"
      "   port 7000   \n"
      "PROTECTED-MODE No\r\n"
      "bind 0.0.0.0 \"::1\"\n"
      "maxmemory 100mb\n"
      "maxmemory-policy ALLKEYS-LRU\n"
      "notify-keyspace-events KEA\n"
      "client-output-buffer-limit pubsub 1mb 2kb 3\n"
      "save 900 1\n"
      "save 300 10\n"
      "appendonly yes\n"
      "hz 1000\n"
      "slave-read-only no\n"
      "requirepass 'p w'\n");
  REQUIRE(st.ok());
  const Values& v = c.values();
  CHECK(v.port == 7000);
  CHECK_FALSE(v.protected_mode);
  CHECK(v.bind == std::vector<std::string>{"0.0.0.0", "::1"});
  CHECK(v.maxmemory == 100LL << 20);
  CHECK(v.maxmemory_policy == "allkeys-lru");
  CHECK(v.requirepass == "p w");
  CHECK(v.output_limit_pubsub.hard_bytes == 1 << 20);
  CHECK(v.output_limit_pubsub.soft_bytes == 2048);
  CHECK(v.output_limit_pubsub.soft_seconds == 3);
  CHECK(v.save == "900 1 300 10");
  CHECK(v.hz == 500);
  CHECK(get1(c, "notify-keyspace-events") == "AKE");
  CHECK(get1(c, "save") == "900 1 300 10");  // the file's lines replace the default rules
  CHECK(get1(c, "appendonly") == "yes");  // acted on since the append-only file landed
  CHECK(get1(c, "replica-read-only") == "no");
  CHECK(get1(c, "client-output-buffer-limit") ==
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 2048 3");
}

TEST_CASE("config: a multi-argument directive given as one quoted argument is split, as Redis 7.0") {
  Config c;
  REQUIRE(c.load_text("client-output-buffer-limit \"pubsub 1mb 256kb 60\"\nbind \"127.0.0.1 -::1\"\n").ok());
  CHECK(get1(c, "client-output-buffer-limit") ==
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 262144 60");
  CHECK(get1(c, "bind") == "127.0.0.1 -::1");
  Config args;
  REQUIRE(args.load_args({"--client-output-buffer-limit", "pubsub 2mb 1mb 5", "--save", ""}).ok());
  CHECK(get1(args, "client-output-buffer-limit") ==
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 2097152 1048576 5");
}

TEST_CASE("config file: redis-server's fatal errors name the line") {
  auto err = [](std::string_view text) {
    Config c;
    return c.load_text(text).error;
  };
  CHECK(err("# c\n\nfoo bar\n") == fatal_text(3, "foo bar", "Bad directive or wrong number of arguments"));
  CHECK(err("port\n") == fatal_text(1, "port", "wrong number of arguments"));
  CHECK(err("port 1 2\n") == fatal_text(1, "port 1 2", "wrong number of arguments"));
  CHECK(err("port abc\n") == fatal_text(1, "port abc", "argument couldn't be parsed into an integer"));
  CHECK(err("port 99999\n") == fatal_text(1, "port 99999", "argument must be between 0 and 65535 inclusive"));
  CHECK(err("databases 0") == fatal_text(1, "databases 0", "argument must be between 1 and 2147483647 inclusive"));
  CHECK(err("protected-mode 1\n") == fatal_text(1, "protected-mode 1", "argument must be 'yes' or 'no'"));
  CHECK(err("  bind \"unbalanced  \n") ==
        fatal_text(1, "bind \"unbalanced", "Unbalanced quotes in configuration line"));
  CHECK(err("maxmemory 12xb\n") == fatal_text(1, "maxmemory 12xb", "argument must be a memory value"));
  CHECK(err("maxmemory -1\n") == fatal_text(1, "maxmemory -1", "argument must be a memory value"));
  CHECK(err("loglevel loud\n") ==
        fatal_text(1, "loglevel loud", "argument(s) must be one of the following: debug, verbose, notice, warning"));
  CHECK(err("notify-keyspace-events Q\n") ==
        fatal_text(1, "notify-keyspace-events Q", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."));
  CHECK(err("save 10\n") == fatal_text(1, "save 10", "Invalid save parameters"));
  CHECK(err("client-output-buffer-limit normal 1 2\n") ==
        fatal_text(1, "client-output-buffer-limit normal 1 2", "Wrong number of arguments in buffer limit configuration."));
  CHECK(err("client-output-buffer-limit master 1 2 3\n") ==
        fatal_text(1, "client-output-buffer-limit master 1 2 3",
                   "Invalid client class specified in buffer limit configuration."));
  CHECK(err("dbfilename a/b") == fatal_text(1, "dbfilename a/b", "dbfilename can't be a path, just a filename"));
  CHECK(err("dir /nonexistent") == fatal_text(1, "dir /nonexistent", "No such file or directory"));
  CHECK(err("replicaof 127.0.0.1 6379") == "");
  CHECK(err("slaveof no one") == "");
  CHECK(err("replicaof 127.0.0.1 65536") == fatal_text(1, "replicaof 127.0.0.1 65536", "Invalid master port"));
  CHECK(err("replicaof 127.0.0.1 12x") == fatal_text(1, "replicaof 127.0.0.1 12x", "Invalid master port"));
  CHECK(err("replicaof 127.0.0.1") ==
        fatal_text(1, "replicaof 127.0.0.1", "wrong number of arguments"));
  // lawnkv's one refusal of its own: it does not daemonize.
  CHECK(err("daemonize yes").find("lawnkv does not daemonize") != std::string::npos);
  CHECK(err("daemonize no") == "");
  // No line for errors found after the text.
  CHECK(err("logfile /nonexistent/dir/x.log") ==
        "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nCan't open the log file: No such file or directory");
}

TEST_CASE("config file: missing file, include") {
  Config c;
  CHECK(c.load_file("/nonexistent/lawnkv.conf").error ==
        "Fatal error, can't open config file '/nonexistent/lawnkv.conf': No such file or directory");
  const auto dir = std::filesystem::temp_directory_path() / ("lawnkv-config-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto inc = dir / "inc.conf";
  const auto main_conf = dir / "main.conf";
  FILE* f = std::fopen(inc.c_str(), "w");
  std::fputs("maxclients 5\nbogus 1\n", f);
  std::fclose(f);
  f = std::fopen(main_conf.c_str(), "w");
  std::fprintf(f, "port 7001\ninclude %s\n", inc.c_str());
  std::fclose(f);
  Config d;
  // The error names the line of the included file.
  CHECK(d.load_file(main_conf).error == fatal_text(2, "bogus 1", "Bad directive or wrong number of arguments"));
  CHECK(d.values().port == 7001);
  CHECK(d.values().maxclients == 5);
  CHECK(d.file() == main_conf.string());
  std::filesystem::remove_all(dir);
}

TEST_CASE("config command line: lines follow the file, values are quoted") {
  auto args_err = [](std::string_view file_text, std::vector<std::string> args) {
    Config c;
    const auto path = std::filesystem::temp_directory_path() / ("lawnkv-args-" + std::to_string(getpid()));
    if (!file_text.empty()) {
      FILE* f = std::fopen(path.c_str(), "w");
      std::fwrite(file_text.data(), 1, file_text.size(), f);
      std::fclose(f);
      REQUIRE(c.load_file(path).ok());
      std::filesystem::remove(path);
    }
    return c.load_args(args).error;
  };
  const std::string bad = "Bad directive or wrong number of arguments";
  CHECK(args_err("", {"--foo", "bar"}) == fatal_text(2, "foo \"bar\"", bad));
  CHECK(args_err("port 7199\n", {"--foo", "bar"}) == fatal_text(3, "foo \"bar\"", bad));
  CHECK(args_err("port 7199", {"--foo", "bar"}) == fatal_text(2, "foo \"bar\"", bad));
  CHECK(args_err("", {"--port", "7199", "--foo", "a b", "c"}) == fatal_text(3, "foo \"a b\" \"c\"", bad));
  CHECK(args_err("", {"--port", "7199", "--save", "--foo", "x"}) == fatal_text(4, "foo \"x\"", bad));
  CHECK(args_err("", {"--port", "7199", "--maxmemory", "x\"y"}) ==
        fatal_text(3, "maxmemory \"x\\\"y\"", "argument must be a memory value"));
  CHECK(args_err("", {"--port"}) == fatal_text(2, "port", "wrong number of arguments"));
  CHECK(args_err("", {"--port", "--foo"}) ==
        fatal_text(2, "port \"--foo\"", "argument couldn't be parsed into an integer"));
  CHECK(args_err("", {"--port 7199", "--bogus"}) == fatal_text(3, "bogus", bad));
  CHECK(args_err("", {"--port", "7199", "extra"}) == fatal_text(2, "port \"7199\" \"extra\"", "wrong number of arguments"));

  Config c;
  REQUIRE(c.load_args({"--port", "7002", "--bind", "127.0.0.1", "-::1", "--save", "--requirepass", "a\"b\\c\n"}).ok());
  CHECK(c.values().port == 7002);
  CHECK(c.values().bind == std::vector<std::string>{"127.0.0.1", "-::1"});
  CHECK(c.values().requirepass == "a\"b\\c\n");
  CHECK(c.load_args({"--save"}).ok());
  CHECK(c.load_args({}).ok());
}

TEST_CASE("CONFIG SET: Redis 7.0's errors, all or nothing") {
  Config c;
  CHECK(c.set({{"foo", "bar"}}).error == "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  CHECK(c.set({{"databases", "3"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config");
  CHECK(c.set({{"DATABASES", "3"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'DATABASES') - can't set immutable config");
  CHECK(c.set({{"dir", "/tmp"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config");
  CHECK(c.set({{"maxmemory", "10mb"}, {"maxmemory", "1"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate parameter");
  // The first bad name wins, before any value is parsed.
  CHECK(c.set({{"maxmemory", "x"}, {"foo", "1"}}).error ==
        "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  CHECK(c.set({{"foo", "1"}, {"databases", "3"}}).error ==
        "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  CHECK(c.set({{"databases", "3"}, {"foo", "1"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config");
  // A bad value names the parameter as Redis spells it.
  CHECK(c.set({{"MAXMEMORY", "abc"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value");
  CHECK(c.set({{"maxmemory", "10mb"}, {"hz", "abc"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer");
  CHECK(c.values().maxmemory == 0);  // nothing was set
  CHECK(c.set({{"hz", "010"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer");
  CHECK(c.set({{"maxclients", "0"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and "
        "4294967295 inclusive");
  CHECK(c.set({{"proto-max-bulk-len", "1kb"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between "
        "1048576 and 9223372036854775807 inclusive");
  CHECK(c.set({{"list-max-listpack-size", "-2147483649"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'list-max-listpack-size') - argument must be between "
        "-2147483648 and 2147483647 inclusive");
  CHECK(c.set({{"save", "100 1 20"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
  CHECK(c.set({{"save", "100  1"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
  CHECK(c.set({{"client-output-buffer-limit", "normal 1 2 x"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft "
        "or soft_seconds setting in buffer limit configuration.");
  CHECK(c.set({{"oom-score-adj-values", "1 2"}}).error ==
        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - wrong number of arguments");

  REQUIRE(c.set({{"maxmemory", "1GB"}, {"hz", "1000"}, {"notify-keyspace-events", "Exgm"}}).ok());
  CHECK(c.values().maxmemory == 1LL << 30);
  CHECK(get1(c, "hz") == "500");
  CHECK(get1(c, "notify-keyspace-events") == "gxEm");
  REQUIRE(c.set({{"hz", "0"}, {"maxmemory", ""}}).ok());
  CHECK(get1(c, "hz") == "1");
  CHECK(get1(c, "maxmemory") == "0");
  REQUIRE(c.set({{"maxmemory", "99999999999999999999"}}).ok());  // saturated, as Redis accepts it
  REQUIRE(c.set({{"loglevel", "WARNING"}, {"protected-mode", "NO"}, {"slave-read-only", "no"}}).ok());
  CHECK(get1(c, "loglevel") == "warning");
  CHECK(get1(c, "protected-mode") == "no");
  CHECK(get1(c, "replica-read-only") == "no");
  REQUIRE(c.set({{"save", "3600 1 300 100"}, {"appendonly", "yes"}}).ok());
  CHECK(c.values().save == "3600 1 300 100");
  CHECK(get1(c, "save") == "3600 1 300 100");
  CHECK(get1(c, "appendonly") == "yes");
  REQUIRE(c.set({{"client-output-buffer-limit", "normal 1mb 2mb 3 pubsub 1 2 3"}}).ok());
  CHECK(get1(c, "client-output-buffer-limit") == "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 1 2 3");
  REQUIRE(c.set({{"expiry-budget-us", "250"}}).ok());
  CHECK(c.values().expiry_budget_us == 250);
}

TEST_CASE("CONFIG GET: globs, typed names, aliases, each name once") {
  Config c;
  auto names = [&](std::vector<std::string_view> pats) {
    std::vector<std::string> out;
    for (auto& [n, v] : c.get(pats)) out.push_back(n);
    return out;
  };
  CHECK(names({"nosuch"}).empty());
  CHECK(names({"PORT", "Port", "hz*"}) == std::vector<std::string>{"PORT", "hz"});
  CHECK(names({"port", "po*"}) == std::vector<std::string>{"port"});
  CHECK(names({"*read-only"}) == std::vector<std::string>{"replica-read-only", "slave-read-only"});
  CHECK(names({"slave-read-only"}) == std::vector<std::string>{"slave-read-only"});
  CHECK(names({"MAXMEMORY*"}) ==
        std::vector<std::string>{"maxmemory", "maxmemory-policy", "maxmemory-samples", "maxmemory-eviction-tenacity",
                                 "maxmemory-clients"});
  const auto all = c.get({"*"});
  size_t count = 0;
  for (auto table : {params(), reported_params()})
    for (const Param& p : table)
      if (!p.hidden) count += p.alias.empty() ? 1 : 2;
  CHECK(all.size() == count);
  CHECK(all.size() == 193);  // redis-server 7.0.15's 192, and expiry-budget-us
  // Hidden parameters answer their exact name only; reported ones answer
  // Redis's "off" value and are no directive.
  CHECK(names({"key-load*"}).empty());
  CHECK(get1(c, "key-load-delay") == "0");
  CHECK(get1(c, "replicaof") == "");
  CHECK(get1(c, "slaveof") == "");
  CHECK(get1(c, "tls-port") == "0");
  CHECK(find_param("tls-port") != nullptr);  // a directive: lawnkv serves TLS
  CHECK(get1(c, "tls-auth-clients") == "yes");
  CHECK(get1(c, "tls-session-cache-size") == "20480");
  CHECK(get1(c, "bind") == "127.0.0.1 -::1");
  CHECK(get1(c, "port") == "6379");
  CHECK(get1(c, "maxmemory") == "0");
  CHECK(get1(c, "proto-max-bulk-len") == "536870912");
  CHECK(get1(c, "save") == "3600 1 300 100 60 10000");  // Redis 7.0's default rules
  CHECK(get1(c, "appendonly") == "no");
  CHECK(get1(c, "dir") == std::filesystem::current_path().string());
}

TEST_CASE("redis.conf.example: loads, holds the defaults, names every directive") {
  const auto path = repo_root() / "redis.conf.example";
  Config c;
  REQUIRE(c.load_file(path).ok());
  const Config defaults;
  for (const Param& p : params()) {
    CAPTURE(p.name);
    CHECK(get_param(p, c.values()) == get_param(p, defaults.values()));
  }
  FILE* f = std::fopen(path.c_str(), "r");
  REQUIRE(f);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  std::fclose(f);
  for (const Param& p : params()) {
    CAPTURE(p.name);
    const std::string name(p.name);
    CHECK((text.find("\n" + name + " ") != std::string::npos || text.find("# " + name + " ") != std::string::npos));
  }
}

TEST_CASE("CONFIG SET: live applies run on the new values; one failing restores every one and changes nothing") {
  Config c;
  std::vector<std::string> calls;  // "name:port" per apply
  bool port_fails = false;
  c.set_live_apply("port", [&](const Values& v) {
    calls.push_back("port:" + std::to_string(v.port));
    return port_fails && v.port != 6379 ? std::string("Unable to listen on this port. Check server logs.") : "";
  });
  c.set_live_apply("bind", [&](const Values& v) {
    calls.push_back("bind:" + std::to_string(v.port));
    return std::string();
  });

  // An unchanged integer is not applied again; bind (special) always is.
  CHECK(c.set({{"port", "6379"}}).ok());
  CHECK(calls.empty());
  CHECK(c.set({{"bind", "127.0.0.1"}, {"port", "7000"}, {"timeout", "5"}}).ok());
  CHECK(calls == std::vector<std::string>{"bind:7000", "port:7000"});
  CHECK(c.values().port == 7000);
  CHECK(c.set({{"port", "6379"}}).ok());

  calls.clear();
  port_fails = true;
  const Status st = c.set({{"timeout", "30"}, {"bind", "127.0.0.2"}, {"port", "7001"}});
  CHECK(st.error == "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. "
                    "Check server logs.");
  // Both applied with the new values, then both again with the old ones.
  CHECK(calls == std::vector<std::string>{"bind:7001", "port:7001", "bind:6379", "port:6379"});
  CHECK(c.values().port == 6379);
  CHECK(c.values().timeout == 5);
  CHECK(c.values().bind == std::vector<std::string>{"127.0.0.1"});

  // A file parameter (Redis's VOLATILE_CONFIG) is applied even when its
  // path is unchanged: the file may have been renewed.
  int reloads = 0;
  c.set_live_apply("tls-cert-file", [&](const Values&) {
    ++reloads;
    return std::string();
  });
  CHECK(c.set({{"tls-cert-file", "/a.crt"}}).ok());
  CHECK(c.set({{"tls-cert-file", "/a.crt"}}).ok());
  CHECK(reloads == 2);
  c.set_live_apply("tls-cert-file", nullptr);

  // Cleared: CONFIG SET only changes the value (no server listening).
  c.set_live_apply("port", nullptr);
  CHECK(c.set({{"port", "7002"}}).ok());
  CHECK(c.values().port == 7002);
}
