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
// Counts follow Redis: a SUBSCRIBE reply carries the session's channels plus
// patterns; PUBSUB NUMPAT is the number of distinct patterns with at least
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
  // Everything s is subscribed to (disconnect, RESET), without replies.
  void unsubscribe_all(Subscriber& s);

  // What s is subscribed to, in the order it subscribed.
  std::vector<std::string> channels_of(const Subscriber& s) const;
  std::vector<std::string> patterns_of(const Subscriber& s) const;

  // Delivers message to the channel's subscribers, then to the subscribers of
  // every matching pattern; returns how many deliveries were made (a session
  // subscribed to the channel and to two matching patterns counts three).
  size_t publish(std::string_view channel, std::string_view message) override;
  bool has_subscribers() const override { return !channels_.empty() || !patterns_.empty(); }

  // PUBSUB CHANNELS / NUMSUB / NUMPAT
  // Channels with at least one subscriber; with a pattern, those it matches.
  std::vector<std::string> active_channels() const;
  std::vector<std::string> active_channels(std::string_view pattern) const;
  size_t subscribers(std::string_view channel) const;
  size_t pattern_count() const { return patterns_.size(); }
  // INFO pubsub_channels: channels with at least one subscriber.
  size_t channel_count() const { return channels_.size(); }

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
  };

  // Adds s to table[name] and to mine; false if it was there.
  bool add(StringMap<std::vector<Subscriber*>>& table, StringMap<uint64_t>& mine, Subscriber& s,
           std::string_view name);
  // Removes s from table[name] (dropping the name when it empties) and from mine.
  bool remove(StringMap<std::vector<Subscriber*>>& table, StringMap<uint64_t>& mine, Subscriber& s,
              std::string_view name);
  static std::vector<std::string> in_order(const StringMap<uint64_t>& names);

  StringMap<std::vector<Subscriber*>> channels_;   // channel -> subscribers, in order
  StringMap<std::vector<Subscriber*>> patterns_;   // pattern -> subscribers, in order
  std::unordered_map<const Subscriber*, Subscriptions> by_session_;
  uint64_t next_seq_ = 0;
};

}  // namespace lawnkv::pubsub
