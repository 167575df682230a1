#include "random_commands.hpp"

#include <algorithm>

#include "../support/escape.hpp"
#include "core/sha1.hpp"

namespace lawnkv::test {

namespace {

constexpr int64_t kGridAheadSeconds = 50'000;

const std::vector<std::string> kValues{
    "",    "0",     "1",        "-1",  "10",   "01",          "+1",
    " 1",  "1.5",   "-2.25",    "abc", "3e2",  "\x00\xff",    "9223372036854775807",
    "-9223372036854775808",     "9223372036854775806",        "hello world",
    "0.1", "1e308", "\r\n",     "42",  "-0",   "12345678901234567890"};

// Bytes that error texts quote (src/core/error_format.hpp): CR and LF at
// the end and inside, NUL at the start, middle and end, and an argument
// longer than the 128 bytes some texts keep.
const std::vector<std::string> kHostile{
    "x\n", "\r\n", "x\r\ny", "\nx", std::string("a\0b", 3), std::string("\0e", 2),
    std::string("nx\0", 3), std::string("x\r\n\0y", 5), std::string(130, 'z') + "\r\n" + std::string(10, 'z')};

RandomStep make(std::vector<std::string> argv, Compare compare = Compare::kExact) {
  RandomStep out;
  out.step.argv = std::move(argv);
  out.step.compare = compare;
  for (const auto& arg : out.step.argv) {
    if (!out.step.source.empty()) out.step.source += ' ';
    bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return c > 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\';
    });
    out.step.source += plain ? arg : escape_bytes(arg);
  }
  return out;
}

RandomStep time_query(std::string name, std::string key) {
  RandomStep out = make({std::move(name), std::move(key)});
  out.time_near = true;
  return out;
}

}  // namespace

RandomCommands::RandomCommands(uint64_t seed, int64_t base_unix_s)
    : rng_(seed), grid_base_s_(base_unix_s + kGridAheadSeconds) {
  for (int i = 0; i < 14; ++i) keys_.push_back("k" + std::to_string(i));
  for (int i = 0; i < 6; ++i) set_keys_.push_back("s" + std::to_string(i));
  for (int i = 0; i < 6; ++i) hash_keys_.push_back("h" + std::to_string(i));
  keys_.insert(keys_.end(), {"", std::string("\x00", 1), "bin\xff\r\n", "sp ace", "{tag}x",
                             std::string("n\x00ul", 4)});
}

std::string RandomCommands::key() { return pick(keys_); }

std::string RandomCommands::value() {
  if (chance(20)) return std::to_string(static_cast<int64_t>(below(2001)) - 1000);
  return pick(kValues);
}

std::string RandomCommands::relative_seconds() {
  if (chance(8)) return pick(std::vector<std::string>{"0", "-5", "abc", "1.5", "9223372036854775807"});
  return pick(std::vector<std::string>{"100", "200", "500", "1000", "5000"});
}

std::string RandomCommands::relative_millis() {
  if (chance(8)) return pick(std::vector<std::string>{"0", "-5", "x", "9223372036854775807"});
  return pick(std::vector<std::string>{"100000", "200500", "500000", "1000000"});
}

std::string RandomCommands::absolute_seconds() {
  if (chance(10)) return pick(std::vector<std::string>{"1", "0", "-1", "x"});
  return std::to_string(grid_base_s_ + 1000 * static_cast<int64_t>(below(5)));
}

std::string RandomCommands::absolute_millis() {
  if (chance(10)) return pick(std::vector<std::string>{"1", "0", "x"});
  return std::to_string((grid_base_s_ + 1000 * static_cast<int64_t>(below(5))) * 1000 +
                        static_cast<int64_t>(below(3)) * 400);
}

RandomStep RandomCommands::set_command() {
  std::vector<std::vector<std::string>> options;
  switch (below(8)) {
    case 0: options.push_back({"EX", relative_seconds()}); break;
    case 1: options.push_back({"PX", relative_millis()}); break;
    case 2: options.push_back({"EXAT", absolute_seconds()}); break;
    case 3: options.push_back({"PXAT", absolute_millis()}); break;
    case 4: options.push_back({"KEEPTTL"}); break;
    default: break;
  }
  if (chance(5)) options.push_back({"EX", "100"});  // often a second expiry: syntax error
  if (chance(25)) options.push_back({pick(std::vector<std::string>{"NX", "XX", "nx", "xx"})});
  if (chance(3)) options.push_back({"NX"});
  if (chance(20)) options.push_back({"GET"});
  if (chance(2)) options.push_back({"BOGUS"});
  std::shuffle(options.begin(), options.end(), rng_);
  std::vector<std::string> argv{"SET", key(), value()};
  for (const auto& option : options) argv.insert(argv.end(), option.begin(), option.end());
  return make(argv);
}

RandomStep RandomCommands::getex_command() {
  std::vector<std::string> argv{"GETEX", key()};
  switch (below(7)) {
    case 0: argv.insert(argv.end(), {"EX", relative_seconds()}); break;
    case 1: argv.insert(argv.end(), {"PX", relative_millis()}); break;
    case 2: argv.insert(argv.end(), {"EXAT", absolute_seconds()}); break;
    case 3: argv.insert(argv.end(), {"PXAT", absolute_millis()}); break;
    case 4: argv.push_back("PERSIST"); break;
    default: break;
  }
  if (chance(4)) argv.push_back("PERSIST");
  return make(argv);
}

RandomStep RandomCommands::expire_command() {
  const std::vector<std::string> kAnyFlag{"NX", "XX", "GT", "LT", "gt", "lt"};
  switch (below(4)) {
    case 0: {
      std::vector<std::string> argv{"EXPIRE", key(), relative_seconds()};
      if (chance(30)) argv.push_back(pick(std::vector<std::string>{"NX", "XX", "xx"}));
      return make(argv);
    }
    case 1: {
      std::vector<std::string> argv{"PEXPIRE", key(), relative_millis()};
      if (chance(30)) argv.push_back(pick(std::vector<std::string>{"NX", "XX"}));
      return make(argv);
    }
    case 2: {
      std::vector<std::string> argv{"EXPIREAT", key(), absolute_seconds()};
      if (chance(40)) argv.push_back(pick(kAnyFlag));
      if (chance(5)) argv.push_back(pick(kAnyFlag));
      return make(argv);
    }
    default: {
      std::vector<std::string> argv{"PEXPIREAT", key(), absolute_millis()};
      if (chance(40)) argv.push_back(pick(kAnyFlag));
      return make(argv);
    }
  }
}

RandomStep RandomCommands::keyspace_command() {
  switch (below(14)) {
    case 0: return make({"DEL", key(), key()});
    case 1: return make({"UNLINK", key()});
    case 2: return make({"EXISTS", key(), key(), key()});
    case 3: return make({"TYPE", key()});
    case 4:
      return make({"KEYS", pick(std::vector<std::string>{"*", "k*", "k1?", "[a-k]*", "*x", "*\\**"})},
                  Compare::kSorted);
    case 5: return make({"RANDOMKEY"}, Compare::kType);
    case 6: return make({chance(50) ? "RENAME" : "RENAMENX", key(), key()});
    case 7: {
      std::vector<std::string> argv{"COPY", key(), key()};
      if (chance(40)) argv.insert(argv.end(), {"DB", std::to_string(below(3))});
      if (chance(40)) argv.push_back("REPLACE");
      return make(argv);
    }
    case 8: return make({"MOVE", key(), std::to_string(below(3))});
    case 9: return make({"TOUCH", key(), key()});
    case 10: return make({"EXISTS", key()});
    case 11: return make({"SELECT", std::to_string(below(3))});
    case 12: return make({"SWAPDB", std::to_string(below(3)), std::to_string(below(3))});
    default: return make({"PERSIST", key()});
  }
}

RandomStep RandomCommands::bits_command() {
  // Offsets stay small (no value grows past a few hundred bytes); now and
  // then one is invalid or past proto-max-bulk-len.
  auto offset = [&](uint64_t below_bits) {
    if (chance(4)) return pick(std::vector<std::string>{"-1", "x", "4294967296", "#1", ""});
    return std::to_string(below(below_bits));
  };
  auto index = [&] { return std::to_string(static_cast<int64_t>(below(40)) - 20); };
  auto unit = [&] { return pick(std::vector<std::string>{"BYTE", "BIT", "bit", "BITS"}); };
  auto field_type = [&] {
    if (chance(5)) return pick(std::vector<std::string>{"u64", "i65", "u0", "x8", "U8"});
    return std::string(chance(50) ? "i" : "u") + std::to_string(1 + below(63));
  };
  switch (below(11)) {
    case 9:
    case 10: return hyperloglog_command();
    case 7: {
      // Values with runs of ones and zeros, where searches and counts have edges.
      static const std::vector<std::string> kBitValues{
          "\xff", "\xff\xff\xff", std::string("\x00\x00\xff", 3), "\xf0\x0f", std::string("\xff\x00", 2),
          "\x7f\xfe", std::string(20, '\xff') + "\x7f", std::string(17, '\0') + "\x01"};
      return make({"SET", key(), pick(kBitValues)});
    }
    case 0: return make({"SETBIT", key(), offset(300), chance(95) ? std::to_string(below(2)) : "2"});
    case 1: return make({"GETBIT", key(), offset(300)});
    case 2: {
      std::vector<std::string> argv{"BITCOUNT", key()};
      if (chance(80)) argv.insert(argv.end(), {index(), index()});
      if (chance(60)) argv.push_back(unit());
      return make(argv);
    }
    case 3: {
      std::vector<std::string> argv{"BITPOS", key(), chance(95) ? std::to_string(below(2)) : "2"};
      const uint64_t extra = below(4);
      if (extra >= 1) argv.push_back(index());
      if (extra >= 2) argv.push_back(index());
      if (extra >= 3) argv.push_back(unit());
      return make(argv);
    }
    case 4: {
      const std::string op = pick(std::vector<std::string>{"AND", "OR", "XOR", "NOT", "and", "NAND"});
      std::vector<std::string> argv{"BITOP", op, key(), key()};
      if (op != "NOT" || chance(5)) argv.push_back(key());
      return make(argv);
    }
    case 5:
    case 6: {
      std::vector<std::string> argv{chance(80) ? "BITFIELD" : "BITFIELD_RO", key()};
      for (uint64_t n = 1 + below(3); n > 0; --n) {
        if (chance(25)) argv.insert(argv.end(), {"OVERFLOW", pick(std::vector<std::string>{"WRAP", "SAT", "FAIL", "BAD"})});
        const std::string t = field_type();
        const std::string at = chance(20) ? "#" + std::to_string(below(8)) : offset(200);
        switch (below(3)) {
          case 0: argv.insert(argv.end(), {"GET", t, at}); break;
          case 1: argv.insert(argv.end(), {"SET", t, at, value()}); break;
          default: argv.insert(argv.end(), {"INCRBY", t, at, value()}); break;
        }
      }
      return make(argv);
    }
    default: {
      std::vector<std::string> argv{"LCS", key(), key()};
      switch (below(5)) {
        case 0: argv.push_back("LEN"); break;
        case 1: argv.push_back("IDX"); break;
        case 2: argv.insert(argv.end(), {"IDX", "MINMATCHLEN", std::to_string(below(4)), "WITHMATCHLEN"}); break;
        case 3: argv.insert(argv.end(), {"LEN", "IDX"}); break;
        default: break;
      }
      return make(argv);
    }
  }
}

RandomStep RandomCommands::hyperloglog_command() {
  switch (below(6)) {
    case 0:
    case 1: {
      std::vector<std::string> argv{"PFADD", key()};
      for (uint64_t n = below(4); n > 0; --n) argv.push_back(value());
      return make(argv);
    }
    case 2: {
      std::vector<std::string> argv{"PFCOUNT", key()};
      if (chance(40)) argv.push_back(key());
      return make(argv);
    }
    case 3: return make({"PFMERGE", key(), key(), key()});
    case 4: {
      // A HyperLogLog's bytes with its cache stale and opcodes that may not
      // add up: XZERO runs of random lengths.
      std::string v("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80", 16);
      for (uint64_t n = 1 + below(3); n > 0; --n) {
        const uint64_t run = chance(50) ? 16383 : below(16384);
        v.push_back(static_cast<char>(0x40 | (run >> 8)));
        v.push_back(static_cast<char>(run & 0xff));
      }
      return make({"SET", key(), v});
    }
    default:
      return make({"PFDEBUG", pick(std::vector<std::string>{"ENCODING", "DECODE", "TODENSE", "encoding", "BAD"}), key()});
  }
}

std::string RandomCommands::set_key() { return chance(75) ? pick(set_keys_) : key(); }

RandomStep RandomCommands::sets_command() {
  auto keys = [&](size_t n) {
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) out.push_back(set_key());
    return out;
  };
  auto key = [&] { return set_key(); };
  auto with = [](std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  switch (below(16)) {
    case 0:
    case 1: return make(with({"SADD", key()}, {value(), value(), value()}));
    case 2: return make({"SREM", key(), value(), value()});
    case 3: return make({"SCARD", key()});
    case 4: return make({"SISMEMBER", key(), value()});
    case 5: return make({"SMISMEMBER", key(), value(), value()});
    case 6: return make({"SMEMBERS", key()}, Compare::kSorted);
    case 7: return make({"SMOVE", key(), key(), value()});
    case 8: return make(with({pick(std::vector<std::string>{"SINTER", "SUNION", "SDIFF"})}, keys(1 + below(3))),
                        Compare::kSorted);
    case 9:
      return make(with({pick(std::vector<std::string>{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}), key()},
                       keys(1 + below(3))));
    case 10: {
      const size_t n = 1 + below(3);
      std::vector<std::string> argv = with({"SINTERCARD", std::to_string(chance(10) ? n + 1 : n)}, keys(n));
      if (chance(40)) argv.insert(argv.end(), {"LIMIT", pick(std::vector<std::string>{"0", "1", "2", "-1"})});
      return make(argv);
    }
    case 11: {
      // Random members: only the shape can be compared.
      std::vector<std::string> argv{"SRANDMEMBER", key()};
      if (chance(70)) argv.push_back(pick(std::vector<std::string>{"-3", "0", "1", "2", "100"}));
      return make(argv, Compare::kType);
    }
    // SPOP takes the whole set (sets here stay far below 1000 members), so
    // both servers keep the same contents.
    case 12: return make({"SPOP", key(), "1000"}, Compare::kSorted);
    // Only keys no string command touches: Redis's string encodings are not
    // all lawnkv's (an integer INCRBYFLOAT stored is "embstr" in Redis).
    case 13: return make({"OBJECT", "ENCODING", pick(set_keys_)});
    case 14: return make({"SPOP", key(), pick(std::vector<std::string>{"0", "-1", "x"})});
    default: return make({"SADD", key(), std::to_string(below(20))});
  }
}

std::string RandomCommands::hash_key() { return chance(75) ? pick(hash_keys_) : key(); }

RandomStep RandomCommands::hashes_command() {
  // Few field names, so commands meet the fields others set; a long value
  // now and then converts a hash to a hash table (hash-max-listpack-value).
  auto field = [&] {
    if (chance(3)) return pick(kHostile);
    return chance(85) ? "f" + std::to_string(below(8)) : value();
  };
  auto hvalue = [&] { return chance(3) ? std::string(70, 'v') : value(); };
  const std::string k = hash_key();
  switch (below(17)) {
    case 0:
    case 1: {
      std::vector<std::string> argv{chance(85) ? "HSET" : "HMSET", k};
      for (uint64_t n = 1 + below(3); n > 0; --n) argv.insert(argv.end(), {field(), hvalue()});
      if (chance(3)) argv.push_back(field());  // an odd count: arity error
      return make(argv);
    }
    case 2: return make({"HSETNX", k, field(), hvalue()});
    case 3: return make({"HGET", k, field()});
    case 4: return make({"HMGET", k, field(), field(), field()});
    case 5: return make({"HDEL", k, field(), field()});
    case 6: return make({"HEXISTS", k, field()});
    case 7: return make({"HLEN", k});
    case 8: return make({"HSTRLEN", k, field()});
    // Listpack order is insertion order in both servers, hash-table order
    // is not: compared as sorted.
    case 9: return make({pick(std::vector<std::string>{"HKEYS", "HVALS", "HGETALL"}), k}, Compare::kSorted);
    case 10: return make({"HINCRBY", k, field(), value()});
    case 11: return make({"HINCRBYFLOAT", k, field(), value()});
    case 12: {
      std::vector<std::string> argv{"HRANDFIELD", k};
      if (chance(70)) argv.push_back(pick(std::vector<std::string>{"-3", "0", "1", "2", "100", "x"}));
      if (argv.size() == 3 && chance(40)) argv.push_back(chance(90) ? "WITHVALUES" : "WITHSCORES");
      return make(argv, Compare::kType);
    }
    case 13: return make({"OBJECT", "ENCODING", pick(hash_keys_)});
    case 14:
    case 15: return make({"HSET", k, pick(kHostile), pick(kHostile)});
    default: return make({"HDEL", k, field()});
  }
}

RandomStep RandomCommands::streams_command() {
  if (chance(30)) ++stream_top_;
  auto id = [&] { return std::to_string(stream_top_ - static_cast<int64_t>(below(4))) + "-" + std::to_string(below(2)); };
  const std::string k = key();
  switch (below(10)) {
    case 0:
    case 1:
    case 2: {
      std::vector<std::string> argv{"XADD", k};
      if (chance(20)) argv.insert(argv.end(), {"MAXLEN", std::to_string(below(5))});
      argv.insert(argv.end(), {id(), "f", value()});
      return make(argv);
    }
    case 3: return make({"XLEN", k});
    case 4: return make({chance(50) ? "XRANGE" : "XREVRANGE", k, chance(50) ? "-" : id(), chance(50) ? "+" : id()});
    case 5: return make({"XDEL", k, id()});
    case 6: return make({"XGROUP", "CREATE", k, "g", "0", "MKSTREAM"});
    case 7: return make({"XREADGROUP", "GROUP", "g", chance(50) ? "c1" : "c2", "COUNT", "2", "STREAMS", k, ">"});
    case 8: return make({"XACK", k, "g", id()});
    default: return make({"XPENDING", k, "g"});
  }
}

namespace {

// Script pieces. A call is written with %K (a key: KEYS[1], KEYS[2] or a
// literal key) and %V (a value: ARGV[1] or a literal), filled in by
// script_body. What two servers cannot agree on stays out: TIME, random
// commands and math.random, TTL values (a second apart: only "ttl > 0"),
// replies in hash order (SMEMBERS is sorted in Lua first), floats.
const std::vector<std::string> kScriptCalls{
    "'set', %K, %V", "'get', %K", "'incr', %K", "'incrby', %K, %V", "'del', %K", "'exists', %K, %K", "'append', %K, %V",
    "'strlen', %K", "'sadd', %K, %V", "'scard', %K", "'sismember', %K, %V", "'srem', %K, %V", "'hset', %K, 'f1', %V",
    "'hget', %K, 'f1'", "'hincrby', %K, 'f2', %V", "'hlen', %K", "'hdel', %K, 'f1'", "'type', %K", "'expire', %K, 500",
    "'persist', %K", "'mget', %K, %K", "'getrange', %K, 0, 3", "'setnx', %K, %V", "'getdel', %K", "'rename', %K, %K",
    "'setrange', %K, 2, %V", "'getset', %K, %V", "'decr', %K", "'copy', %K, %K", "'unlink', %K"};

// Whole statements and returns, some of them errors on purpose.
const std::vector<std::string> kScriptReturns{
    "return 3.99", "return -2.5", "return true", "return false", "return nil", "return 'str'",
    "return {1, 2.5, 'x', true, false, {7, 'y'}, {nested = 'no'}}", "return {1, nil, 3}",
    "return {err = 'MYERR custom'}", "return {ok = 'FINE'}", "return redis.error_reply('E an error')",
    "return redis.status_reply('DONE')", "error('boom')", "error({err = 'TABLEERR raised'})",
    "return redis.call('nosuchcmd', %K)", "return redis.call('get')", "return redis.call()",
    "return redis.call('get', {})", "return redis.call('subscribe', 'ch')",
    "return redis.call('eval', 'return 1', '0')",
    "return redis.sha1hex(%V)", "return tostring(redis.call('ttl', %K) > 0)", "return #KEYS + #ARGV",
    "local m = redis.call('smembers', %K) table.sort(m) return m",
    "local r = redis.pcall('incr', %K) if type(r) == 'table' and r.err then return 'caught: ' .. r.err end return r",
    "redis.setresp(3) return redis.call('hget', %K, 'f1')", "redis.setresp(3) return {redis.call('exists', %K)}",
    "return cjson.encode({v = redis.call('get', %K)})", "return redis.call('incrby', %K, 'x')"};

}  // namespace

std::string RandomCommands::script_body() {
  std::string body;
  if (chance(6)) body = "#!lua flags=no-writes\n";
  const uint64_t statements = below(3);
  for (uint64_t i = 0; i < statements; ++i)
    body += std::string(chance(20) ? "redis.pcall(" : "redis.call(") + pick(kScriptCalls) + ") ";
  switch (below(4)) {
    case 0:
      body += "return " + std::string(chance(25) ? "redis.pcall(" : "redis.call(") + pick(kScriptCalls) + ")";
      break;
    case 1:
      body += "local t = {} t[1] = redis.call(" + pick(kScriptCalls) + ") t[2] = redis.pcall(" + pick(kScriptCalls) +
              ") return t";
      break;
    default:
      body += pick(kScriptReturns);
      break;
  }
  // Each %K and %V in its own way.
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '%' && i + 1 < body.size() && body[i + 1] == 'K') {
      out += pick(std::vector<std::string>{"KEYS[1]", "KEYS[1]", "KEYS[2]", "'k3'"});
      ++i;
    } else if (body[i] == '%' && i + 1 < body.size() && body[i + 1] == 'V') {
      out += pick(std::vector<std::string>{"ARGV[1]", "ARGV[1]", "ARGV[2]", "'5'", "'abc'"});
      ++i;
    } else {
      out += body[i];
    }
  }
  return out;
}

RandomStep RandomCommands::script_command() {
  const std::string body = script_body();
  const uint64_t numkeys = below(3);
  std::vector<std::string> argv;
  switch (below(10)) {
    case 0: argv = {"EVAL_RO", body}; break;
    case 1: argv = {"EVALSHA", sha1_hex(body)}; break;  // cached when the same body ran before
    case 2: return make({"SCRIPT", "LOAD", body});
    case 3: return chance(20) ? make({"SCRIPT", "FLUSH"}) : make({"SCRIPT", "EXISTS", sha1_hex(body)});
    default: argv = {"EVAL", body}; break;
  }
  argv.push_back(std::to_string(numkeys));
  for (uint64_t i = 0; i < numkeys; ++i) argv.push_back(key());
  for (uint64_t n = below(3); n > 0; --n) argv.push_back(value());
  return make(argv);
}

RandomStep RandomCommands::command() {
  uint64_t roll = below(100);
  if (roll < 10) return set_command();
  if (roll < 16) return make({"GET", key()});
  if (roll < 20) return getex_command();
  if (roll < 30) return expire_command();
  if (roll < 38) {
    static const std::vector<std::string> kTimeQueries{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"};
    return time_query(pick(kTimeQueries), key());
  }
  if (roll < 52) return keyspace_command();
  if (roll < 60) return bits_command();
  if (roll < 68) return sets_command();
  if (roll < 76) return hashes_command();
  if (roll < 79) return streams_command();
  switch (below(20)) {
    case 18:
    case 19: return script_command();
    case 0: return make({"SETEX", key(), relative_seconds(), value()});
    case 1: return make({"PSETEX", key(), relative_millis(), value()});
    case 2: return make({"SETNX", key(), value()});
    case 3: return make({"GETSET", key(), value()});
    case 4: return make({"GETDEL", key()});
    case 5: return make({"MGET", key(), key(), key()});
    case 6: return make({chance(50) ? "MSET" : "MSETNX", key(), value(), key(), value()});
    case 7: return make({chance(50) ? "INCR" : "DECR", key()});
    case 8: return make({chance(50) ? "INCRBY" : "DECRBY", key(), value()});
    case 9: return make({"INCRBYFLOAT", key(), value()});
    case 10: return make({"APPEND", key(), value()});
    case 11: return make({"STRLEN", key()});
    case 12:
      return make({"GETRANGE", key(), std::to_string(static_cast<int64_t>(below(30)) - 10),
                   std::to_string(static_cast<int64_t>(below(40)) - 10)});
    case 13: {
      std::string offset = chance(5) ? pick(std::vector<std::string>{"-1", "536870912", "x"})
                                     : std::to_string(below(20));
      return make({"SETRANGE", key(), offset, value()});
    }
    case 14: return chance(40) ? make({"GET"}) : make({"GET", key()});  // an arity error
    case 15: return chance(40) ? make({"NOSUCHCMD", key()}) : make({"STRLEN", key()});
    case 16:
      switch (below(4)) {
        case 0: return make({"EXPIRE", key(), relative_seconds(), pick(kHostile)});
        case 1: return make({pick(kHostile), pick(kHostile), key()});
        case 2: return make({"CONFIG", pick(kHostile)});
        default: return make({"CLIENT", "KILL", "TYPE", pick(kHostile)});
      }
    default: return make({"ECHO", value()});
  }
}

std::vector<RandomStep> RandomCommands::multi_block() {
  std::vector<RandomStep> block{make({"MULTI"})};
  int count = 1 + static_cast<int>(below(6));
  for (int i = 0; i < count; ++i) {
    RandomStep step = command();
    if (step.step.argv[0] == "SELECT" && chance(50)) step = make({"GET", key()});
    block.push_back(step);
  }
  block.push_back(make({chance(90) ? "EXEC" : "DISCARD"}));
  return block;
}

std::vector<RandomStep> RandomCommands::next_op() {
  uint64_t roll = below(1000);
  if (roll < 60) return multi_block();
  if (roll < 75) return {make({"WATCH", key(), key()})};
  if (roll < 80) return {make({"UNWATCH"})};
  if (roll < 92) {
    std::vector<std::string> argv{"SCAN", "0"};
    if (chance(50)) argv.insert(argv.end(), {"MATCH", pick(std::vector<std::string>{"*", "k*", "*a*", "k1*"})});
    if (chance(50)) argv.insert(argv.end(), {"COUNT", std::to_string(1 + below(5))});
    if (chance(20)) argv.insert(argv.end(), {"TYPE", chance(80) ? "string" : "list"});
    return {make(argv, Compare::kScan)};
  }
  if (roll < 95) {
    // A whole SCAN iteration is compared: never inside MULTI.
    const bool hash = chance(50);
    std::vector<std::string> argv{hash ? "HSCAN" : "SSCAN", hash ? hash_key() : set_key(), "0"};
    if (chance(50)) argv.insert(argv.end(), {"MATCH", pick(std::vector<std::string>{"*", "1*", "*a*", "-*", "f1*"})});
    if (chance(50)) argv.insert(argv.end(), {"COUNT", chance(90) ? std::to_string(1 + below(5)) : "0"});
    return {make(argv, Compare::kScan)};
  }
  if (roll < 98) {
    // Redis keeps a key SET with a past EXAT/PXAT until a reader or its active
    // expiry (at a random moment) deletes it, and DBSIZE counts it meanwhile.
    // A whole SCAN deletes every such key first, so DBSIZE can be compared.
    return {make({"SCAN", "0", "COUNT", "3"}, Compare::kScan), make({"DBSIZE"})};
  }
  if (roll < 100) return {make({"HELLO", chance(50) ? "2" : "3"}, Compare::kHello)};
  if (roll < 103) return {make({chance(50) ? "FLUSHDB" : "FLUSHALL"})};
  if (roll < 160) {
    RandomStep step = command();
    step.client = 2;
    return {step};
  }
  return {command()};
}

std::vector<RandomStep> RandomCommands::final_state_checks() const {
  std::vector<RandomStep> checks;
  for (int db = 0; db < 3; ++db) {
    checks.push_back(make({"SELECT", std::to_string(db)}));
    checks.push_back(make({"KEYS", "*"}, Compare::kSorted));
    for (const auto& k : keys_) {
      checks.push_back(make({"GET", k}));
      checks.push_back(make({"SMEMBERS", k}, Compare::kSorted));
      checks.push_back(time_query("PEXPIRETIME", k));
      checks.push_back(make({"XRANGE", k, "-", "+"}));
      checks.push_back(make({"XPENDING", k, "g"}));
    }
    for (const auto& k : hash_keys_) {
      checks.push_back(make({"HGETALL", k}, Compare::kSorted));
      checks.push_back(make({"OBJECT", "ENCODING", k}));
    }
    for (const auto& k : set_keys_) {
      checks.push_back(make({"SMEMBERS", k}, Compare::kSorted));
      checks.push_back(make({"OBJECT", "ENCODING", k}));
      checks.push_back(time_query("PEXPIRETIME", k));
    }
  }
  return checks;
}

}  // namespace lawnkv::test
