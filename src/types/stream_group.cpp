#include "types/stream_group.hpp"

namespace lawnkv::types {

bool StreamId::incr() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ms++;
    seq = 0;
    return true;
  }
  seq++;
  return true;
}

bool StreamId::decr() {
  if (seq == 0) {
    if (ms == 0) return false;
    ms--;
    seq = UINT64_MAX;
    return true;
  }
  seq--;
  return true;
}

std::string StreamId::str() const { return std::to_string(ms) + "-" + std::to_string(seq); }

StreamConsumer* StreamGroup::consumer(std::string_view name) const {
  const auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamGroup::consumer_or_create(std::string_view name, int64_t now_ms, bool* created) {
  if (auto* c = consumer(name)) {
    if (created) *created = false;
    return c;
  }
  auto c = std::make_unique<StreamConsumer>();
  c->name = std::string(name);
  c->seen_time = now_ms;
  StreamConsumer* p = c.get();
  consumers.emplace(p->name, std::move(c));
  if (created) *created = true;
  return p;
}

int64_t StreamGroup::delete_consumer(std::string_view name) {
  const auto it = consumers.find(name);
  if (it == consumers.end()) return -1;
  const auto pending = static_cast<int64_t>(it->second->pel.size());
  for (const auto id : it->second->pel) pel.erase(id);
  consumers.erase(it);
  return pending;
}

void StreamGroup::deliver(StreamId id, StreamConsumer* c, int64_t now_ms) {
  auto [it, inserted] = pel.try_emplace(id);
  if (!inserted) it->second.consumer->pel.erase(id);
  it->second = StreamNack{now_ms, 1, c};
  c->pel.insert(id);
}

StreamNack& StreamGroup::claim(StreamId id, StreamConsumer* c) {
  auto [it, inserted] = pel.try_emplace(id);
  if (!inserted && it->second.consumer && it->second.consumer != c) it->second.consumer->pel.erase(id);
  it->second.consumer = c;
  c->pel.insert(id);
  return it->second;
}

bool StreamGroup::ack(StreamId id) {
  const auto it = pel.find(id);
  if (it == pel.end()) return false;
  it->second.consumer->pel.erase(id);
  pel.erase(it);
  return true;
}

}  // namespace lawnkv::types
