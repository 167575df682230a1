// libFuzzer harness: the command executor, in process (no sockets).
//
// Each input builds a server state as main does (make_server_state, with
// keyspace notifications on, 4 databases, strings up to 1 MB), connects
// three fake clients, and runs a sequence of operations decoded from the
// input, from the front:
//
//   op 0x00..0x1f   time: read 2 bytes v (little endian), then by op % 8:
//                   0 now += v ms; 1 += v s; 2 -= v % 1000 ms (the wall clock
//                   stepping back); 3 += v * 1e6 ms; 4 += 1; 5 += 0;
//                   6 += v ms and reap at most 1 + op / 8 keys; 7 += v ms
//                   and no reap. Then, but for 6 and 7, the expiry reap runs
//                   to the end, as the server's expiry cycle does.
//   op 0x20..0xff   a command from client op % 3: a name byte, a count byte
//                   (argc = count % 16), then argc argument bytes. A name
//                   byte below 0xc0 picks a row of the command table (with
//                   its subcommand, if any); an argument byte below 0xc0
//                   picks a token (kTokens: keys, numbers, option words, and
//                   times near now). A byte b >= 0xc0 is raw: the next
//                   b - 0xc0 bytes of input.
//
// After each operation the harness does what the server's loop does (serves
// blocked clients, closes clients that QUIT or were killed and connects a
// new one) and checks:
//   - each db's expiry index holds exactly its keys that have a TTL;
//   - a reap never removes a key before its deadline (a key is due once
//     now > deadline), and a full reap leaves no key past its deadline;
//   - a key expired lazily by a command (outside EXEC, whose commands may
//     set a past deadline and read the key back) had a deadline before now;
//   - every stream is consistent: its live entries in ID order, as many as
//     its length, none past its last ID; each group's pending entries owned
//     by a consumer that lists them, and no consumer listing one more;
//   - every reply is whole RESP (one or more complete values, no trailing
//     bytes), and so is every frame delivered to a client;
//   - after FLUSHALL, no key is left and the arena holds what it held when
//     the keyspace was first empty, give or take whole Lawn queue chunks,
//     which the expiry indexes keep (keys freed, none leaked);
//   - when the state is destroyed, the arena is back to its size before.
// Scripts get 100 ms (busy-reply-threshold, kept there); past it the next
// commands of the input run from the other clients while the script is
// busy (up to 8), then SCRIPT KILL and FUNCTION KILL, and a script that
// still runs is stopped with an error (Harness::serve_while_busy).
// Any failure aborts with a message; the sanitizers catch the rest.
// With COMMAND_FUZZ_TRACE=1 in the environment each operation is printed to
// stderr as it runs (to read what a crashing input does).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdlib.h>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../unit/command_fixture.hpp"
#include "commands/server_factory.hpp"
#include "core/arena.hpp"
#include "core/ascii.hpp"
#include "durability/snapshots.hpp"
#include "engine/dispatch.hpp"
#include "engine/server_state.hpp"
#include "expiry/lawn_queue.hpp"
#include "types/stream.hpp"
#include "types/stream_group.hpp"

using namespace lawnkv;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "command_fuzz: %s\n", what.c_str());
  std::abort();
}

// Arguments the fuzzer picks by one byte. "@s+N" / "@ms+N" are replaced by
// the current time in seconds / ms plus N, for EXPIREAT, PXAT, EXAT.
const char* const kTokens[] = {
    // keys (a small pool, so commands meet each other's keys)
    "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "q", "{a}x", "",
    // numbers
    "0", "1", "2", "3", "5", "10", "16", "100", "1000", "5000", "60000", "-1", "-2", "-100", "1.5", "-0.5",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "4294967296", "2147483647",
    "0x10", " 1", "1e3", "inf", "-inf", "nan", "+5", "00", "3.0",
    // times near now
    "@s+0", "@s+1", "@s+10", "@s-1", "@s-100", "@ms+0", "@ms+1", "@ms+10", "@ms+1000", "@ms-1", "@ms-1000",
    // SET / GETEX / EXPIRE options
    "EX", "PX", "EXAT", "PXAT", "NX", "XX", "GT", "LT", "KEEPTTL", "GET", "PERSIST", "ex", "px",
    // SCAN, CLIENT, COPY, MEMORY, INFO
    "COUNT", "MATCH", "TYPE", "string", "dehy-type", "*", "k*", "?", "[a-z]*", "REPLACE", "DB", "SAMPLES",
    "ID", "KILL", "USER", "ADDR", "LADDR", "SKIPME", "yes", "no", "normal", "pubsub", "master", "replica",
    "SETNAME", "GETNAME", "LIST", "INFO", "NO-EVICT", "on", "off", "AUTH", "default", "2", "3",
    "all", "everything", "keyspace", "memory", "stats", "clients", "server", "expiry", "commandstats",
    // CONFIG
    "notify-keyspace-events", "KEA", "Ex", "AKE", "maxmemory", "hz", "maxmemory-policy", "allkeys-lru",
    "expiry-budget-us", "timeout", "client-output-buffer-limit", "proto-max-bulk-len", "maxclients",
    // channels and patterns
    "__keyevent@0__:expired", "__keyspace@0__:k0", "__key*__:*", "ch", "ch*",
    // dehydrator ids and elements
    "id1", "id2", "el", "x",
    // values of 70, 44 and 45 bytes (Redis's embstr limit is 44); SETRANGE
    // past 255 bytes puts a value on the heap (store/entry.hpp)
    "0123456789012345678901234567890123456789012345678901234567890123456789",
    "01234567890123456789012345678901234567890123",
    "012345678901234567890123456789012345678901234",
    // SETRANGE offsets around the inline limit
    "255", "256", "300",
    // streams: IDs, special IDs, options, groups and consumers
    "1-1", "1-2", "2-0", "5-*", "0-1", "$", ">", "-", "+", "(1-1", "*", "18446744073709551615-18446744073709551615",
    "MAXLEN", "MINID", "~", "=", "LIMIT", "NOMKSTREAM", "STREAMS", "GROUP", "NOACK", "MKSTREAM", "ENTRIESREAD",
    "IDLE", "TIME", "RETRYCOUNT", "FORCE", "JUSTID", "LASTID", "FULL", "ENTRIESADDED", "MAXDELETEDID", "BLOCK",
    "g", "g2", "c1", "c2", "s", "stream",
    // Scripts (EVAL, EVAL_RO, SCRIPT LOAD), a function library (FUNCTION
    // LOAD) and its functions (FCALL): redis.call and pcall, errors, the
    // conversions, frozen time, commands refused or run without blocking.
    "return redis.call('set', KEYS[1], ARGV[1])", "return redis.call('get', KEYS[1])",
    "return redis.pcall('incr', KEYS[1])",
    "redis.call('expire', KEYS[1], ARGV[1]) return redis.call('pttl', KEYS[1])",
    "redis.call('set', KEYS[1], 'v', 'px', 1) return redis.call('get', KEYS[1])",
    "redis.call('del', KEYS[1]) return redis.call('exists', KEYS[1])",
    "return {1, 'two', {3, false}, {err = 'x'}, {ok = 'y'}, 2.5}", "return redis.error_reply('E boom')",
    "return redis.call('nosuch')", "error('boom')", "redis.setresp(3) return redis.call('hgetall', KEYS[1])",
    "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'v')",
    "local t = {} for i = 1, 50 do t[i] = redis.call('rpush', KEYS[1], i) end return t",
    "return redis.call('blpop', KEYS[1], 0)", "return redis.call('flushall')",
    "redis.set_repl(redis.REPL_NONE) return redis.call('incr', KEYS[1])", "return cjson.decode(ARGV[1])",
    "return cmsgpack.unpack(ARGV[1])", "return struct.unpack('>I2', ARGV[1])",
    "#!lua name=fz\nredis.register_function('fz', function(k, a) return redis.call('incr', k[1]) end)", "fz",
    // GEO: coordinates (inside, at and past the limits), units and options
    "13.361389", "38.115556", "180", "-180", "85.05112878", "-85.05112879", "m", "km", "mi", "FROMLONLAT",
    "FROMMEMBER", "BYRADIUS", "BYBOX", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC", "DESC", "ANY", "STORE",
    "STOREDIST", "CH",
    // PFDEBUG's subcommands and the HyperLogLog magic (a value starting
    // "HYLL" but not one: a WRONGTYPE of its own).
    "GETREG", "DECODE", "ENCODING", "TODENSE", "HYLL", "hll-sparse-max-bytes",
    // ACL SETUSER rules (selectors, patterns, categories, passwords) and
    // users, and the Lua calls that crashed Debian's libraries.
    "SETUSER", "GETUSER", "DELUSER", "DRYRUN", "u1", ">pw", "<pw", "nopass", "resetpass", "~k*", "%R~k*", "%W~*",
    "%RW~q", "allkeys", "resetkeys", "&ch*", "allchannels", "resetchannels", "+@all", "-@all", "+@read",
    "-@dangerous", "+get", "-set", "+config|get", "allcommands", "nocommands", "reset", "(~k* +get)", "(", ")",
    "clearselectors", "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
    "return unpack({}, 0, 2147483647)", "return bit.tohex(65535, -2147483648)",
    // New tokens go here, at the end: an input picks a token by its index,
    // so inserting one earlier would change what the regression inputs of
    // tests/fuzz/corpus/command/ replay. Likewise the command table: an
    // input names a command by its index among the rows, so a new command
    // shifts those after it (so the inputs that caught a bug are written
    // with raw names and arguments: make_seeds.py, seed-regress-*).
};
constexpr size_t kTokenCount = sizeof(kTokens) / sizeof(kTokens[0]);

constexpr int64_t kBusyReplyThresholdMs = 100;

constexpr uint64_t kQueueChunkBytes = expiry::LawnQueues::kChunk * sizeof(expiry::LawnQueue);

// Every command and subcommand name, as argv prefixes. PFSELFTEST is left
// out: ten million additions, seconds under the sanitizers, for a check of
// its own (the compat files and unit tests run it; a raw name still can).
std::vector<std::vector<std::string>> command_names(const CommandTable& table) {
  std::vector<std::vector<std::string>> out;
  for (const auto& [name, spec] : table.all()) {
    if (name == "pfselftest") continue;
    out.push_back({name});
    for (const CommandSpec& sub : spec.subcommands) {
      const size_t bar = sub.name.find('|');
      out.push_back({name, bar == std::string::npos ? sub.name : sub.name.substr(bar + 1)});
    }
  }
  return out;
}

// Reads the input from the front.
struct Reader {
  const uint8_t* p;
  size_t n;
  bool empty() const { return n == 0; }
  uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::string bytes(size_t len) {
    len = std::min(len, n);
    std::string s(reinterpret_cast<const char*>(p), len);
    p += len;
    n -= len;
    return s;
  }
};

// The length of the complete RESP value at the front of s, or 0 if it is
// not one (truncated, malformed). depth guards against deep nesting.
size_t resp_value(std::string_view s, int depth = 0) {
  if (s.empty() || depth > 64) return 0;
  const size_t eol = s.find("\r\n");
  if (eol == std::string_view::npos) return 0;
  const std::string_view head = s.substr(1, eol - 1);
  const size_t after = eol + 2;
  // A length or count: -1 or more, below 2^40. An integer (':'): any
  // number of digits with an optional '-'.
  auto number = [&](int64_t* out) {
    if (head.empty()) return false;
    int64_t v = 0;
    size_t i = head[0] == '-' ? 1 : 0;
    if (i == head.size()) return false;
    for (; i < head.size(); ++i) {
      if (head[i] < '0' || head[i] > '9') return false;
      if (v < (int64_t{1} << 40)) v = v * 10 + (head[i] - '0');
    }
    *out = head[0] == '-' ? -v : v;
    return true;
  };
  if (head.find('\n') != std::string_view::npos || head.find('\r') != std::string_view::npos) return 0;
  switch (s[0]) {
    case '+': case '-': case ',': case '(': case '#':
      return after;
    case ':': {
      int64_t v;
      return number(&v) ? after : 0;
    }
    case '_':
      return head.empty() ? after : 0;
    case '$': case '!': case '=': {
      int64_t len;
      if (!number(&len) || len < -1 || len >= (int64_t{1} << 40)) return 0;
      if (len == -1) return s[0] == '$' ? after : 0;
      const size_t end = after + static_cast<size_t>(len);
      if (s.size() < end + 2 || s.substr(end, 2) != "\r\n") return 0;
      return end + 2;
    }
    case '*': case '~': case '>': case '%': case '|': {
      int64_t count;
      if (!number(&count) || count < -1 || count >= (int64_t{1} << 40)) return 0;
      if (count == -1) return s[0] == '*' ? after : 0;
      if (s[0] == '%' || s[0] == '|') count *= 2;
      size_t pos = after;
      for (int64_t i = 0; i < count; ++i) {
        const size_t len = resp_value(s.substr(pos), depth + 1);
        if (len == 0) return 0;
        pos += len;
      }
      return pos;
    }
    default:
      return 0;
  }
}

// s is zero or more complete RESP values and nothing else; returns how many.
size_t whole_values(std::string_view s, const char* what, const std::vector<std::string>& argv) {
  size_t count = 0;
  while (!s.empty()) {
    const size_t len = resp_value(s);
    if (len == 0) {
      std::string cmd;
      for (const auto& a : argv) cmd += "'" + a + "' ";
      fail(std::string(what) + " is not whole RESP, after " + cmd + ": " + std::string(s.substr(0, 200)));
    }
    s.remove_prefix(len);
    ++count;
  }
  return count;
}

// A fake client whose close_soon (CLIENT KILL) is seen by the harness.
struct Client : test::FakeSession {
  void close_soon() override { close_after_reply = true; }
};

// A temporary directory for the snapshots of this process's runs, made once
// and removed at exit.
const std::string& snapshot_dir() {
  struct Dir {
    std::string path;
    Dir() {
      char tmpl[] = "/tmp/command-fuzz-rdb-XXXXXX";
      if (!::mkdtemp(tmpl)) fail("cannot make a directory for snapshots");
      path = tmpl;
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

// Key deadlines, by (db, key), as they were before the operation.
using Deadlines = std::map<std::pair<int, std::string>, int64_t>;

class Harness : public store::ExpiryListener, public BusyLoop {
 public:
  Harness() {
    config::Config cfg;
    if (!cfg.set({{"notify-keyspace-events", "KEA"}}).ok()) fail("cannot enable notifications");
    // Four databases are enough for SELECT, MOVE and SWAPDB, and each costs
    // an expiry index to build and tear down per input.
    cfg.mutable_values().databases = 4;
    // SAVE, BGSAVE and SHUTDOWN write their snapshot into a directory of the
    // run's own, and no save rule starts one by itself.
    cfg.mutable_values().save = "";
    cfg.mutable_values().dir = snapshot_dir();
    // Strings up to 1 MB (Redis's smallest proto-max-bulk-len) rather than
    // 512 MB: SETRANGE k 500000000 x would spend each run in page faults.
    cfg.mutable_values().proto_max_bulk_len = 1024 * 1024;
    // A script past this turns busy (serve_while_busy); after_operation
    // keeps it there.
    cfg.mutable_values().busy_reply_threshold = kBusyReplyThresholdMs;
    arena_before_ = arena::bytes_in_use();
    state_ = make_server_state(std::move(cfg));
    state_->busy_loop = this;
    state_->data.keyspace.set_listener(this);
    // RANDOMKEY and the stale-key sampling draw from this: an input must
    // replay the same way to reproduce what it found.
    state_->data.keyspace.rng().seed(1);
    names_ = command_names(state_->commands);
    for (auto& c : clients_) connect(c);
    arena_empty_ = arena::bytes_in_use();
  }

  ~Harness() override {
    // A BGSAVE child still running is stopped and reaped (nothing saved).
    state_->snapshots().on_shutdown(*state_, false, true);
    for (auto& c : clients_) disconnect(*c);
    state_.reset();
    if (arena::bytes_in_use() != arena_before_)
      fail("the arena holds " + std::to_string(arena::bytes_in_use()) + " bytes after the server state is gone, " +
           std::to_string(arena_before_) + " before it was made");
  }

  void run(Reader in) {
    trace_ = std::getenv("COMMAND_FUZZ_TRACE") != nullptr;
    input_ = &in;
    for (int ops = 0; ops < 512 && !in.empty() && !state_->shutdown_requested; ++ops) {
      const uint8_t op = in.byte();
      if (op < 0x20) {
        time_step(op, in);
      } else {
        command(*clients_[op % 3], in);
      }
      after_operation();
    }
    input_ = nullptr;
  }

  // BusyLoop: a script past busy-reply-threshold. The next commands of the
  // input come from the other clients meanwhile (a time step is skipped:
  // no timer runs while busy), up to kBusyCommands; then SCRIPT KILL and
  // FUNCTION KILL, and a script that still runs (it wrote, or SHUTDOWN
  // NOSAVE came) is given up: without a loop the runtime stops it.
  void serve_while_busy() override {
    if (running_ == nullptr) fail("a script is busy outside a command");
    Client* other = clients_[0].get() == running_ ? clients_[1].get() : clients_[0].get();
    if (busy_commands_ < kBusyCommands && input_ != nullptr && !input_->empty() && !state_->shutdown_requested) {
      ++busy_commands_;
      const uint8_t op = input_->byte();
      if (op < 0x20) {
        input_->bytes(2);
        return;
      }
      Client* c = clients_[op % 3].get();
      command(c == running_ ? *other : *c, *input_);
      return;
    }
    if (!killing_) {
      killing_ = true;
      for (const char* what : {"script", "function"}) {
        std::vector<std::string_view> argv{what, "kill"};
        std::string out;
        resp::Writer w(out, other->protocol);
        dispatch(*state_, *other, w, argv, now_);
        whole_values(out, "a KILL's reply", {what, "kill"});
      }
      return;
    }
    state_->busy_loop = nullptr;
  }

  // store::ExpiryListener: every key that dies of old age, lazily or reaped.
  void key_expired(int db, std::string_view key) override {
    if (checking_expiry_) {
      auto it = deadlines_.find({db, std::string(key)});
      if (it == deadlines_.end()) fail("key '" + std::string(key) + "' expired but had no deadline");
      if (!(now_ > it->second))
        fail("key '" + std::string(key) + "' expired early: deadline " + std::to_string(it->second) + ", now " +
             std::to_string(now_));
    }
    state_->data.notifier.key_expired(db, key);
  }

 private:
  void connect(std::unique_ptr<Client>& c) {
    c = std::make_unique<Client>();
    c->id = state_->clients.next_id();
    c->authenticated = true;
    c->created_ms = now_;
    state_->clients.add(*c);
  }

  // What Connection::close does.
  void disconnect(Client& c) {
    state_->data.keyspace.watches().unwatch_all(c.watcher);
    state_->data.hub.unsubscribe_all(c);
    if (c.blocked) state_->data.blocking.forget(c);
    state_->clients.remove(c);
  }

  void time_step(uint8_t op, Reader& in) {
    const int64_t lo = in.byte();  // two statements: the order of reads is fixed
    const int64_t v = lo | (int64_t{in.byte()} << 8);
    size_t budget = SIZE_MAX;
    switch (op % 8) {
      case 0: now_ += v; break;
      case 1: now_ += v * 1000; break;
      case 2: now_ -= v % 1000; break;
      case 3: now_ += v * 1'000'000; break;
      case 4: now_ += 1; break;
      case 5: break;
      case 6: now_ += v; budget = 1 + op / 8; break;
      case 7: now_ += v; break;
    }
    if (trace_) std::fprintf(stderr, "now %lld%s\n", static_cast<long long>(now_ - test::kT0),
                             op % 8 == 7 ? " (no reap)" : budget != SIZE_MAX ? " (partial reap)" : "");
    if (op % 8 == 7) return;
    snapshot_deadlines();
    checking_expiry_ = true;
    state_->data.keyspace.reap(now_, budget);
    checking_expiry_ = false;
    if (budget != SIZE_MAX) return;
    auto& ks = state_->data.keyspace;
    for (int i = 0; i < ks.databases(); ++i) {
      ks.db(i).dict().for_each([&](const store::Entry& e) {
        if (e.expired_at(now_))
          fail("key '" + std::string(e.key()) + "' is past its deadline " + std::to_string(e.deadline()) +
               " after a full reap at " + std::to_string(now_));
      });
    }
  }

  std::string token(uint8_t b, Reader& in) {
    if (b >= 0xc0) return in.bytes(b - 0xc0);
    std::string t = kTokens[b % kTokenCount];
    if (t.rfind("@s", 0) == 0) return std::to_string(now_ / 1000 + std::stoll(t.substr(2)));
    if (t.rfind("@ms", 0) == 0) return std::to_string(now_ + std::stoll(t.substr(3)));
    return t;
  }

  void command(Client& c, Reader& in) {
    std::vector<std::string> argv;
    const uint8_t name = in.byte();
    if (name >= 0xc0) {
      argv.push_back(in.bytes(name - 0xc0));
    } else {
      argv = names_[name % names_.size()];
    }
    const int argc = in.byte() % 16;
    for (int i = 0; i < argc; ++i) argv.push_back(token(in.byte(), in));
    if (c.blocked) return;  // the server reads nothing more from a blocked client
    if (trace_) {
      std::string line = "client id " + std::to_string(c.id) + ":";
      for (const auto& a : argv) line += " '" + a + "'";
      std::fprintf(stderr, "%s\n", line.c_str());
    }

    const bool exec = to_lower(argv[0]) == "exec";
    // MONITOR from a client that monitors already replies nothing (as Redis).
    const bool monitor_again = to_lower(argv[0]) == "monitor" && state_->clients.monitoring(c);
    const bool flushall = to_lower(argv[0]) == "flushall" && !c.in_multi;
    snapshot_deadlines();
    checking_expiry_ = !exec;
    std::vector<std::string_view> views(argv.begin(), argv.end());
    std::string out;
    resp::Writer w(out, c.protocol);
    // A script that turns busy serves the others (serve_while_busy): their
    // commands nest in this one.
    Client* const outer = running_;
    if (outer == nullptr) {
      running_ = &c;
      busy_commands_ = 0;
      killing_ = false;
    }
    dispatch(*state_, c, w, views, now_);
    if (outer == nullptr) {
      running_ = nullptr;
      state_->busy_loop = this;
    }
    checking_expiry_ = false;

    const size_t replies = whole_values(out, "a reply", argv);
    if (state_->shutdown_requested) return;  // SHUTDOWN: no reply, the server stops
    if (replies == 0 && !c.blocked && !monitor_again) fail("no reply and not blocked, after " + argv[0]);
    if (flushall && out == "+OK\r\n") {
      if (state_->data.keyspace.total_keys() != 0) fail("keys left after FLUSHALL");
      // Each expiry index keeps the arena chunks of its Lawn queues (256
      // queues a chunk, never moved: expiry/lawn_queue.hpp), so the arena
      // may hold whole chunks more than at start; any other difference is
      // a block that FLUSHALL did not free.
      const uint64_t now_bytes = arena::bytes_in_use();
      if (now_bytes < arena_empty_ || (now_bytes - arena_empty_) % kQueueChunkBytes != 0)
        fail("the arena holds " + std::to_string(now_bytes) + " bytes after FLUSHALL, " +
             std::to_string(arena_empty_) + " with an empty keyspace at start (plus whole queue chunks of " +
             std::to_string(kQueueChunkBytes) + " bytes allowed)");
    }
  }

  void after_operation() {
    // The loop's prepare step: serve blocked clients. Then close the
    // clients that asked for it (QUIT, CLIENT KILL) and connect new ones.
    if (!state_->data.blocking.empty()) {
      snapshot_deadlines();
      checking_expiry_ = true;
      serve_blocked(*state_, now_);
      checking_expiry_ = false;
    }
    for (auto& c : clients_) {
      for (const std::string& frame : c->delivered)
        if (whole_values(frame, "a delivered frame", {}) != 1) fail("a delivered frame holds several values");
      c->delivered.clear();
      if (c->close_after_reply) {
        disconnect(*c);
        connect(c);
      }
    }
    check_expiry_index();
    // CONFIG SET busy-reply-threshold 0 would let a looping script run for
    // ever: undone.
    int64_t& busy_ms = state_->config.mutable_values().busy_reply_threshold;
    if (busy_ms <= 0 || busy_ms > kBusyReplyThresholdMs) busy_ms = kBusyReplyThresholdMs;
    check_streams();
  }

  void check_streams() {
    auto& ks = state_->data.keyspace;
    for (int i = 0; i < ks.databases(); ++i) {
      ks.db(i).dict().for_each([&](const store::Entry& e) {
        if (e.type() != store::Type::kStream) return;
        const auto& s = *static_cast<const types::Stream*>(e.obj());
        const std::string where = "stream '" + std::string(e.key()) + "': ";
        uint64_t live = 0;
        types::StreamId prev;
        s.range({}, types::StreamId::max(), false, [&](const types::StreamEntry& en) {
          if (live > 0 && !(en.id > prev)) fail(where + "entries out of order at " + en.id.str());
          if (en.id > s.last_id()) fail(where + "entry " + en.id.str() + " past the last ID " + s.last_id().str());
          prev = en.id;
          ++live;
          return true;
        });
        if (live != s.length())
          fail(where + std::to_string(live) + " live entries, length " + std::to_string(s.length()));
        for (const auto& [gname, g] : s.groups()) {
          size_t owned = 0;
          for (const auto& [cname, c] : g->consumers) {
            owned += c->pel.size();
            for (const types::StreamId id : c->pel) {
              const auto it = g->pel.find(id);
              if (it == g->pel.end() || it->second.consumer != c.get())
                fail(where + "group '" + gname + "': consumer '" + cname + "' lists " + id.str() +
                     ", pending elsewhere or not at all");
            }
          }
          for (const auto& [id, nack] : g->pel)
            if (!nack.consumer) fail(where + "group '" + gname + "': " + id.str() + " pending without a consumer");
          if (owned != g->pel.size())
            fail(where + "group '" + gname + "': " + std::to_string(g->pel.size()) + " pending, consumers list " +
                 std::to_string(owned));
        }
      });
    }
  }

  void snapshot_deadlines() {
    deadlines_.clear();
    auto& ks = state_->data.keyspace;
    for (int i = 0; i < ks.databases(); ++i) {
      ks.db(i).dict().for_each([&](const store::Entry& e) {
        if (e.has_ttl()) deadlines_[{i, std::string(e.key())}] = e.deadline();
      });
    }
  }

  void check_expiry_index() {
    auto& ks = state_->data.keyspace;
    for (int i = 0; i < ks.databases(); ++i) {
      size_t with_ttl = 0;
      ks.db(i).dict().for_each([&](const store::Entry& e) { with_ttl += e.has_ttl(); });
      if (with_ttl != ks.db(i).expires())
        fail("db " + std::to_string(i) + ": " + std::to_string(with_ttl) + " keys with a TTL, " +
             std::to_string(ks.db(i).expires()) + " in the expiry index");
    }
  }

  static constexpr int kBusyCommands = 8;

  std::unique_ptr<ServerState> state_;
  std::unique_ptr<Client> clients_[3];
  Reader* input_ = nullptr;     // the input being run (serve_while_busy reads on)
  Client* running_ = nullptr;   // whose command runs now (a busy script's caller)
  int busy_commands_ = 0;       // run while the current script was busy
  bool killing_ = false;        // SCRIPT KILL and FUNCTION KILL sent
  std::vector<std::vector<std::string>> names_;
  int64_t now_ = test::kT0;
  Deadlines deadlines_;
  bool checking_expiry_ = false;
  bool trace_ = false;
  uint64_t arena_before_ = 0;
  uint64_t arena_empty_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Harness h;
  h.run(Reader{data, size});
  return 0;
}
