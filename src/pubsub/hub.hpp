#pragma once
// Pub/Sub channels and patterns: who is subscribed to what, and delivery of
// published messages as RESP2 arrays or RESP3 push frames.
//
// Delivery order is Redis 7.0's: the channel's subscribers in the order they
// subscribed, then, for every pattern that matches the channel, that
// pattern's subscribers in the order they subscribed (the order of the
// patterns among themselves is unspecified, as in Redis, where it is a hash
// table's).
//
// A delivery may close its subscriber (client-output-buffer-limit), and
// closing unsubscribes it from everything: publish() chooses every receiver
// before the first delivery and walks copies, so the hub may change under
// it. A closed subscriber stays in memory until after publish() has
// returned (the server frees a connection in its close callback) and
// ignores frames delivered while it is closing.
//
// Shard channels (Redis 7.0's sharded Pub/Sub, SSUBSCRIBE / SPUBLISH) are a
// namespace of their own, served here as one shard: a message published to a
// shard channel reaches only that shard channel's subscribers (never a
// channel of the same name, never a pattern) in the order they subscribed.
//
// Counts follow Redis: a SUBSCRIBE reply carries the session's channels plus
// patterns, an SSUBSCRIBE reply its shard channels alone; PUBSUB NUMPAT is the number of distinct patterns with at least
// one subscriber (Redis 7.0 counts pattern dict entries, not subscriptions).

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pubsub/notifier.hpp"
#include "pubsub/subscriber.hpp"

namespace lawnkv::pubsub {

class Hub final : public Publisher {
 public:
  // Each returns false when nothing changed (already / not subscribed).
  bool subscribe(Subscriber& s, std::string_view channel);
  bool unsubscribe(Subscriber& s, std::string_view channel);
  bool psubscribe(Subscriber& s, std::string_view pattern);
  bool punsubscribe(Subscriber& s, std::string_view pattern);
  bool ssubscribe(Subscriber& s, std::string_view channel);
  bool sunsubscribe(Subscriber& s, std::string_view channel);
  // Everything s is subscribed to (disconnect, RESET), without replies.
  void unsubscribe_all(Subscriber& s);

  // What s is subscribed to, in the order it subscribed.
  std::vector<std::string> channels_of(const Subscriber& s) const;
  std::vector<std::string> patterns_of(const Subscriber& s) const;
  std::vector<std::string> shard_channels_of(const Subscriber& s) const;

  // Delivers message to the channel's subscribers, then to the subscribers of
  // every matching pattern; returns how many deliveries were made (a session
  // subscribed to the channel and to two matching patterns counts three).
  size_t publish(std::string_view channel, std::string_view message) override;
  // SPUBLISH: to the shard channel's subscribers alone ("smessage" frames).
  size_t spublish(std::string_view channel, std::string_view message);
  bool has_subscribers() const override { return !channels_.empty() || !patterns_.empty(); }

  // PUBSUB CHANNELS / NUMSUB / NUMPAT
  // Channels with at least one subscriber; with a pattern, those it matches.
  std::vector<std::string> active_channels() const;
  std::vector<std::string> active_channels(std::string_view pattern) const;
  size_t subscribers(std::string_view channel) const;
  size_t pattern_count() const { return patterns_.size(); }
  // INFO pubsub_channels: channels with at least one subscriber.
  size_t channel_count() const { return channels_.size(); }

  // PUBSUB SHARDCHANNELS / SHARDNUMSUB, INFO pubsubshard_channels: the same
  // for shard channels.
  std::vector<std::string> active_shard_channels() const;
  std::vector<std::string> active_shard_channels(std::string_view pattern) const;
  size_t shard_subscribers(std::string_view channel) const;
  size_t shard_channel_count() const { return shard_channels_.size(); }

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  // One session's subscriptions: name -> sequence number of the subscription,
  // so that listing them can give them back in the order they were made.
  struct Subscriptions {
    StringMap<uint64_t> channels;
    StringMap<uint64_t> patterns;
    StringMap<uint64_t> shard_channels;
  };
  using Table = StringMap<std::vector<Subscriber*>>;

  // Adds s to table[name] and to mine; false if it was there.
  bool add(Table& table, StringMap<uint64_t>& mine, Subscriber& s,
           std::string_view name);
  // Removes s from table[name] (dropping the name when it empties) and from mine.
  bool remove(Table& table, StringMap<uint64_t>& mine, Subscriber& s,
              std::string_view name);
  // Drops s from the subscribers of every name in mine.
  static void remove_from_all(Table& table, const StringMap<uint64_t>& mine, const Subscriber& s);
  // Unsubscribes through remove(), forgetting s once nothing is left.
  bool remove_subscription(Table& table, StringMap<uint64_t> Subscriptions::*mine, size_t Subscriber::*count,
                           Subscriber& s, std::string_view name);
  static std::vector<std::string> in_order(const StringMap<uint64_t>& names);
  std::vector<std::string> of(const Subscriber& s, StringMap<uint64_t> Subscriptions::*mine) const;
  // The names of table (those glob pattern matches, when given).
  static std::vector<std::string> names(const Table& table, const std::string_view* pattern);
  // Delivers [kind, channel, message] to table[channel]'s subscribers; how many.
  static size_t deliver_direct(const Table& table, std::string_view kind, std::string_view channel,
                               std::string_view message);

  Table channels_;        // channel -> subscribers, in order
  Table patterns_;        // pattern -> subscribers, in order
  Table shard_channels_;  // shard channel -> subscribers, in order
  std::unordered_map<const Subscriber*, Subscriptions> by_session_;
  uint64_t next_seq_ = 0;
};

}  // namespace lawnkv::pubsub
