#pragma once
// Keyspace notifications: turns "command X did event E to key K in db D" into
// messages on __keyspace@D__:K (message E) and __keyevent@D__:E (message K),
// in that order, as notify-keyspace-events selects (Redis's
// notifyKeyspaceEvent). Commands call notify() for every event Redis 7.0
// emits; when the class is not enabled it costs one test, and when nobody is
// subscribed to anything no channel name is built.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
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
  // False when no channel or pattern has a subscriber (nothing can be delivered).
  virtual bool has_subscribers() const { return true; }
};

class Notifier final : public store::ExpiryListener {
 public:
  // flags: the live notify-keyspace-events value (EventClass bits), read at
  // every call so that CONFIG SET takes effect at once.
  explicit Notifier(const uint32_t& flags) : flags_(flags) {}
  void set_publisher(Publisher* p) { publisher_ = p; }

  // cls is the event's class (kGeneric, kString, kExpired...): nothing is
  // published unless notify-keyspace-events enables it.
  void notify(uint32_t cls, std::string_view event, std::string_view key, int db) {
    if ((flags_ & cls) == 0 || publisher_ == nullptr) return;
    publish(event, key, db);
  }

  // The `expired` event, when the keyspace deletes a key whose deadline
  // passed, found by the expiry engine or by a lazy lookup (store::ExpiryListener).
  void key_expired(int db, std::string_view key) override { notify(kExpired, "expired", key, db); }
  // Hash fields' TTLs passed: one `hexpired` per hash and reaping pass, as
  // Redis 7.4's active expiry, then `del` if the hash emptied.
  void parts_expired(int db, std::string_view key, std::span<const std::string> parts,
                     bool key_deleted) override {
    notify(kHash, "hexpired", key, db);
    if (key_deleted) notify(kGeneric, "del", key, db);
  }

 private:
  void publish(std::string_view event, std::string_view key, int db);

  const uint32_t& flags_;
  Publisher* publisher_ = nullptr;
};

}  // namespace lawnkv::pubsub
