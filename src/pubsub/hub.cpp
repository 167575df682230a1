#include "pubsub/hub.hpp"

#include <algorithm>

#include "core/glob.hpp"
#include "resp/writer.hpp"

namespace lawnkv::pubsub {

namespace {

bool add(std::vector<Session*>& list, Session* s) {
  if (std::find(list.begin(), list.end(), s) != list.end()) return false;
  list.push_back(s);
  return true;
}

template <class Map>
bool remove(Map& map, std::string_view name, Session* s) {
  auto it = map.find(name);
  if (it == map.end()) return false;
  auto& list = it->second;
  auto pos = std::find(list.begin(), list.end(), s);
  if (pos == list.end()) return false;
  list.erase(pos);
  if (list.empty()) map.erase(it);
  return true;
}

}  // namespace

bool Hub::subscribe(Session& s, std::string_view channel) {
  if (!add(channels_[std::string(channel)], &s)) return false;
  by_session_channels_[&s].emplace(channel);
  ++s.subscribed_channels;
  return true;
}

bool Hub::unsubscribe(Session& s, std::string_view channel) {
  if (!remove(channels_, channel, &s)) return false;
  auto it = by_session_channels_.find(&s);
  it->second.erase(std::string(channel));
  if (it->second.empty()) by_session_channels_.erase(it);
  --s.subscribed_channels;
  return true;
}

bool Hub::psubscribe(Session& s, std::string_view pattern) {
  if (!add(patterns_[std::string(pattern)], &s)) return false;
  by_session_patterns_[&s].emplace(pattern);
  ++s.subscribed_patterns;
  ++pattern_subscriptions_;
  return true;
}

bool Hub::punsubscribe(Session& s, std::string_view pattern) {
  if (!remove(patterns_, pattern, &s)) return false;
  auto it = by_session_patterns_.find(&s);
  it->second.erase(std::string(pattern));
  if (it->second.empty()) by_session_patterns_.erase(it);
  --s.subscribed_patterns;
  --pattern_subscriptions_;
  return true;
}

void Hub::unsubscribe_all(Session& s) {
  for (const std::string& c : channels_of(s)) unsubscribe(s, c);
  for (const std::string& p : patterns_of(s)) punsubscribe(s, p);
}

std::vector<std::string> Hub::channels_of(const Session& s) const {
  auto it = by_session_channels_.find(&s);
  if (it == by_session_channels_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<std::string> Hub::patterns_of(const Session& s) const {
  auto it = by_session_patterns_.find(&s);
  if (it == by_session_patterns_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

size_t Hub::publish(std::string_view channel, std::string_view message) {
  size_t receivers = 0;
  std::string frame;
  if (auto it = channels_.find(channel); it != channels_.end()) {
    for (Session* s : it->second) {
      frame.clear();
      resp::Writer w(frame, s->protocol);
      w.push(3);
      w.bulk("message");
      w.bulk(channel);
      w.bulk(message);
      s->deliver(frame);
      ++receivers;
    }
  }
  for (auto& [pattern, sessions] : patterns_) {
    if (!glob_match(pattern, channel)) continue;
    for (Session* s : sessions) {
      frame.clear();
      resp::Writer w(frame, s->protocol);
      w.push(4);
      w.bulk("pmessage");
      w.bulk(pattern);
      w.bulk(channel);
      w.bulk(message);
      s->deliver(frame);
      ++receivers;
    }
  }
  return receivers;
}

std::vector<std::string> Hub::active_channels(std::string_view pattern) const {
  std::vector<std::string> out;
  for (const auto& [name, subs] : channels_)
    if (pattern.empty() || glob_match(pattern, name)) out.push_back(name);
  return out;
}

size_t Hub::subscribers(std::string_view channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.size();
}

}  // namespace lawnkv::pubsub
