// The Pub/Sub hub (src/pubsub/hub.hpp): subscriptions, counts, delivery
// order and frames, pattern matching, and a subscriber that is closed (and
// so unsubscribed) while a message is being delivered.

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "pubsub/hub.hpp"

using lawnkv::pubsub::Hub;
using lawnkv::pubsub::Subscriber;

namespace {

// A subscriber that records what it is delivered; on_deliver runs after each
// delivery (to act as the server does when an output limit is crossed).
class FakeSubscriber final : public Subscriber {
 public:
  explicit FakeSubscriber(std::string name_tag, int proto = 2) : tag(std::move(name_tag)), protocol(proto) {}

  std::string tag;
  int protocol;
  std::vector<std::string> frames;
  std::function<void()> on_deliver;

  int protocol_version() const override { return protocol; }
  void deliver(std::string_view frame) override {
    frames.emplace_back(frame);
    if (on_deliver) on_deliver();
  }
};

std::string message(std::string_view channel, std::string_view msg, char head = '*') {
  return std::string(1, head) + "3\r\n$7\r\nmessage\r\n$" + std::to_string(channel.size()) + "\r\n" +
         std::string(channel) + "\r\n$" + std::to_string(msg.size()) + "\r\n" + std::string(msg) + "\r\n";
}

std::string pmessage(std::string_view pattern, std::string_view channel, std::string_view msg) {
  return "*4\r\n$8\r\npmessage\r\n$" + std::to_string(pattern.size()) + "\r\n" + std::string(pattern) + "\r\n$" +
         std::to_string(channel.size()) + "\r\n" + std::string(channel) + "\r\n$" + std::to_string(msg.size()) +
         "\r\n" + std::string(msg) + "\r\n";
}

}  // namespace

TEST_CASE("hub: subscribe and unsubscribe keep the session's counts") {
  Hub hub;
  FakeSubscriber s("s");
  CHECK(hub.subscribe(s, "a"));
  CHECK(hub.subscribe(s, "b"));
  CHECK_FALSE(hub.subscribe(s, "a"));
  CHECK(hub.psubscribe(s, "a*"));
  CHECK_FALSE(hub.psubscribe(s, "a*"));
  CHECK(s.subscribed_channels() == 2);
  CHECK(s.subscribed_patterns() == 1);
  CHECK(s.subscribed());

  CHECK_FALSE(hub.unsubscribe(s, "zz"));
  CHECK_FALSE(hub.unsubscribe(s, "a*"));  // a pattern is not a channel
  CHECK(hub.unsubscribe(s, "a"));
  CHECK(s.subscribed_channels() == 1);
  CHECK(hub.punsubscribe(s, "a*"));
  CHECK_FALSE(hub.punsubscribe(s, "a*"));
  CHECK(hub.unsubscribe(s, "b"));
  CHECK_FALSE(s.subscribed());
  CHECK(hub.channels_of(s).empty());
  CHECK(hub.patterns_of(s).empty());
  CHECK_FALSE(hub.has_subscribers());
}

TEST_CASE("hub: a session's subscriptions are listed in the order they were made") {
  Hub hub;
  FakeSubscriber s("s");
  for (const char* c : {"z", "a", "m", "b"}) hub.subscribe(s, c);
  hub.unsubscribe(s, "m");
  hub.subscribe(s, "m");
  CHECK(hub.channels_of(s) == std::vector<std::string>{"z", "a", "b", "m"});
  for (const char* p : {"p2", "p1"}) hub.psubscribe(s, p);
  CHECK(hub.patterns_of(s) == std::vector<std::string>{"p2", "p1"});
}

TEST_CASE("hub: PUBSUB counts") {
  Hub hub;
  FakeSubscriber a("a"), b("b");
  hub.subscribe(a, "news");
  hub.subscribe(b, "news");
  hub.subscribe(b, "sport");
  hub.psubscribe(a, "n*");
  hub.psubscribe(b, "n*");
  hub.psubscribe(b, "s*");
  CHECK(hub.subscribers("news") == 2);
  CHECK(hub.subscribers("sport") == 1);
  CHECK(hub.subscribers("n*") == 0);  // pattern subscriptions are not counted
  CHECK(hub.subscribers("none") == 0);
  // Redis 7.0: the number of distinct patterns, not of pattern subscriptions.
  CHECK(hub.pattern_count() == 2);
  CHECK(hub.channel_count() == 2);
  auto all = hub.active_channels();
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<std::string>{"news", "sport"});
  CHECK(hub.active_channels("s*") == std::vector<std::string>{"sport"});
  CHECK(hub.active_channels("x*").empty());

  hub.unsubscribe_all(b);
  CHECK(b.subscribed_channels() == 0);
  CHECK(b.subscribed_patterns() == 0);
  CHECK(hub.subscribers("news") == 1);
  CHECK(hub.subscribers("sport") == 0);
  CHECK(hub.active_channels() == std::vector<std::string>{"news"});
  CHECK(hub.pattern_count() == 1);
  hub.unsubscribe_all(b);  // nothing left: no effect
  hub.unsubscribe_all(a);
  CHECK_FALSE(hub.has_subscribers());
  CHECK(hub.pattern_count() == 0);
}

TEST_CASE("hub: shard channels are a namespace of their own") {
  Hub hub;
  FakeSubscriber shard("shard", 3), plain("plain"), pat("pat");
  CHECK(hub.ssubscribe(shard, "news"));
  CHECK_FALSE(hub.ssubscribe(shard, "news"));
  CHECK(hub.ssubscribe(shard, "b"));
  hub.subscribe(plain, "news");
  hub.psubscribe(pat, "*");
  CHECK(shard.subscribed_shard_channels() == 2);
  CHECK(shard.subscribed_channels() == 0);
  CHECK(shard.subscribed());
  CHECK(hub.shard_channels_of(shard) == std::vector<std::string>{"news", "b"});
  CHECK(hub.shard_subscribers("news") == 1);
  CHECK(hub.subscribers("news") == 1);
  CHECK(hub.shard_channel_count() == 2);
  CHECK(hub.active_shard_channels("n*") == std::vector<std::string>{"news"});

  // SPUBLISH reaches the shard channel alone, PUBLISH never reaches it.
  CHECK(hub.spublish("news", "s") == 1);
  CHECK(hub.publish("news", "p") == 2);
  CHECK(shard.frames == std::vector<std::string>{">3\r\n$8\r\nsmessage\r\n$4\r\nnews\r\n$1\r\ns\r\n"});
  CHECK(plain.frames == std::vector<std::string>{message("news", "p")});
  CHECK(pat.frames.size() == 1);

  CHECK_FALSE(hub.sunsubscribe(plain, "news"));
  CHECK(hub.sunsubscribe(shard, "news"));
  CHECK(hub.shard_subscribers("news") == 0);
  CHECK(hub.spublish("news", "s") == 0);
  hub.unsubscribe_all(shard);
  CHECK_FALSE(shard.subscribed());
  CHECK(hub.shard_channel_count() == 0);
  CHECK(hub.active_shard_channels().empty());
}

TEST_CASE("hub: delivery order, frames and receiver count") {
  Hub hub;
  FakeSubscriber first("first"), second("second", 3), pat("pat");
  std::vector<std::string> order;
  for (FakeSubscriber* s : {&first, &second, &pat}) s->on_deliver = [&order, s] { order.push_back(s->tag); };
  hub.psubscribe(pat, "n?ws");  // before the channel subscribers, delivered after them
  hub.subscribe(second, "news");
  hub.subscribe(first, "news");
  hub.psubscribe(first, "*");

  CHECK(hub.publish("news", "hi") == 4);
  // Channel subscribers in the order they subscribed, then pattern
  // subscribers (two patterns: their relative order is unspecified).
  REQUIRE(order.size() == 4);
  CHECK(order[0] == "second");
  CHECK(order[1] == "first");
  CHECK(second.frames == std::vector<std::string>{message("news", "hi", '>')});
  CHECK(pat.frames == std::vector<std::string>{pmessage("n?ws", "news", "hi")});
  REQUIRE(first.frames.size() == 2);
  CHECK(first.frames[0] == message("news", "hi"));
  CHECK(first.frames[1] == pmessage("*", "news", "hi"));

  CHECK(hub.publish("nobody", "x") == 1);  // "*" only
  CHECK(hub.publish("", "x") == 0);        // "*" does not match the empty channel (Redis's quirk)
  CHECK(hub.publish("news", std::string("\0\r\n", 3)) == 4);
  CHECK(second.frames.back() == message("news", std::string("\0\r\n", 3), '>'));
}

TEST_CASE("hub: patterns match as Redis's glob does") {
  struct Case {
    const char* pattern;
    const char* channel;
    bool delivered;
  };
  const Case cases[] = {
      {"h?llo", "hello", true},       {"h?llo", "hllo", false},       {"h*llo", "hllo", true},
      {"h*llo", "heeeello", true},    {"h[ae]llo", "hallo", true},    {"h[ae]llo", "hillo", false},
      {"h[^e]llo", "hallo", true},    {"h[^e]llo", "hello", false},   {"h[a-b]llo", "hbllo", true},
      {"h[a-b]llo", "hcllo", false},  {"h\\*llo", "h*llo", true},     {"h\\*llo", "hello", false},
      {"__keyevent@*__:expired", "__keyevent@0__:expired", true},
      {"__keyevent@*__:expired", "__keyspace@0__:expired", false},
      {"__key*__:*", "__keyspace@12__:k", true},
      {"HELLO", "hello", false},  // case matters
      {"", "", true},             {"*", "", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.pattern);
    CAPTURE(c.channel);
    Hub hub;
    FakeSubscriber s("s");
    hub.psubscribe(s, c.pattern);
    CHECK(hub.publish(c.channel, "m") == (c.delivered ? 1u : 0u));
    if (c.delivered) CHECK(s.frames == std::vector<std::string>{pmessage(c.pattern, c.channel, "m")});
  }
}

TEST_CASE("hub: a subscriber closed during delivery is unsubscribed safely") {
  // The server closes a subscriber whose output crosses its limit inside
  // deliver(), and closing unsubscribes it from everything: the lists being
  // walked change under publish().
  Hub hub;
  FakeSubscriber a("a"), victim("victim"), c("c");
  victim.on_deliver = [&] { hub.unsubscribe_all(victim); };
  hub.subscribe(a, "ch");
  hub.subscribe(victim, "ch");
  hub.subscribe(c, "ch");
  hub.psubscribe(victim, "c*");
  hub.psubscribe(c, "c*");
  hub.psubscribe(victim, "ch*");  // a pattern that empties and is erased mid-publish

  CHECK(hub.publish("ch", "m") == 6);  // every delivery made counts, as in Redis
  CHECK(a.frames.size() == 1);
  CHECK(c.frames.size() == 2);
  CHECK_FALSE(victim.subscribed());
  CHECK(hub.subscribers("ch") == 2);
  CHECK(hub.pattern_count() == 1);

  CHECK(hub.publish("ch", "again") == 3);
  CHECK(victim.frames.size() == 3);  // the deliveries of the first publish only
}
