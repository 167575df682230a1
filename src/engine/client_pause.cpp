#include "engine/client_pause.hpp"

#include <algorithm>

#include "engine/table.hpp"

namespace lawnkv {

void ClientPause::pause(Type type, int64_t end_ms) {
  if (type_ == Type::kOff) {
    type_ = type;
    end_ms_ = end_ms;
    return;
  }
  type_ = std::max(type_, type);
  end_ms_ = std::max(end_ms_, end_ms);
}

void ClientPause::unpause() { type_ = Type::kOff; }

bool ClientPause::active(int64_t now_ms) {
  if (type_ != Type::kOff && end_ms_ < now_ms) type_ = Type::kOff;
  return type_ != Type::kOff;
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
  if (type_ != Type::kOff || waiting_.empty()) return {};
  std::vector<uint64_t> out(waiting_.begin(), waiting_.end());
  waiting_.clear();
  return out;
}

}  // namespace lawnkv
