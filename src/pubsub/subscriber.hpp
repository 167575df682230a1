#pragma once
// What the hub needs of a subscribed client: the protocol its frames are
// written in and a way to hand it one. The hub keeps each subscriber's
// subscription counts here (a SUBSCRIBE reply carries them, and a RESP2
// client in subscribed mode is restricted), so reading them costs no lookup.

#include <cstddef>
#include <string_view>

namespace lawnkv::pubsub {

class Hub;

class Subscriber {
 public:
  virtual ~Subscriber() = default;

  // 2 or 3: messages are RESP2 arrays or RESP3 push frames.
  virtual int protocol_version() const = 0;
  // Appends a complete frame to the client's output. It may close the client
  // (an output buffer limit), which unsubscribes it from everything.
  virtual void deliver(std::string_view frame) = 0;

  size_t subscribed_channels() const { return channels_; }
  size_t subscribed_patterns() const { return patterns_; }
  size_t subscribed_shard_channels() const { return shard_channels_; }
  // Redis's CLIENT_PUBSUB: anything at all, shard channels included.
  bool subscribed() const { return channels_ + patterns_ + shard_channels_ > 0; }

 private:
  friend class Hub;
  size_t channels_ = 0;
  size_t patterns_ = 0;
  size_t shard_channels_ = 0;
};

}  // namespace lawnkv::pubsub
