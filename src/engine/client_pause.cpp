#include "engine/client_pause.hpp"

#include <algorithm>

#include "engine/table.hpp"

namespace lawnkv {

void ClientPause::pause(Purpose purpose, Type type, int64_t end_ms, int64_t now_ms) {
  Event& e = purposes_[static_cast<size_t>(purpose)];
  if (e.type == Type::kOff) {
    e = {type, end_ms};
  } else {
    e.type = std::max(e.type, type);
    e.end_ms = std::max(e.end_ms, end_ms);
  }
  update(now_ms);
}

void ClientPause::unpause(Purpose purpose, int64_t now_ms) {
  purposes_[static_cast<size_t>(purpose)] = {};
  update(now_ms);
}

bool ClientPause::active(int64_t now_ms) {
  if (type_ != Type::kOff && end_ms_ < now_ms) update(now_ms);
  return type_ != Type::kOff;
}

void ClientPause::update(int64_t now_ms) {
  const Type old = type_;
  type_ = Type::kOff;
  for (Event& e : purposes_) {
    if (e.type != Type::kOff && e.end_ms < now_ms) e = {};
    type_ = std::max(type_, e.type);
  }
  end_ms_ = 0;
  for (const Event& e : purposes_)
    if (e.type == type_ && type_ != Type::kOff) end_ms_ = std::max(end_ms_, e.end_ms);
  if (type_ < old) release_ = true;
}

bool ClientPause::holds(uint32_t flags) const {
  if (type_ == Type::kAll) return true;
  return type_ == Type::kWrite && (flags & (kWrite | kMayReplicate)) != 0;
}

void ClientPause::forget(uint64_t id) {
  const auto it = std::find(waiting_.begin(), waiting_.end(), id);
  if (it != waiting_.end()) waiting_.erase(it);
}

std::vector<uint64_t> ClientPause::take_released() {
  if (!release_) return {};
  release_ = false;
  std::vector<uint64_t> out(waiting_.begin(), waiting_.end());
  waiting_.clear();
  return out;
}

}  // namespace lawnkv
