#include "store/expired_parts.hpp"

#include <utility>

namespace lawnkv::store {

std::string ExpiredParts::index_key(int db, std::string_view key) {
  std::string k(reinterpret_cast<const char*>(&db), sizeof db);
  k.append(key);
  return k;
}

void ExpiredParts::add(int db, std::string_view key, std::string part, bool key_deleted) {
  // Fields of one hash often expire in a row (they share a TTL queue):
  // the last group is checked before the index.
  Group* g = nullptr;
  if (!groups_.empty() && groups_.back().db == db && groups_.back().key == key && !groups_.back().parts.empty()) {
    g = &groups_.back();
  } else {
    auto [it, fresh] = index_.try_emplace(index_key(db, key), groups_.size());
    if (fresh) groups_.push_back({db, std::string(key), {}, false});
    g = &groups_[it->second];
  }
  g->parts.push_back(std::move(part));
  g->key_deleted = g->key_deleted || key_deleted;
}

}  // namespace lawnkv::store
