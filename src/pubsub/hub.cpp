#include "pubsub/hub.hpp"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "core/glob.hpp"
#include "core/numbers.hpp"

namespace lawnkv::pubsub {

namespace {

// A message frame in both protocols: they differ only in the header byte
// ('*' array in RESP2, '>' push in RESP3), so it is written once.
class Frame {
 public:
  // Written at once into a buffer of its size: one of these per keyspace
  // event, so it is worth the few lines over resp::Writer.
  Frame(std::initializer_list<std::string_view> parts) {
    size_t size = 4;
    for (std::string_view part : parts) size += part.size() + 5 + digits(part.size());
    resp2_.resize(size);
    char* p = resp2_.data();
    p = header(p, '*', parts.size());
    for (std::string_view part : parts) {
      p = header(p, '$', part.size());
      std::memcpy(p, part.data(), part.size());
      p += part.size();
      *p++ = '\r';
      *p++ = '\n';
    }
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
  static size_t digits(size_t n) {
    size_t d = 1;
    while (n >= 10) {
      n /= 10;
      ++d;
    }
    return d;
  }
  // "<type><n>\r\n" at p; returns the end.
  static char* header(char* p, char type, size_t n) {
    *p++ = type;
    p += ll_to_chars(p, static_cast<long long>(n));
    *p++ = '\r';
    *p++ = '\n';
    return p;
  }

  std::string resp2_, resp3_;
};

}  // namespace

bool Hub::add(Table& table, StringMap<uint64_t>& mine, Subscriber& s, std::string_view name) {
  if (!mine.emplace(std::string(name), next_seq_).second) return false;
  ++next_seq_;
  auto it = table.find(name);
  if (it == table.end()) it = table.emplace(std::string(name), std::vector<Subscriber*>()).first;
  it->second.push_back(&s);
  return true;
}

bool Hub::remove(Table& table, StringMap<uint64_t>& mine, Subscriber& s, std::string_view name) {
  auto own = mine.find(name);
  if (own == mine.end()) return false;
  mine.erase(own);
  auto it = table.find(name);
  auto& list = it->second;
  list.erase(std::find(list.begin(), list.end(), &s));
  if (list.empty()) table.erase(it);
  return true;
}

bool Hub::remove_subscription(Table& table, StringMap<uint64_t> Subscriptions::*mine, size_t Subscriber::*count,
                              Subscriber& s, std::string_view name) {
  auto it = by_session_.find(&s);
  if (it == by_session_.end() || !remove(table, it->second.*mine, s, name)) return false;
  --(s.*count);
  if (!s.subscribed()) by_session_.erase(it);
  return true;
}

bool Hub::subscribe(Subscriber& s, std::string_view channel) {
  if (!add(channels_, by_session_[&s].channels, s, channel)) return false;
  ++s.channels_;
  return true;
}

bool Hub::unsubscribe(Subscriber& s, std::string_view channel) {
  return remove_subscription(channels_, &Subscriptions::channels, &Subscriber::channels_, s, channel);
}

bool Hub::psubscribe(Subscriber& s, std::string_view pattern) {
  if (!add(patterns_, by_session_[&s].patterns, s, pattern)) return false;
  ++s.patterns_;
  return true;
}

bool Hub::punsubscribe(Subscriber& s, std::string_view pattern) {
  return remove_subscription(patterns_, &Subscriptions::patterns, &Subscriber::patterns_, s, pattern);
}

bool Hub::ssubscribe(Subscriber& s, std::string_view channel) {
  if (!add(shard_channels_, by_session_[&s].shard_channels, s, channel)) return false;
  ++s.shard_channels_;
  return true;
}

bool Hub::sunsubscribe(Subscriber& s, std::string_view channel) {
  return remove_subscription(shard_channels_, &Subscriptions::shard_channels, &Subscriber::shard_channels_, s, channel);
}

void Hub::remove_from_all(Table& table, const StringMap<uint64_t>& mine, const Subscriber& s) {
  for (const auto& [name, seq] : mine) {
    auto it = table.find(name);
    auto& list = it->second;
    list.erase(std::find(list.begin(), list.end(), &s));
    if (list.empty()) table.erase(it);
  }
}

void Hub::unsubscribe_all(Subscriber& s) {
  auto it = by_session_.find(&s);
  if (it == by_session_.end()) return;
  remove_from_all(channels_, it->second.channels, s);
  remove_from_all(patterns_, it->second.patterns, s);
  remove_from_all(shard_channels_, it->second.shard_channels, s);
  s.channels_ = 0;
  s.patterns_ = 0;
  s.shard_channels_ = 0;
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

std::vector<std::string> Hub::of(const Subscriber& s, StringMap<uint64_t> Subscriptions::*mine) const {
  auto it = by_session_.find(&s);
  return it == by_session_.end() ? std::vector<std::string>() : in_order(it->second.*mine);
}

std::vector<std::string> Hub::channels_of(const Subscriber& s) const { return of(s, &Subscriptions::channels); }

std::vector<std::string> Hub::patterns_of(const Subscriber& s) const { return of(s, &Subscriptions::patterns); }

std::vector<std::string> Hub::shard_channels_of(const Subscriber& s) const {
  return of(s, &Subscriptions::shard_channels);
}

size_t Hub::deliver_direct(const Table& table, std::string_view kind, std::string_view channel,
                           std::string_view message) {
  auto it = table.find(channel);
  if (it == table.end()) return 0;
  Frame frame{kind, channel, message};
  // A copy: a delivery may close its subscriber, which erases it (and maybe
  // the channel) from the table. One subscriber (a keyspace event's usual
  // listener) needs no vector.
  if (it->second.size() == 1) {
    Subscriber* s = it->second.front();
    s->deliver(frame.for_protocol(s->protocol_version()));
    return 1;
  }
  const std::vector<Subscriber*> targets = it->second;
  for (Subscriber* s : targets) s->deliver(frame.for_protocol(s->protocol_version()));
  return targets.size();
}

size_t Hub::publish(std::string_view channel, std::string_view message) {
  // Every receiver is chosen before the first delivery: a delivery may close
  // its subscriber, which erases it (and maybe a channel or a pattern) from
  // the tables. As in Redis, where such a client is freed later, the
  // deliveries of this publish still count.
  std::vector<std::pair<std::string, std::vector<Subscriber*>>> matched;
  for (const auto& [pattern, subs] : patterns_)
    if (glob_match(pattern, channel)) matched.emplace_back(pattern, subs);

  size_t receivers = deliver_direct(channels_, "message", channel, message);
  for (const auto& [pattern, targets] : matched) {
    Frame frame{"pmessage", pattern, channel, message};
    for (Subscriber* s : targets) s->deliver(frame.for_protocol(s->protocol_version()));
    receivers += targets.size();
  }
  return receivers;
}

size_t Hub::spublish(std::string_view channel, std::string_view message) {
  return deliver_direct(shard_channels_, "smessage", channel, message);
}

std::vector<std::string> Hub::names(const Table& table, const std::string_view* pattern) {
  std::vector<std::string> out;
  if (!pattern) out.reserve(table.size());
  for (const auto& [name, subs] : table)
    if (!pattern || glob_match(*pattern, name)) out.push_back(name);
  return out;
}

std::vector<std::string> Hub::active_channels() const { return names(channels_, nullptr); }

std::vector<std::string> Hub::active_channels(std::string_view pattern) const { return names(channels_, &pattern); }

std::vector<std::string> Hub::active_shard_channels() const { return names(shard_channels_, nullptr); }

std::vector<std::string> Hub::active_shard_channels(std::string_view pattern) const {
  return names(shard_channels_, &pattern);
}

size_t Hub::subscribers(std::string_view channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.size();
}

size_t Hub::shard_subscribers(std::string_view channel) const {
  auto it = shard_channels_.find(channel);
  return it == shard_channels_.end() ? 0 : it->second.size();
}

}  // namespace lawnkv::pubsub
