// Pub/Sub and keyspace notifications in the running server: what lawnkv
// decides where Redis leaves it open (the order of a mass unsubscribe),
// subscriptions ending with RESET and with the connection, and the
// `expired` event: published when the expiry engine reaps a key, or when a
// command finds it expired first, exactly once either way. Time is moved
// with DEBUG ADVANCE-TIME; nothing sleeps. (Frames compared with
// redis-server's are in tests/compat/pubsub_test.cpp.)

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/poll_until.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::encode_command;
using test::escape_bytes;
using test::parse_reply;
using test::RawClient;
using test::ServerProcess;
using SteadyClock = std::chrono::steady_clock;

std::string bulk_bytes(std::string_view s) { return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n"; }

// [kind, name, count] as a RESP2 array ('*') or RESP3 push ('>').
std::string sub_frame(std::string_view kind, std::string_view name, int count, char head = '*') {
  return std::string(1, head) + "3\r\n" + bulk_bytes(kind) + bulk_bytes(name) + ":" + std::to_string(count) + "\r\n";
}

std::string message_frame(std::string_view channel, std::string_view msg, char head = '*') {
  return std::string(1, head) + "3\r\n" + bulk_bytes("message") + bulk_bytes(channel) + bulk_bytes(msg);
}

// Everything c received before the reply to a PING sent now (the PING's
// reply is ["pong", "__sync__"] while a RESP2 client is subscribed).
std::vector<std::string> drain(RawClient& c) {
  c.send(encode_command({"PING", "__sync__"}));
  std::vector<std::string> frames;
  for (;;) {
    std::string f = c.read_reply();
    if (f == "$8\r\n__sync__\r\n" || f == "*2\r\n$4\r\npong\r\n$8\r\n__sync__\r\n") return frames;
    frames.push_back(std::move(f));
  }
}

// The message of a "message" frame ([message, channel, payload]).
std::string payload(const std::string& frame) {
  Reply r = parse_reply(frame);
  REQUIRE_MESSAGE(r.elements.size() == 3, "not a message: ", escape_bytes(frame));
  CHECK(r.elements[0].text == "message");
  return r.elements[2].text;
}

void advance(Client& c, long long ms) {
  REQUIRE(c.call(Argv{"DEBUG", "ADVANCE-TIME", std::to_string(ms)}) == status("OK"));
}

void set_active_expire(Client& c, bool on) {
  REQUIRE(c.call({"DEBUG", "SET-ACTIVE-EXPIRE", on ? "1" : "0"}) == status("OK"));
}

void notify_flags(Client& c, std::string_view flags) {
  REQUIRE(c.call({"CONFIG", "SET", "notify-keyspace-events", flags}) == status("OK"));
}

}  // namespace

TEST_CASE("pubsub: UNSUBSCRIBE and PUNSUBSCRIBE without arguments go in subscription order") {
  ServerProcess server = ServerProcess::lawnkv();
  for (char head : {'*', '>'}) {
    CAPTURE(head);
    RawClient c(server.port());
    if (head == '>') c.call({"HELLO", "3"});
    c.send(encode_command({"SUBSCRIBE", "z", "a", "m"}));
    for (int i = 0; i < 3; ++i) c.read_reply();
    c.send(encode_command({"PSUBSCRIBE", "p2", "p1"}));
    for (int i = 0; i < 2; ++i) c.read_reply();
    c.send(encode_command({"UNSUBSCRIBE"}));
    CHECK(c.read_reply() == sub_frame("unsubscribe", "z", 4, head));
    CHECK(c.read_reply() == sub_frame("unsubscribe", "a", 3, head));
    CHECK(c.read_reply() == sub_frame("unsubscribe", "m", 2, head));
    c.send(encode_command({"PUNSUBSCRIBE"}));
    CHECK(c.read_reply() == sub_frame("punsubscribe", "p2", 1, head));
    CHECK(c.read_reply() == sub_frame("punsubscribe", "p1", 0, head));
    CHECK(drain(c).empty());
  }
}

TEST_CASE("pubsub: RESET and disconnecting end every subscription") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient a(server.port()), b(server.port());
  a.send(encode_command({"SUBSCRIBE", "ch"}));
  a.read_reply();
  a.send(encode_command({"PSUBSCRIBE", "c*"}));
  a.read_reply();
  b.send(encode_command({"SUBSCRIBE", "ch"}));
  b.read_reply();
  CHECK(admin.integer({"PUBLISH", "ch", "x"}) == 3);

  a.send(encode_command({"RESET"}));
  CHECK(a.read_reply() == message_frame("ch", "x"));
  CHECK(a.read_reply() == "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$1\r\nx\r\n");
  CHECK(a.read_reply() == "+RESET\r\n");  // no unsubscribe frames
  CHECK(drain(a).empty());
  CHECK(admin.integer({"PUBLISH", "ch", "y"}) == 1);
  CHECK(admin.integer({"PUBSUB", "NUMPAT"}) == 0);
  CHECK(a.call({"GET", "k"}) == "$-1\r\n");  // out of subscribed mode

  b.close();
  // The server sees the close on its next read: wait for it, not for a time.
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] {
    return admin.call({"PUBSUB", "NUMSUB", "ch"}).elements.at(1) == integer(0);
  }));
  CHECK(admin.integer({"PUBLISH", "ch", "z"}) == 0);
}

TEST_CASE("pubsub: shard channels in CLIENT LIST, INFO, SUNSUBSCRIBE's order and a disconnect") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  RawClient c(server.port());
  c.send(encode_command({"SUBSCRIBE", "a"}));
  c.read_reply();
  c.send(encode_command({"SSUBSCRIBE", "z", "a", "m"}));
  CHECK(c.read_reply() == sub_frame("ssubscribe", "z", 1));
  CHECK(c.read_reply() == sub_frame("ssubscribe", "a", 2));
  CHECK(c.read_reply() == sub_frame("ssubscribe", "m", 3));
  const std::string list = admin.call({"CLIENT", "LIST", "TYPE", "pubsub"}).text;
  CHECK(list.find(" flags=P db=0 sub=1 psub=0 ssub=3 multi=-1 ") != std::string::npos);
  const std::string info = admin.call({"INFO", "stats"}).text;
  CHECK(info_int(info, "pubsub_channels") == 1);
  CHECK(info_int(info, "pubsubshard_channels") == 3);
  // Without arguments: every shard channel in subscription order (Redis: a
  // hash table's), the plain channel kept.
  c.send(encode_command({"SUNSUBSCRIBE"}));
  CHECK(c.read_reply() == sub_frame("sunsubscribe", "z", 2));
  CHECK(c.read_reply() == sub_frame("sunsubscribe", "a", 1));
  CHECK(c.read_reply() == sub_frame("sunsubscribe", "m", 0));
  CHECK(drain(c).empty());
  CHECK(admin.integer({"PUBLISH", "a", "x"}) == 1);
  CHECK(admin.integer({"SPUBLISH", "a", "x"}) == 0);
  CHECK(c.read_reply() == message_frame("a", "x"));
  c.send(encode_command({"SSUBSCRIBE", "s"}));
  CHECK(c.read_reply() == sub_frame("ssubscribe", "s", 1));
  c.send(encode_command({"UNSUBSCRIBE"}));
  CHECK(c.read_reply() == sub_frame("unsubscribe", "a", 0));
  // Still subscribed to a shard channel: still restricted.
  CHECK(c.call({"GET", "k"}).rfind("-ERR Can't execute 'get'", 0) == 0);
  c.close();
  CHECK(test::poll_until(SteadyClock::now() + 5s, [&] {
    return admin.call({"PUBSUB", "SHARDNUMSUB", "s"}).elements.at(1) == integer(0);
  }));
  CHECK(info_int(admin.call({"INFO", "stats"}).text, "pubsubshard_channels") == 0);
}

TEST_CASE("pubsub: a RESP3 subscriber runs commands and sees its own events first") {
  ServerProcess server = ServerProcess::lawnkv({"--notify-keyspace-events", "KEA"});
  RawClient c(server.port());
  c.call({"HELLO", "3"});
  c.send(encode_command({"SUBSCRIBE", "__keyevent@0__:set"}));
  CHECK(c.read_reply() == sub_frame("subscribe", "__keyevent@0__:set", 1, '>'));
  c.send(encode_command({"SET", "k", "v"}));
  CHECK(c.read_reply() == message_frame("__keyevent@0__:set", "k", '>'));
  CHECK(c.read_reply() == "+OK\r\n");
  CHECK(c.call({"GET", "k"}) == "$1\r\nv\r\n");
}

TEST_CASE("expired: published when the engine reaps the key, once") {
  ServerProcess server = ServerProcess::lawnkv();
  Client admin(server.port());
  notify_flags(admin, "KEx");
  RawClient sub(server.port());
  sub.send(encode_command({"SUBSCRIBE", "__keyevent@0__:expired", "__keyspace@0__:k"}));
  sub.read_reply();
  sub.read_reply();

  REQUIRE(admin.call({"SET", "k", "v", "PX", "100000"}) == status("OK"));
  CHECK(drain(sub).empty());
  // 99 s on, the key still exists: the server's clock is the wall clock plus
  // the offset, so the margin is the real time between SET and EXISTS (the
  // exact boundary, now == deadline, is expiry_test.cpp's).
  advance(admin, 99'000);
  CHECK(admin.call({"EXISTS", "k"}) == integer(1));
  advance(admin, 1'001);
  // The engine reaps it on its own, with no command touching the key: the
  // next frames are the two events, keyspace channel first.
  const auto start = SteadyClock::now();
  CHECK(sub.read_reply() == message_frame("__keyspace@0__:k", "expired"));
  CHECK(sub.read_reply() == message_frame("__keyevent@0__:expired", "k"));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start);
  CHECK_MESSAGE(waited < 1000ms, "the expired event took " << waited.count() << " ms");

  CHECK(admin.call({"GET", "k"}) == nil());
  CHECK(admin.call({"EXISTS", "k"}) == integer(0));
  CHECK(drain(sub).empty());
  notify_flags(admin, "");
}

TEST_CASE("expired: published by the command that finds the key expired, once") {
  ServerProcess server = ServerProcess::lawnkv({"--notify-keyspace-events", "Ex"});
  Client admin(server.port());
  set_active_expire(admin, false);
  RawClient sub(server.port());
  sub.send(encode_command({"SUBSCRIBE", "__keyevent@0__:expired"}));
  sub.read_reply();

  for (const char* command : {"GET", "TTL", "EXISTS", "TYPE", "STRLEN"}) {
    CAPTURE(command);
    REQUIRE(admin.call({"SET", "k", "v", "PX", "50"}) == status("OK"));
    advance(admin, 51);
    CHECK(drain(sub).empty());  // the active cycle is off: nobody reaped it
    admin.call({command, "k"});
    CHECK(drain(sub) == std::vector<std::string>{message_frame("__keyevent@0__:expired", "k")});
    admin.call({command, "k"});
    admin.call({"GET", "k"});
    CHECK(drain(sub).empty());
  }

  // Turning the cycle back on reaps what is due, once.
  REQUIRE(admin.call({"SET", "k2", "v", "PX", "50"}) == status("OK"));
  advance(admin, 51);
  set_active_expire(admin, true);
  CHECK(sub.read_reply() == message_frame("__keyevent@0__:expired", "k2"));
  CHECK(admin.call({"GET", "k2"}) == nil());
  CHECK(drain(sub).empty());
}

TEST_CASE("expired: in every db, and not for a deadline set in the past (that is del)") {
  ServerProcess server = ServerProcess::lawnkv({"--notify-keyspace-events", "Egx"});
  Client admin(server.port());
  RawClient sub(server.port());
  sub.send(encode_command({"PSUBSCRIBE", "__keyevent@*"}));
  sub.read_reply();

  auto event = [](std::string_view name) {
    const std::string channel = "__keyevent@7__:" + std::string(name);
    return "*4\r\n$8\r\npmessage\r\n$12\r\n__keyevent@*\r\n$" + std::to_string(channel.size()) + "\r\n" + channel +
           "\r\n$1\r\nk\r\n";
  };
  REQUIRE(admin.call({"SELECT", "7"}) == status("OK"));
  REQUIRE(admin.call({"SET", "k", "v", "PX", "10"}) == status("OK"));
  CHECK(sub.read_reply() == event("expire"));  // SET ... PX: class g
  advance(admin, 11);
  CHECK(sub.read_reply() == event("expired"));

  // A deadline already past deletes the key at once: `del`, never `expired`.
  REQUIRE(admin.call({"SET", "k", "v"}) == status("OK"));
  CHECK(admin.call({"EXPIRE", "k", "-1"}) == integer(1));
  REQUIRE(admin.call({"SET", "k", "v"}) == status("OK"));
  CHECK(admin.call({"PEXPIREAT", "k", "1"}) == integer(1));
  CHECK(drain(sub) == std::vector<std::string>{event("del"), event("del")});
}

TEST_CASE("expired: a thousand keys, each reported once, in deadline order") {
  ServerProcess server = ServerProcess::lawnkv({"--notify-keyspace-events", "Ex"});
  Client admin(server.port());
  RawClient sub(server.port());
  sub.send(encode_command({"SUBSCRIBE", "__keyevent@0__:expired"}));
  sub.read_reply();

  constexpr int kKeys = 1000;
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> ttl(1000, 5000);
  for (int i = 0; i < kKeys; ++i)
    admin.append(Argv{"SET", "key:" + std::to_string(i), "v", "PX", std::to_string(ttl(rng))});
  for (int i = 0; i < kKeys; ++i) REQUIRE(admin.read() == status("OK"));
  std::map<std::string, long long> deadline;
  for (int i = 0; i < kKeys; ++i) admin.append(Argv{"PEXPIRETIME", "key:" + std::to_string(i)});
  for (int i = 0; i < kKeys; ++i) deadline["key:" + std::to_string(i)] = std::stoll(admin.read().text);

  advance(admin, 5001);
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (int i = 0; i < kKeys; ++i) {
    std::string key = payload(sub.read_reply());
    CHECK_MESSAGE(seen.insert(key).second, key << " reported twice");
    order.push_back(key);
  }
  CHECK(drain(sub).empty());
  CHECK(admin.integer({"DBSIZE"}) == 0);
  for (size_t i = 1; i < order.size(); ++i) {
    CHECK_MESSAGE(deadline[order[i - 1]] <= deadline[order[i]],
                  order[i - 1] << " (" << deadline[order[i - 1]] << ") reported before " << order[i] << " ("
                               << deadline[order[i]] << ")");
  }
}

}  // namespace lawnkv::itest
