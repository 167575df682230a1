#pragma once
// Keyspace notifications: turns "command X did event E to key K in db D" into
// messages on __keyspace@D__:K and __keyevent@D__:E, as notify-keyspace-events
// selects. Commands call notify() for every event Redis 7.0 emits; when the
// class is not enabled it costs one test.

#include <cstdint>
#include <string_view>

#include "pubsub/event_class.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::pubsub {

// Where notifications go: the Pub/Sub hub.
class Publisher {
 public:
  virtual ~Publisher() = default;
  // Delivers message on channel to its subscribers; returns how many got it.
  virtual size_t publish(std::string_view channel, std::string_view message) = 0;
};

class Notifier final : public store::ExpiryListener {
 public:
  explicit Notifier(const uint32_t& flags) : flags_(flags) {}
  void set_publisher(Publisher* p) { publisher_ = p; }

  void notify(uint32_t cls, std::string_view event, std::string_view key, int db) {
    if ((flags_ & cls) == 0 || publisher_ == nullptr) return;
    publish(event, key, db);
  }

  // The `expired` event, when the keyspace reaps a key (store::ExpiryListener).
  void key_expired(int db, std::string_view key) override { notify(kExpired, "expired", key, db); }

 private:
  void publish(std::string_view event, std::string_view key, int db);

  const uint32_t& flags_;  // the live notify-keyspace-events value
  Publisher* publisher_ = nullptr;
};

}  // namespace lawnkv::pubsub
