// lawnkv as the primary of a real redis-server 7.0.15 replica
// (`--replicaof 127.0.0.1 <lawnkv port>`, with requirepass/masterauth):
// the handshake and full resynchronisation (the replica loads lawnkv's RDB
// of every type, in several dbs), then the stream (writes of every type,
// MULTI/EXEC, EVAL, SELECT, EXPIRE/PEXPIREAT, a key expiring on the primary
// whose DEL reaches the replica), a link killed by CLIENT KILL TYPE replica
// that continues by a partial resync (+CONTINUE), and WAIT. The datasets are
// compared key by key (type, deadline, value) whenever the replica's offset
// has caught up with the primary's.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "../support/info_field.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_calls.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "../support/temp_dir.hpp"

namespace lawnkv::test {

namespace {

using std::chrono::steady_clock;
constexpr auto kWait = std::chrono::seconds(10);

// Polls until the replica has processed every byte the primary sent.
void caught_up(RawClient& primary, RawClient& replica) {
  std::string want, got;
  const bool ok = poll_until(steady_clock::now() + kWait, [&] {
    want = info_field(primary, "replication", "master_repl_offset");
    got = info_field(replica, "replication", "slave_repl_offset");
    return !want.empty() && want == got && info_field(replica, "replication", "master_link_status") == "up";
  });
  REQUIRE_MESSAGE(ok, "primary offset " << want << ", replica offset " << got);
}

// Every key of every db as text: its db, name, type, deadline and value
// read the type's way (sorted where the type has no order; a
// HyperLogLog by its count, its bytes may be encoded otherwise).
std::vector<std::string> dataset(RawClient& c) {
  std::vector<std::string> out;
  auto joined = [](const Reply& r, bool sort) {
    std::vector<std::string> items;
    for (const Reply& e : r.elements) items.push_back(e.is_aggregate() ? "[" + std::to_string(e.elements.size()) + "]" : e.text);
    if (sort) std::sort(items.begin(), items.end());
    std::string text;
    for (const std::string& i : items) text += i + "|";
    return text;
  };
  for (int db = 0; db < 16; ++db) {
    must(c, {"SELECT", std::to_string(db)});
    Reply keys = call(c, {"KEYS", "*"});
    for (const Reply& k : keys.elements) {
      const std::string& key = k.text;
      const std::string type = call(c, {"TYPE", key}).text;
      std::string value;
      if (type == "string") {
        value = call(c, {"GET", key}).text;
        if (value.rfind("HYLL", 0) == 0) value = "hll:" + call(c, {"PFCOUNT", key}).text;
      } else if (type == "hash") {
        value = joined(call(c, {"HGETALL", key}), true);
      } else if (type == "list") {
        value = joined(call(c, {"LRANGE", key, "0", "-1"}), false);
      } else if (type == "set") {
        value = joined(call(c, {"SMEMBERS", key}), true);
      } else if (type == "zset") {
        value = joined(call(c, {"ZRANGE", key, "0", "-1", "WITHSCORES"}), false);
      } else if (type == "stream") {
        Reply entries = call(c, {"XRANGE", key, "-", "+"});
        for (const Reply& e : entries.elements) value += e.elements[0].text + "=" + joined(e.elements[1], false) + ";";
        value += "groups:" + joined(call(c, {"XINFO", "GROUPS", key}), false);
      }
      out.push_back(std::to_string(db) + " " + key + " " + type + " " + call(c, {"PEXPIRETIME", key}).text + " " +
                    value);
    }
  }
  must(c, {"SELECT", "0"});
  std::sort(out.begin(), out.end());
  return out;
}

void same_dataset(RawClient& primary, RawClient& replica) {
  caught_up(primary, replica);
  const std::vector<std::string> a = dataset(primary), b = dataset(replica);
  CHECK(a.size() > 10);
  CHECK(a == b);
  if (a != b) {
    for (const std::string& line : a)
      if (std::find(b.begin(), b.end(), line) == b.end()) MESSAGE("primary only: " << line);
    for (const std::string& line : b)
      if (std::find(a.begin(), a.end(), line) == a.end()) MESSAGE("replica only: " << line);
  }
}

// n incompressible bytes (xorshift from *x): a snapshot that holds them
// is as large as they are.
std::string noise(size_t n, uint64_t* x) {
  std::string out(n, '\0');
  for (char& ch : out) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    ch = static_cast<char>(*x);
  }
  return out;
}

// A dataset of every type both servers serve, in dbs 0 and 2.
void fill(RawClient& c) {
  must(c, {"SET", "str", "hello"});
  must(c, {"SET", "num", "12345"});
  must(c, {"SET", "big", std::string(5000, 'a')});
  must(c, {"SET", "ttl", "v", "PX", "100000000"});
  must(c, {"HSET", "hash", "a", "1", "b", "two"});
  for (int i = 0; i < 200; ++i) must(c, {"HSET", "hash_big", "f" + std::to_string(i), std::to_string(i)});
  must(c, {"RPUSH", "list", "a", "b", "12"});
  must(c, {"SADD", "intset", "1", "2", "3"});
  must(c, {"SADD", "set", "x", "y"});
  must(c, {"ZADD", "zset", "1", "a", "2.5", "b"});
  for (int i = 0; i < 200; ++i) must(c, {"ZADD", "zset_big", std::to_string(i), "m" + std::to_string(i)});
  must(c, {"XADD", "stream", "1-1", "f", "v"});
  must(c, {"XGROUP", "CREATE", "stream", "g", "0"});
  must(c, {"PFADD", "hll", "a", "b", "c"});
  must(c, {"SELECT", "2"});
  must(c, {"SET", "in_db2", "x", "EX", "86400"});
  must(c, {"SELECT", "0"});
}

// Writes of every type, transactions, scripts and other dbs.
void write_more(RawClient& c) {
  must(c, {"INCR", "num"});
  must(c, {"APPEND", "str", " world"});
  must(c, {"SET", "ex", "v", "EX", "1000"});
  must(c, {"EXPIRE", "str", "5000"});
  must(c, {"PEXPIREAT", "num", "4102444800000"});
  must(c, {"INCRBYFLOAT", "flt", "1.5"});
  must(c, {"HSET", "hash", "c", "3"});
  must(c, {"HINCRBYFLOAT", "hash", "a", "0.25"});
  must(c, {"LPUSH", "list", "z"});
  must(c, {"RPOP", "list"});
  must(c, {"LMOVE", "list", "list2", "LEFT", "RIGHT"});
  must(c, {"SADD", "set", "w", "v", "u"});
  must(c, {"SPOP", "set"});  // random: the replica gets what was popped
  must(c, {"ZINCRBY", "zset", "3", "a"});
  must(c, {"XADD", "stream", "2-1", "g", "w"});
  must(c, {"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "stream", ">"});
  must(c, {"PFADD", "hll", "d"});
  must(c, {"DEL", "big"});
  must(c, {"RENAME", "hash_big", "hash_big2"});
  must(c, {"MULTI"});
  must(c, {"SET", "tx1", "a"});
  must(c, {"INCR", "tx2"});
  must(c, {"EXEC"});
  must(c, {"EVAL", "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])", "2", "lua1", "lua2",
           "v"});
  must(c, {"SELECT", "5"});
  must(c, {"SET", "in_db5", "y"});
  must(c, {"HSET", "h5", "f", "v"});
  must(c, {"SELECT", "0"});
  must(c, {"SWAPDB", "2", "3"});
}

// The snapshot a SYNC or PSYNC link reads after the keepalive newlines that
// may come first: `$<len>\r\n<len bytes>`.
std::string read_snapshot(RawClient& link) {
  std::string byte;
  while ((byte = link.read_exactly(1)) == "\n") {
  }
  REQUIRE(byte == "$");
  std::string len;
  while ((byte = link.read_exactly(1)) != "\r") len += byte;
  REQUIRE(link.read_exactly(1) == "\n");
  return link.read_exactly(std::stoul(len));
}

}  // namespace

TEST_CASE("compat: replication: a redis-server 7.0.15 replica of a lawnkv primary (full and partial resync, the stream, WAIT)") {
  TempDir primary_dir, replica_dir;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", primary_dir.path.string(), "--requirepass", "secret"});
  RawClient p(lawnkv.port());
  must(p, {"AUTH", "secret"});
  fill(p);

  ServerProcess redis = ServerProcess::redis({"--dir", replica_dir.path.string(), "--replicaof", "127.0.0.1",
                                              std::to_string(lawnkv.port()), "--masterauth", "secret"});
  RawClient r(redis.port());

  SUBCASE("full resync, the stream, expiry, a partial resync and WAIT") {
    // Full resync: the replica loaded lawnkv's snapshot.
    same_dataset(p, r);
    CHECK(info_field(p, "stats", "sync_full") == "1");
    CHECK(info_field(p, "replication", "connected_slaves") == "1");
    const std::string slave0 = info_field(p, "replication", "slave0");
    CHECK(slave0.find("ip=127.0.0.1,port=" + std::to_string(redis.port()) + ",state=online,") == 0);
    CHECK(call(p, {"CLIENT", "LIST", "TYPE", "replica"}).text.find(" flags=S ") != std::string::npos);
    CHECK(info_field(r, "replication", "master_replid") == info_field(p, "replication", "master_replid"));

    // The stream.
    write_more(p);
    same_dataset(p, r);
    CHECK(call(r, {"GET", "lua1"}).text == "v");
    must(r, {"SELECT", "5"});
    CHECK(call(r, {"GET", "in_db5"}).text == "y");
    must(r, {"SELECT", "0"});
    CHECK(call(r, {"PEXPIRETIME", "num"}).text == "4102444800000");

    // Keys expiring on the primary: their DEL (one for the three, due in
    // the same millisecond) reaches the replica, which holds the keys
    // (DBSIZE counts them) until then.
    const Reply time = call(p, {"TIME"});
    REQUIRE(time.elements.size() == 2);
    const std::string due =
        std::to_string(std::stoll(time.elements[0].text) * 1000 + std::stoll(time.elements[1].text) / 1000 + 200);
    for (const char* k : {"soon", "soon2", "soon3"}) must(p, {"SET", k, "v", "PXAT", due});
    caught_up(p, r);
    const std::string before = call(r, {"DBSIZE"}).text;
    const bool gone = poll_until(steady_clock::now() + kWait, [&] { return call(r, {"DBSIZE"}).text != before; });
    CHECK(gone);
    CHECK(call(r, {"DBSIZE"}).text == call(p, {"DBSIZE"}).text);
    same_dataset(p, r);

    // WAIT: the replica acknowledges this client's writes.
    must(p, {"SET", "acked", "1"});
    const Reply waited = call(p, {"WAIT", "1", "5000"});
    CHECK(waited.type == ':');
    CHECK(waited.text == "1");
    CHECK(call(p, {"WAIT", "2", "50"}).text == "1");  // times out with the one it has

    // The link is cut: the replica comes back and continues from the backlog.
    CHECK(call(p, {"CLIENT", "KILL", "TYPE", "replica"}).text == "1");
    must(p, {"SET", "after_kill", "1"});
    const bool back = poll_until(steady_clock::now() + kWait, [&] {
      return info_field(p, "stats", "sync_partial_ok") == "1" &&
             info_field(p, "replication", "slave0").find("state=online") != std::string::npos;
    });
    CHECK(back);
    CHECK(info_field(p, "stats", "sync_full") == "1");
    must(p, {"HSET", "after_continue", "f", "v"});
    same_dataset(p, r);

    // ROLE lists the replica with its acknowledged offset.
    const Reply role = call(p, {"ROLE"});
    REQUIRE(role.elements.size() == 3);
    CHECK(role.elements[0].text == "master");
    REQUIRE(role.elements[2].elements.size() == 1);
    CHECK(role.elements[2].elements[0].elements[1].text == std::to_string(redis.port()));
  }
}

// The stream's bytes as a SYNC client (an old replica, `redis-cli
// --replica`) reads them: newlines while the snapshot is made, "$<len>"
// and the RDB file, then each write's record: SELECT when the db changes,
// MULTI ... EXEC around a transaction, the deadline of SET PX made
// absolute, and the DEL of a key that expired on lawnkv. Every byte after
// the snapshot counts in master_repl_offset.
TEST_CASE("compat: replication: a SYNC client reads lawnkv's snapshot, then the stream") {
  TempDir dir;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", dir.path.string()});
  RawClient c(lawnkv.port());
  must(c, {"SET", "before", "1"});
  RawClient link(lawnkv.port());
  link.send("SYNC\r\n");
  const std::string rdb = read_snapshot(link);
  CHECK(rdb.rfind("REDIS0010", 0) == 0);
  CHECK(rdb.find("before") != std::string::npos);
  CHECK(info_field(c, "replication", "slave0").find("state=online") != std::string::npos);
  CHECK(call(c, {"CLIENT", "LIST", "TYPE", "replica"}).text.find(" flags=S ") != std::string::npos);
  const int64_t start = std::stoll(info_field(c, "replication", "master_repl_offset"));

  must(c, {"SELECT", "3"});
  must(c, {"SET", "k", "v"});
  must(c, {"MULTI"});
  must(c, {"INCR", "x"});
  must(c, {"LPUSH", "l", "a"});
  must(c, {"EXEC"});
  must(c, {"SET", "soon", "v", "PX", "30"});
  std::vector<std::string> got;
  int64_t bytes = 0;
  auto next = [&] {
    const std::string wire = link.read_reply();
    bytes += static_cast<int64_t>(wire.size());
    std::string line;
    for (const Reply& e : parse_reply(wire).elements) line += (line.empty() ? "" : " ") + e.text;
    return line;
  };
  for (int i = 0; i < 7; ++i) got.push_back(next());
  const std::string pxat = got.back();
  got.back() = pxat.substr(0, pxat.rfind(' '));
  CHECK(got == std::vector<std::string>{"SELECT 3", "SET k v", "MULTI", "INCR x", "LPUSH l a", "EXEC",
                                        "SET soon v PXAT"});
  // The key expires on lawnkv (30 ms on): its DEL follows.
  CHECK(next() == "DEL soon");
  // Keys due in one millisecond go in one expiry cycle: one DEL for them
  // all (engine/effect_encoder.hpp's encode_each), after the write before
  // them and before the write after them.
  const Reply time = call(c, {"TIME"});
  REQUIRE(time.elements.size() == 2);
  const std::string due =
      std::to_string(std::stoll(time.elements[0].text) * 1000 + std::stoll(time.elements[1].text) / 1000 + 200);
  for (const char* k : {"e1", "e2", "e3"}) must(c, {"SET", k, "v", "PXAT", due});
  must(c, {"SET", "before_expiry", "1"});
  for (int i = 0; i < 4; ++i) next();
  std::string joined = next();
  must(c, {"SET", "after_expiry", "1"});
  CHECK(joined.starts_with("DEL "));
  std::vector<std::string> keys;
  for (size_t at = 4; at < joined.size();) {
    const size_t space = std::min(joined.find(' ', at), joined.size());
    keys.push_back(joined.substr(at, space - at));
    at = space + 1;
  }
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{"e1", "e2", "e3"});
  CHECK(next() == "SET after_expiry 1");
  CHECK(std::stoll(info_field(c, "replication", "master_repl_offset")) - start == bytes);
}

// A replica that reads its snapshot slowly: the transfer spans the
// replication cron's ticks (once a second), whose keepalive newlines go
// only to links still waiting for their BGSAVE; inside the payload one
// would be a byte of the snapshot. The link reads nothing for two ticks
// (the payload is larger than the socket buffers and the chunk the primary
// holds, so the link stays in send_bulk meanwhile), then the whole payload:
// it is the primary's dump.rdb, byte for byte.
TEST_CASE("compat: replication: a snapshot read slowly over several cron ticks arrives intact") {
  TempDir dir;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", dir.path.string()});
  RawClient c(lawnkv.port());
  uint64_t x = 2463534242ull;
  for (int i = 0; i < 10; ++i) must(c, {"SET", "noise" + std::to_string(i), noise(1 << 20, &x)});
  RawClient link(lawnkv.port());
  link.send("SYNC\r\n");
  REQUIRE(poll_until(steady_clock::now() + kWait, [&] {
    return info_field(c, "replication", "slave0").find("state=send_bulk") != std::string::npos;
  }));
  // The cron's ticks are what this case is about: two of them pass while
  // the replica reads nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));
  CHECK(info_field(c, "replication", "slave0").find("state=send_bulk") != std::string::npos);
  const std::string rdb = read_snapshot(link);
  std::ifstream file(dir.path / "dump.rdb", std::ios::binary);
  const std::string saved{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  CHECK(rdb.size() > 10u << 20);
  CHECK(rdb == saved);
  // Nothing else came: the next bytes are the stream's (a PING at most).
  must(c, {"SET", "after", "1"});
  std::string next = parse_reply(link.read_reply()).elements.at(0).text;
  if (next == "PING") next = parse_reply(link.read_reply()).elements.at(0).text;
  CHECK(next == "SELECT");
}

// A snapshot larger than one chunk of the transfer; then a link cut while
// more than the backlog holds is written: the replica asks to continue
// from an offset the backlog no longer has, and falls back to a full
// resynchronisation (sync_partial_err, then sync_full).
TEST_CASE("compat: replication: a snapshot sent in chunks; a backlog overrun falls back to a full resync") {
  TempDir primary_dir, replica_dir;
  ServerProcess lawnkv = ServerProcess::lawnkv({"--dir", primary_dir.path.string(), "--repl-backlog-size", "16kb"});
  RawClient p(lawnkv.port());
  fill(p);
  // Incompressible values: the snapshot (over 2 MB) goes out in several
  // chunks as the link drains.
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 3; ++i) must(p, {"SET", "noise" + std::to_string(i), noise(700 * 1024, &x)});
  ServerProcess redis =
      ServerProcess::redis({"--dir", replica_dir.path.string(), "--replicaof", "127.0.0.1", std::to_string(lawnkv.port())});
  RawClient r(redis.port());
  same_dataset(p, r);
  CHECK(info_field(p, "replication", "repl_backlog_size") == "16384");
  // The kill and a write larger than the backlog in one batch: the replica
  // cannot come back in between.
  p.send(encode_command({"CLIENT", "KILL", "TYPE", "replica"}) +
         encode_command({"SET", "overrun", std::string(40000, 'x')}));
  CHECK(parse_reply(p.read_reply()).text == "1");
  CHECK(parse_reply(p.read_reply()).text == "OK");
  const bool resynced = poll_until(steady_clock::now() + kWait, [&] {
    return info_field(p, "stats", "sync_full") == "2" &&
           info_field(p, "replication", "slave0").find("state=online") != std::string::npos;
  });
  CHECK(resynced);
  CHECK(info_field(p, "stats", "sync_partial_ok") == "0");
  CHECK(info_field(p, "stats", "sync_partial_err") == "1");
  CHECK(info_field(p, "replication", "repl_backlog_histlen") == "16384");
  same_dataset(p, r);
}

}  // namespace lawnkv::test
