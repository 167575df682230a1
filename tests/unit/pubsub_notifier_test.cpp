// Keyspace notifications (src/pubsub/notifier.hpp): which events
// notify-keyspace-events lets through, on which channels, in which order.

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "pubsub/notifier.hpp"

using namespace lawnkv::pubsub;

namespace {

class Recorder final : public Publisher {
 public:
  std::vector<std::pair<std::string, std::string>> published;
  bool anyone = true;
  size_t publish(std::string_view channel, std::string_view message) override {
    published.emplace_back(channel, message);
    return 1;
  }
  bool has_subscribers() const override { return anyone; }
};

using Events = std::vector<std::pair<std::string, std::string>>;

}  // namespace

TEST_CASE("notifier: keyspace channel first, then keyevent") {
  uint32_t flags = kKeyspaceChannel | kKeyeventChannel | kAll;
  Notifier n(flags);
  Recorder r;
  n.set_publisher(&r);
  n.notify(kGeneric, "del", "k", 0);
  n.notify(kString, "set", "key with space", 15);
  CHECK(r.published == Events{{"__keyspace@0__:k", "del"},
                              {"__keyevent@0__:del", "k"},
                              {"__keyspace@15__:key with space", "set"},
                              {"__keyevent@15__:set", "key with space"}});
}

TEST_CASE("notifier: the class and the channel kinds must both be enabled") {
  uint32_t flags = 0;
  Notifier n(flags);
  Recorder r;
  n.set_publisher(&r);
  n.notify(kGeneric, "del", "k", 0);
  CHECK(r.published.empty());

  flags = kGeneric;  // a class but no channel kind: nothing
  n.notify(kGeneric, "del", "k", 0);
  CHECK(r.published.empty());

  flags = kKeyeventChannel | kGeneric;  // read live: no new Notifier needed
  n.notify(kGeneric, "del", "k", 1);
  n.notify(kString, "set", "k", 1);
  CHECK(r.published == Events{{"__keyevent@1__:del", "k"}});

  r.published.clear();
  flags = kKeyspaceChannel | kAll;  // A holds neither n nor m
  n.notify(kNew, "new", "k", 0);
  n.notify(kKeyMiss, "keymiss", "k", 0);
  n.notify(kExpired, "expired", "k", 0);
  CHECK(r.published == Events{{"__keyspace@0__:k", "expired"}});

  r.published.clear();
  flags = kKeyspaceChannel | kNew;
  n.notify(kNew, "new", "k", 0);
  CHECK(r.published == Events{{"__keyspace@0__:k", "new"}});
}

TEST_CASE("notifier: key_expired publishes `expired` in class x") {
  uint32_t flags = kKeyeventChannel | kExpired;
  Notifier n(flags);
  Recorder r;
  n.set_publisher(&r);
  n.key_expired(3, "gone");
  CHECK(r.published == Events{{"__keyevent@3__:expired", "gone"}});
  flags = kKeyeventChannel | kGeneric;
  n.key_expired(3, "gone");
  CHECK(r.published.size() == 1);
}

TEST_CASE("notifier: nothing is published while nobody is subscribed, or with no publisher") {
  uint32_t flags = kKeyspaceChannel | kKeyeventChannel | kAll;
  Notifier n(flags);
  n.notify(kGeneric, "del", "k", 0);  // no publisher yet: ignored
  Recorder r;
  r.anyone = false;
  n.set_publisher(&r);
  n.notify(kGeneric, "del", "k", 0);
  CHECK(r.published.empty());
}
