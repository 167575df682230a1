#include "pubsub/hub.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "core/glob.hpp"
#include "resp/writer.hpp"

namespace lawnkv::pubsub {

namespace {

// A message frame in both protocols: they differ only in the header byte
// ('*' array in RESP2, '>' push in RESP3), so it is written once.
class Frame {
 public:
  Frame(std::initializer_list<std::string_view> parts) {
    resp::Writer w(resp2_, 2);
    w.array(parts.size());
    for (std::string_view part : parts) w.bulk(part);
  }
  std::string_view for_protocol(int protocol) {
    if (protocol == 2) return resp2_;
    if (resp3_.empty()) {
      resp3_ = resp2_;
      resp3_[0] = '>';
    }
    return resp3_;
  }

 private:
  std::string resp2_, resp3_;
};

}  // namespace

bool Hub::add(StringMap<std::vector<Subscriber*>>& table, StringMap<uint64_t>& mine, Subscriber& s,
              std::string_view name) {
  if (!mine.emplace(std::string(name), next_seq_).second) return false;
  ++next_seq_;
  auto it = table.find(name);
  if (it == table.end()) it = table.emplace(std::string(name), std::vector<Subscriber*>()).first;
  it->second.push_back(&s);
  return true;
}

bool Hub::remove(StringMap<std::vector<Subscriber*>>& table, StringMap<uint64_t>& mine, Subscriber& s,
                 std::string_view name) {
  auto own = mine.find(name);
  if (own == mine.end()) return false;
  mine.erase(own);
  auto it = table.find(name);
  auto& list = it->second;
  list.erase(std::find(list.begin(), list.end(), &s));
  if (list.empty()) table.erase(it);
  return true;
}

bool Hub::subscribe(Subscriber& s, std::string_view channel) {
  if (!add(channels_, by_session_[&s].channels, s, channel)) return false;
  ++s.channels_;
  return true;
}

bool Hub::unsubscribe(Subscriber& s, std::string_view channel) {
  auto it = by_session_.find(&s);
  if (it == by_session_.end() || !remove(channels_, it->second.channels, s, channel)) return false;
  --s.channels_;
  if (!s.subscribed()) by_session_.erase(it);
  return true;
}

bool Hub::psubscribe(Subscriber& s, std::string_view pattern) {
  if (!add(patterns_, by_session_[&s].patterns, s, pattern)) return false;
  ++s.patterns_;
  return true;
}

bool Hub::punsubscribe(Subscriber& s, std::string_view pattern) {
  auto it = by_session_.find(&s);
  if (it == by_session_.end() || !remove(patterns_, it->second.patterns, s, pattern)) return false;
  --s.patterns_;
  if (!s.subscribed()) by_session_.erase(it);
  return true;
}

void Hub::unsubscribe_all(Subscriber& s) {
  auto it = by_session_.find(&s);
  if (it == by_session_.end()) return;
  Subscriptions& mine = it->second;
  for (auto& [channel, seq] : mine.channels) {
    auto& list = channels_.find(channel)->second;
    list.erase(std::find(list.begin(), list.end(), &s));
    if (list.empty()) channels_.erase(channel);
  }
  for (auto& [pattern, seq] : mine.patterns) {
    auto& list = patterns_.find(pattern)->second;
    list.erase(std::find(list.begin(), list.end(), &s));
    if (list.empty()) patterns_.erase(pattern);
  }
  s.channels_ = 0;
  s.patterns_ = 0;
  by_session_.erase(it);
}

std::vector<std::string> Hub::in_order(const StringMap<uint64_t>& names) {
  std::vector<std::pair<uint64_t, const std::string*>> order;
  order.reserve(names.size());
  for (const auto& [name, seq] : names) order.emplace_back(seq, &name);
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const auto& [seq, name] : order) out.push_back(*name);
  return out;
}

std::vector<std::string> Hub::channels_of(const Subscriber& s) const {
  auto it = by_session_.find(&s);
  return it == by_session_.end() ? std::vector<std::string>() : in_order(it->second.channels);
}

std::vector<std::string> Hub::patterns_of(const Subscriber& s) const {
  auto it = by_session_.find(&s);
  return it == by_session_.end() ? std::vector<std::string>() : in_order(it->second.patterns);
}

size_t Hub::publish(std::string_view channel, std::string_view message) {
  // Every receiver is chosen before the first delivery: a delivery may close
  // its subscriber, which erases it (and maybe a channel or a pattern) from
  // the tables. As in Redis, where such a client is freed later, the
  // deliveries of this publish still count.
  std::vector<Subscriber*> direct;
  if (auto it = channels_.find(channel); it != channels_.end()) direct = it->second;
  std::vector<std::pair<std::string, std::vector<Subscriber*>>> matched;
  for (const auto& [pattern, subs] : patterns_)
    if (glob_match(pattern, channel)) matched.emplace_back(pattern, subs);

  size_t receivers = direct.size();
  if (!direct.empty()) {
    Frame frame{"message", channel, message};
    for (Subscriber* s : direct) s->deliver(frame.for_protocol(s->protocol_version()));
  }
  for (const auto& [pattern, targets] : matched) {
    Frame frame{"pmessage", pattern, channel, message};
    for (Subscriber* s : targets) s->deliver(frame.for_protocol(s->protocol_version()));
    receivers += targets.size();
  }
  return receivers;
}

std::vector<std::string> Hub::active_channels() const {
  std::vector<std::string> out;
  out.reserve(channels_.size());
  for (const auto& [name, subs] : channels_) out.push_back(name);
  return out;
}

std::vector<std::string> Hub::active_channels(std::string_view pattern) const {
  std::vector<std::string> out;
  for (const auto& [name, subs] : channels_)
    if (glob_match(pattern, name)) out.push_back(name);
  return out;
}

size_t Hub::subscribers(std::string_view channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.size();
}

}  // namespace lawnkv::pubsub
