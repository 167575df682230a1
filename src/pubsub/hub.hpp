#pragma once
// Pub/Sub channels and patterns: who is subscribed to what, and delivery of
// published messages as RESP2 arrays or RESP3 push frames.

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "commands/session.hpp"
#include "pubsub/notifier.hpp"

namespace lawnkv::pubsub {

class Hub final : public Publisher {
 public:
  // Each returns false when nothing changed (already / not subscribed).
  bool subscribe(Session& s, std::string_view channel);
  bool unsubscribe(Session& s, std::string_view channel);
  bool psubscribe(Session& s, std::string_view pattern);
  bool punsubscribe(Session& s, std::string_view pattern);
  // Everything s is subscribed to (disconnect, RESET), without replies.
  void unsubscribe_all(Session& s);

  std::vector<std::string> channels_of(const Session& s) const;
  std::vector<std::string> patterns_of(const Session& s) const;

  size_t publish(std::string_view channel, std::string_view message) override;

  // PUBSUB CHANNELS / NUMSUB / NUMPAT
  std::vector<std::string> active_channels(std::string_view pattern) const;  // "" = all
  size_t subscribers(std::string_view channel) const;
  size_t pattern_count() const { return pattern_subscriptions_; }

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  StringMap<std::vector<Session*>> channels_;   // channel -> subscribers, in order
  StringMap<std::vector<Session*>> patterns_;   // pattern -> subscribers, in order
  std::unordered_map<const Session*, std::unordered_set<std::string>> by_session_channels_;
  std::unordered_map<const Session*, std::unordered_set<std::string>> by_session_patterns_;
  size_t pattern_subscriptions_ = 0;
};

}  // namespace lawnkv::pubsub
