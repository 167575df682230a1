// The records writes leave (engine/effects.hpp): what each command family
// records in place of its arguments, what is recorded besides (expiry,
// eviction, due hash fields), what is not recorded (reads, failures, writes
// that changed nothing), and the property the append-only file rests on:
// the records, replayed in order on an empty server with the clock at 0,
// rebuild the dataset.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "command_fixture.hpp"

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

// Keeps records as "db: ARG ARG ..." lines, a transaction's between "[" and "]".
struct RecordingSink : EffectSink {
  std::vector<std::vector<EffectRecord>> batches;
  std::vector<size_t> each_calls;  // the sizes append_each was called with
  void append(std::span<const EffectRecord> records) override {
    batches.emplace_back(records.begin(), records.end());
  }
  void append_each(std::span<const EffectRecord> records) override {
    each_calls.push_back(records.size());
    for (const EffectRecord& r : records) batches.push_back({r});
  }
  std::vector<std::string> take() {
    std::vector<std::string> out;
    for (const auto& batch : batches) {
      if (batch.size() > 1) out.push_back("[");
      for (const auto& r : batch) {
        std::string line = std::to_string(r.db) + ":";
        for (const auto& a : r.argv) line += " " + a;
        out.push_back(line);
      }
      if (batch.size() > 1) out.push_back("]");
    }
    batches.clear();
    return out;
  }
};

struct EffectServer : CommandServer {
  RecordingSink sink;
  EffectServer() { state.data.effects.attach(&sink); }
  ~EffectServer() { state.data.effects.detach(&sink); }
  size_t reap() { return state.data.keyspace.reap(now, 1'000'000); }
};

using Lines = std::vector<std::string>;
const std::string kDeadline = std::to_string(kT0 + 100'000);

}  // namespace

TEST_CASE("effects: strings and expiry record absolute deadlines and exact values") {
  EffectServer s;
  s.run({"set", "a", "1", "EX", "100"});
  s.run({"setex", "b", "100", "2"});
  s.run({"psetex", "c", "100000", "3"});
  s.run({"set", "d", "4", "NX", "GET"});
  s.run({"set", "d", "5", "KEEPTTL"});
  CHECK(s.sink.take() == Lines{"0: SET a 1 PXAT " + kDeadline, "0: SET b 2 PXAT " + kDeadline,
                               "0: SET c 3 PXAT " + kDeadline, "0: SET d 4", "0: SET d 5 KEEPTTL"});
  s.run({"expire", "d", "100"});
  s.run({"pexpire", "d", "100000", "GT"});
  s.run({"expireat", "d", std::to_string(kT0 / 1000 + 200)});
  s.run({"getex", "a", "PX", "100000"});
  s.run({"getex", "a", "PERSIST"});
  CHECK(s.sink.take() == Lines{"0: PEXPIREAT d " + kDeadline, "0: PEXPIREAT d " + std::to_string(kT0 + 200'000),
                               "0: PEXPIREAT a " + kDeadline, "0: PERSIST a"});
  // A time already past deletes: recorded as the deletion.
  s.run({"expire", "b", "-1"});
  s.run({"getex", "c", "EXAT", "1"});
  s.run({"incrbyfloat", "n", "0.1"});
  s.run({"incrbyfloat", "n", "0.2"});
  CHECK(s.sink.take() == Lines{"0: DEL b", "0: DEL c", "0: SET n 0.1 KEEPTTL", "0: SET n 0.3 KEEPTTL"});
}

TEST_CASE("effects: reads, failures and writes that change nothing are not recorded") {
  EffectServer s;
  s.run({"set", "k", "v"});
  s.sink.take();
  s.run({"get", "k"});
  s.run({"del", "nosuch"});
  s.run({"set", "k", "w", "NX"});
  s.run({"incr", "k"});        // not an integer: an error
  s.run({"expire", "nosuch", "10"});
  s.run({"persist", "k"});     // no TTL
  s.run({"hset", "k", "f", "v"});  // WRONGTYPE
  CHECK(s.sink.take().empty());
  s.run({"del", "k"});
  CHECK(s.sink.take() == Lines{"0: del k"});
}

TEST_CASE("effects: expiry and eviction record deletions; a lazy one goes before its command") {
  EffectServer s;
  s.run({"set", "a", "1", "PX", "10"});
  s.run({"set", "b", "2", "PX", "10"});
  s.sink.take();
  s.now += 11;
  CHECK(s.run({"get", "a"}) == "$-1\r\n");  // a read: only the deletion is recorded
  CHECK(s.sink.take() == Lines{"0: DEL a"});
  CHECK(s.reap() == 1);
  CHECK(s.sink.take() == Lines{"0: DEL b"});
  s.run({"set", "c", "1", "PX", "10"});
  s.sink.take();
  s.now += 11;
  s.run({"append", "c", "x"});
  CHECK(s.sink.take() == Lines{"[", "0: DEL c", "0: append c x", "]"});
}

TEST_CASE("effects: a Batch hands the deletions made outside commands over at its end, each its own command") {
  EffectServer s;
  for (const char* k : {"a", "b", "c"}) s.run({"set", k, "1", "PX", "10"});
  s.sink.take();
  s.now += 11;
  {
    const Effects::Batch batch(s.state.data.effects);
    CHECK(s.reap() == 3);
    CHECK(s.sink.batches.empty());  // held
  }
  CHECK(s.sink.each_calls == std::vector<size_t>{3});
  Lines got = s.sink.take();
  std::sort(got.begin(), got.end());
  CHECK(got == Lines{"0: DEL a", "0: DEL b", "0: DEL c"});
  // A command inside a Batch: what was held goes first, then the command's
  // own records as usual.
  s.sink.each_calls.clear();
  s.run({"set", "d", "1", "PX", "10"});
  s.sink.take();
  s.now += 11;
  {
    const Effects::Batch batch(s.state.data.effects);
    CHECK(s.reap() == 1);
    s.run({"set", "x", "1"});
    CHECK(s.sink.each_calls == std::vector<size_t>{1});
  }
  CHECK(s.sink.each_calls == std::vector<size_t>{1});
  CHECK(s.sink.take() == Lines{"0: DEL d", "0: SET x 1"});
}

TEST_CASE("effects: MULTI/EXEC records its writes as one transaction, in its db") {
  EffectServer s;
  s.run({"select", "2"});
  s.run({"multi"});
  s.run({"set", "a", "1", "EX", "100"});
  s.run({"get", "a"});
  s.run({"incr", "n"});
  s.run({"exec"});
  CHECK(s.sink.take() == Lines{"[", "2: SET a 1 PXAT " + kDeadline, "2: incr n", "]"});
  s.run({"multi"});
  s.run({"get", "a"});
  s.run({"exec"});
  CHECK(s.sink.take().empty());
  s.run({"swapdb", "2", "0"});
  s.run({"flushdb"});
  CHECK(s.sink.take() == Lines{"2: swapdb 2 0", "2: flushdb"});
}

TEST_CASE("effects: HINCRBYFLOAT of a field without a TTL is an HSET, as Redis 7.0 propagates it") {
  EffectServer s;
  s.run({"hset", "h", "a", "1"});
  s.sink.take();
  s.run({"hincrbyfloat", "h", "a", "0.25"});
  s.run({"hincrbyfloat", "h", "new", "2"});
  CHECK(s.sink.take() == Lines{"0: HSET h a 1.25", "0: HSET h new 2"});
}

TEST_CASE("effects: sets record what SPOP drew; hashes their TTLs as deadlines") {
  EffectServer s;
  s.run({"sadd", "s", "a", "b", "c"});
  s.sink.take();
  const std::string popped = s.run({"spop", "s"});
  CHECK(s.sink.take() == Lines{"0: SREM s " + popped.substr(4, 1)});
  s.run({"spop", "s", "5"});
  CHECK(s.sink.take() == Lines{"0: DEL s"});

  s.run({"hset", "h", "a", "1", "b", "2", "c", "3"});
  s.run({"hexpire", "h", "100", "FIELDS", "3", "a", "b", "nosuch"});
  s.run({"hexpire", "h", "50", "NX", "FIELDS", "2", "a", "c"});
  s.run({"hpexpire", "h", "0", "FIELDS", "1", "b"});
  s.run({"hincrbyfloat", "h", "a", "1.5"});
  CHECK(s.sink.take() == Lines{"0: hset h a 1 b 2 c 3", "0: HPEXPIREAT h " + kDeadline + " FIELDS 2 a b",
                               "0: HPEXPIREAT h " + std::to_string(kT0 + 50'000) + " FIELDS 1 c", "0: HDEL h b",
                               "0: HSETEX h KEEPTTL FIELDS 1 a 2.5"});
  s.run({"hsetex", "h", "EX", "100", "FIELDS", "1", "d", "4"});
  s.run({"hgetex", "h", "PX", "100000", "FIELDS", "2", "c", "nosuch"});
  s.run({"hgetex", "h", "PERSIST", "FIELDS", "2", "c", "d"});
  s.run({"hgetex", "h", "PXAT", "1", "FIELDS", "1", "d"});
  CHECK(s.sink.take() == Lines{"0: HSETEX h PXAT " + kDeadline + " FIELDS 1 d 4",
                               "0: HPEXPIREAT h " + kDeadline + " FIELDS 1 c", "0: HPERSIST h FIELDS 2 c d",
                               "0: HDEL h d"});
  // A field found due by a command, and one the reaper finds.
  s.run({"hpexpire", "h", "10", "FIELDS", "1", "a"});
  s.run({"hpexpire", "h", "20", "FIELDS", "1", "c"});
  s.sink.take();
  s.now += 11;
  s.run({"hset", "h", "z", "9"});
  CHECK(s.sink.take() == Lines{"[", "0: HDEL h a", "0: hset h z 9", "]"});
  s.now += 10;
  CHECK(s.reap() == 1);
  CHECK(s.sink.take() == Lines{"0: HDEL h c"});
  // The fields one pass reaps from a hash: one HDEL.
  s.run({"hset", "h", "p", "1"});
  s.run({"hpexpire", "h", "10", "FIELDS", "2", "z", "p"});
  s.sink.take();
  s.now += 11;
  CHECK(s.reap() == 2);
  const Lines records = s.sink.take();
  REQUIRE(records.size() == 1);
  CHECK((records[0] == "0: HDEL h z p" || records[0] == "0: HDEL h p z"));
}

TEST_CASE("effects: blocking pops record the plain pop of what they took, served at once or later") {
  EffectServer s;
  FakeSession waiter;
  waiter.id = s.state.clients.next_id();
  waiter.authenticated = true;
  s.state.clients.add(waiter);
  s.run({"rpush", "l", "a", "b", "c"});
  s.run({"zadd", "z", "1", "m", "2", "n"});
  s.sink.take();
  s.run({"blpop", "none", "l", "0"});
  s.run({"brpoplpush", "l", "l2", "0"});
  s.run({"blmpop", "0", "1", "l", "RIGHT", "COUNT", "5"});
  s.run({"bzpopmax", "z", "0"});
  s.run({"bzmpop", "0", "1", "z", "MIN", "COUNT", "9"});
  CHECK(s.sink.take() == Lines{"0: LPOP l", "0: LMOVE l l2 RIGHT LEFT", "0: RPOP l 1", "0: ZPOPMAX z 1",
                               "0: ZPOPMIN z 1"});
  // Blocked, then served by a push: the pop is recorded after the push.
  s.run_as(waiter, {"blmove", "q", "dst", "LEFT", "RIGHT", "0"});
  REQUIRE(waiter.blocked);
  s.run({"lpush", "q", "x"});
  serve_blocked(s.state, s.now);
  CHECK_FALSE(waiter.blocked);
  CHECK(s.sink.take() == Lines{"0: lpush q x", "0: LMOVE q dst LEFT RIGHT"});
  s.run_as(waiter, {"bzpopmin", "zz", "0"});
  s.run({"zadd", "zz", "5", "e"});
  serve_blocked(s.state, s.now);
  CHECK(s.sink.take() == Lines{"0: zadd zz 5 e", "0: ZPOPMIN zz 1"});
  s.state.clients.remove(waiter);
}

TEST_CASE("effects: a dehydrator records deadlines and the ids taken out") {
  EffectServer s;
  s.run({"rede.push", "d", "1000", "e1", "id1"});
  s.run({"rede.push", "d", "2000", "e2", "id2"});
  s.run({"rede.push", "d", "3000", "e3", "id3"});
  CHECK(s.sink.take() == Lines{"0: REDE.PUSH d " + std::to_string(kT0 + 1000) + " e1 id1",
                               "0: REDE.PUSH d " + std::to_string(kT0 + 2000) + " e2 id2",
                               "0: REDE.PUSH d " + std::to_string(kT0 + 3000) + " e3 id3"});
  s.run({"rede.poll", "d"});
  CHECK(s.sink.take().empty());  // nothing due
  s.now += 2001;
  s.run({"rede.poll", "d"});
  CHECK(s.sink.take() == Lines{"[", "0: REDE.PULL d id1", "0: REDE.PULL d id2", "]"});
  s.now += 1000;
  s.run({"rede.xack", "d", "id3", "nosuch"});
  CHECK(s.sink.take() == Lines{"0: REDE.PULL d id3"});
  const std::string id = s.run({"rede.gidpush", "d", "5", "g"});
  CHECK(s.sink.take() == Lines{"0: REDE.PUSH d " + std::to_string(s.now + 5) + " g " + id.substr(id.find('\n') + 1, 31)});
}

}  // namespace lawnkv::test

namespace lawnkv::test {
namespace {

// The dataset as commands read it at server s's now, by "db key": each key
// with its type, value, deadline, and its fields' deadlines; a dehydrator by
// the elements of the ids the workload uses and its time to next.
// The bulk strings of an array reply, sorted.
std::vector<std::string> sorted_bulks(const std::string& reply) {
  std::vector<std::string> out;
  for (size_t at = reply.find("\r\n$"); at != std::string::npos; at = reply.find("\r\n$", at)) {
    const size_t len_end = reply.find("\r\n", at + 2);
    const size_t len = std::stoul(reply.substr(at + 3, len_end - at - 3));
    out.push_back(reply.substr(len_end + 2, len));
    at = len_end + 2 + len;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> dump(CommandServer& s) {
  std::map<std::string, std::string> out;
  for (int db = 0; db < 3; ++db) {
    s.run({"select", std::to_string(db)});
    const std::vector<std::string> names = sorted_bulks(s.run({"keys", "*"}));
    for (const auto& k : names) {
      const std::string type = s.run({"type", k});
      std::string line = type + " " + s.run({"pexpiretime", k});
      if (type == "+string\r\n") line += s.run({"get", k});
      if (type == "+set\r\n")
        for (const auto& m : sorted_bulks(s.run({"smembers", k}))) line += m + " ";
      if (type == "+hash\r\n") {
        for (const char* f : {"a", "b", "c", "d"}) line += s.run({"hget", k, f});
        line += s.run({"hpexpiretime", k, "FIELDS", "4", "a", "b", "c", "d"});
      }
      if (type == "+list\r\n") line += s.run({"lrange", k, "0", "-1"});
      if (type == "+zset\r\n") line += s.run({"zrange", k, "0", "-1", "WITHSCORES"});
      if (type == "+dehy-type\r\n") {
        for (const char* id : {"i0", "i1", "i2", "i3"}) line += s.run({"rede.look", k, id});
        line += s.run({"rede.ttn", k});
      }
      out[std::to_string(db) + " " + k] = line;
    }
  }
  s.run({"select", "0"});
  return out;
}

// A random write (or read) over a few keys of every type.
std::vector<std::string> random_command(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<const char*> xs) { return std::string(*(xs.begin() + rng() % xs.size())); };
  const std::string k = pick({"k1", "k2", "k3"}), h = pick({"h1", "h2"}), st = pick({"s1", "s2"});
  const std::string f = pick({"a", "b", "c", "d"}), v = std::to_string(rng() % 100);
  const std::string ms = std::to_string(rng() % 300), sec = std::to_string(rng() % 3);
  const std::string l = pick({"l1", "l2"}), z = pick({"z1", "z2"});
  switch (rng() % 40) {
    case 26: return {"rpush", l, v, f};
    case 27: return {"lpop", l, pick({"1", "2"})};
    case 28: return {"blpop", l, pick({"l1", "l2"}), "0.01"};
    case 29: return {"blmove", l, pick({"l1", "l2"}), pick({"LEFT", "RIGHT"}), pick({"LEFT", "RIGHT"}), "0.01"};
    case 30: return {"lmpop", "2", "l1", "l2", pick({"LEFT", "RIGHT"}), "COUNT", "2"};
    case 31: return {"blmpop", "0.01", "2", "l2", "l1", "RIGHT"};
    case 32: return {"linsert", l, pick({"BEFORE", "AFTER"}), v, "ins"};
    case 33: return {"zadd", z, std::to_string(rng() % 20) + ".5", f};
    case 34: return {"zincrby", z, "0.1", f};
    case 35: return {"bzpopmin", z, pick({"z1", "z2"}), "0.01"};
    case 36: return {"zmpop", "2", "z1", "z2", pick({"MIN", "MAX"}), "COUNT", "2"};
    case 37: return {"bzmpop", "0.01", "1", z, "MAX"};
    case 38: return {"zpopmax", z};
    case 39: return {"rename", pick({"l1", "z1"}), pick({"l2", "z2"})};
    case 0: return {"set", k, v};
    case 1: return {"set", k, v, "PX", ms};
    case 2: return {"set", k, v, "EX", sec, "NX"};
    case 3: return {"setex", k, "1", v};
    case 4: return {"expire", k, pick({"-1", "0", "1", "2"})};
    case 5: return {"pexpire", k, ms, pick({"NX", "XX", "GT", "LT"})};
    case 6: return {"getex", k, pick({"PX", "EX", "PERSIST"}), ms};
    case 7: return {"incrbyfloat", k, "0.1"};
    case 8: return {"append", k, v};
    case 9: return {"del", k};
    case 10: return {"hset", h, f, v};
    case 11: return {"hpexpire", h, ms, "FIELDS", "2", f, pick({"a", "b"})};
    case 12: return {"hincrbyfloat", h, f, "1.5"};
    case 13: return {"hsetex", h, pick({"PX", "KEEPTTL"}), ms, "FIELDS", "1", f, v};
    case 14: return {"hgetex", h, "PX", ms, "FIELDS", "1", f};
    case 15: return {"hpersist", h, "FIELDS", "1", f};
    case 16: return {"sadd", st, v, pick({"x", "y", "1"})};
    case 17: return {"spop", st, pick({"1", "2"})};
    case 18: return {"smove", st, pick({"s1", "s2"}), v};
    case 19: return {"rede.push", "dh", ms, "e" + v, pick({"i0", "i1", "i2", "i3"})};
    case 20: return {"rede.poll", "dh"};
    case 21: return {"rede.xack", "dh", pick({"i0", "i1", "i2", "i3"})};
    case 22: return {"rename", pick({"k1", "h1", "s1"}), pick({"k2", "h2", "s2"})};
    case 23: return {"move", pick({"k1", "h1", "dh"}), pick({"1", "2"})};
    case 24: return {"get", k};
    default: return {"select", pick({"0", "1"})};
  }
}

}  // namespace

TEST_CASE("effects: the records, replayed on an empty server with the clock at 0, rebuild the dataset") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    CAPTURE(seed);
    EffectServer a;
    // Blocking commands go from their own client, which waits until a write
    // or its timeout serves it (blocking.serve, as the loop runs it).
    FakeSession waiter;
    waiter.id = a.state.clients.next_id();
    waiter.authenticated = true;
    a.state.clients.add(waiter);
    std::mt19937_64 rng(seed);
    std::vector<EffectRecord> records;
    for (int i = 0; i < 400; ++i) {
      if (rng() % 3 == 0) a.now += static_cast<int64_t>(rng() % 150);
      if (rng() % 10 == 0) a.reap();
      if (rng() % 15 == 0) {
        a.run({"multi"});
        a.run(random_command(rng));
        a.run(random_command(rng));
        a.run({"exec"});
      } else {
        std::vector<std::string> cmd = random_command(rng);
        if (cmd[0][0] != 'b') {
          a.run(cmd);
        } else if (!waiter.blocked) {
          a.run_as(waiter, cmd);
        }
      }
      serve_blocked(a.state, a.now);
      for (auto& batch : a.sink.batches) records.insert(records.end(), batch.begin(), batch.end());
      a.sink.batches.clear();
    }
    a.state.data.blocking.forget(waiter);
    a.state.clients.remove(waiter);
    a.run({"select", "0"});
    // Whatever fell due goes on both sides before they are compared: reaped
    // here (a keeps recording), dropped after the replay there.
    a.state.data.keyspace.reap(a.now, SIZE_MAX);
    for (auto& batch : a.sink.batches) records.insert(records.end(), batch.begin(), batch.end());
    a.sink.batches.clear();
    CommandServer b;
    b.now = 0;
    for (const EffectRecord& r : records) {
      b.run({"select", std::to_string(r.db)});
      const std::string reply = b.run(r.argv);
      CAPTURE(reply);
      CHECK(reply[0] != '-');
    }
    b.state.data.keyspace.drop_due(a.now);
    b.now = a.now;
    const auto want = dump(a);
    const auto got = dump(b);
    // No structured binding in CAPTURE: clang 14 (the sanitizer build)
    // cannot capture one in the lambda CAPTURE makes.
    for (const auto& entry : want) {
      const std::string& key = entry.first;
      CAPTURE(key);
      CHECK(got.count(key) == 1);
      if (got.count(key)) CHECK(got.at(key) == entry.second);
    }
    for (const auto& entry : got) {
      const std::string& key = entry.first;
      CAPTURE(key);
      CHECK(want.count(key) == 1);
    }
  }
}

}  // namespace lawnkv::test

namespace lawnkv::test {

TEST_CASE("effects: a sink set or removed inside EXEC leaves no frame behind") {
  EffectServer s;
  s.run({"multi"});
  s.run({"set", "a", "1"});
  s.run({"exec"});
  CHECK(s.sink.take() == Lines{"0: SET a 1"});
  // Removed while EXEC runs (as CONFIG SET appendonly no would), then set again.
  s.run({"multi"});
  s.run({"set", "b", "1"});
  s.state.data.effects.begin();  // EXEC's frame
  s.state.data.effects.begin();  // a command inside it
  s.state.data.effects.detach(&s.sink);
  const std::vector<std::string_view> none;
  s.state.data.effects.end(0, none, true);
  s.state.data.effects.end(0, none, true);
  s.run({"discard"});
  s.state.data.effects.attach(&s.sink);
  s.run({"set", "c", "1"});
  CHECK(s.sink.take() == Lines{"0: SET c 1"});
}

}  // namespace lawnkv::test

namespace lawnkv::test {
namespace {

// Every attached sink gets every record; a detached one gets no more, and
// the others carry on.
TEST_CASE("effects: records go to every attached sink") {
  EffectServer s;
  RecordingSink second;
  s.state.data.effects.attach(&second);
  s.state.data.effects.attach(&second);  // twice is once
  s.run({"set", "a", "1"});
  CHECK(s.sink.take() == Lines{"0: SET a 1"});
  CHECK(second.take() == Lines{"0: SET a 1"});
  s.state.data.effects.detach(&second);
  s.run({"set", "b", "2"});
  CHECK(s.sink.take() == Lines{"0: SET b 2"});
  CHECK(second.take().empty());
  s.state.data.effects.detach(&s.sink);
  CHECK_FALSE(s.state.data.effects.active());
  s.run({"set", "c", "3"});
  CHECK(s.sink.take().empty());
  s.state.data.effects.attach(&s.sink);
}

}  // namespace
}  // namespace lawnkv::test
