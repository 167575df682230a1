#include "store/watch.hpp"

#include <algorithm>

namespace lawnkv::store {

void WatchTable::watch(Watcher& w, int db, std::string_view key, bool expired_now) {
  for (const auto& k : w.keys)
    if (k.db == db && k.key == key) return;
  w.keys.push_back({db, std::string(key), expired_now});
  by_db_[db][std::string(key)].push_back(&w);
}

void WatchTable::unwatch_all(Watcher& w) {
  for (const auto& k : w.keys) {
    auto db_it = by_db_.find(k.db);
    if (db_it == by_db_.end()) continue;
    auto it = db_it->second.find(k.key);
    if (it == db_it->second.end()) continue;
    auto& list = it->second;
    list.erase(std::remove(list.begin(), list.end(), &w), list.end());
    if (list.empty()) db_it->second.erase(it);
    if (db_it->second.empty()) by_db_.erase(db_it);
  }
  w.keys.clear();
  w.dirty = false;
}

void WatchTable::touch(int db, std::string_view key, bool exists_now) {
  auto db_it = by_db_.find(db);
  if (db_it == by_db_.end()) return;
  auto it = db_it->second.find(key);
  if (it == db_it->second.end()) return;
  for (Watcher* w : it->second) mark(*w, db, key, exists_now);
}

void WatchTable::mark(Watcher& w, int db, std::string_view key, bool exists_now) {
  for (auto& k : w.keys) {
    if (k.db != db || k.key != key || !k.expired_when_watched) continue;
    // Deleting a key that was already expired when watched changes nothing
    // the transaction could have seen.
    if (!exists_now) {
      k.expired_when_watched = false;
      return;
    }
  }
  w.dirty = true;
}

}  // namespace lawnkv::store
