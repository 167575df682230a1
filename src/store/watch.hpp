#pragma once
// WATCH bookkeeping: which transactions watch which (db, key), so that a change
// to the key marks them dirty and their EXEC aborts.
//
// As Redis 7.0: a key that was already logically expired when WATCHed does not
// dirty the transaction when the expiry deletes it; a key that was alive when
// WATCHed and has expired by EXEC does (Watcher::any_expired_since).

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace lawnkv::store {

class Keyspace;

// One client's watched keys. Owned by the client's session.
struct Watcher {
  struct Key {
    int db;
    std::string key;
    bool expired_when_watched;
  };
  std::vector<Key> keys;
  bool dirty = false;
};

// Hash and equality that let string-keyed maps be searched with a string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class WatchTable {
 public:
  void watch(Watcher& w, int db, std::string_view key, bool expired_now);
  // Forgets every key of w (UNWATCH, EXEC, DISCARD, disconnect); clears dirty.
  void unwatch_all(Watcher& w);
  // key in db was changed, or deleted (exists_now false).
  void touch(int db, std::string_view key, bool exists_now);
  // Every watched key of db for which exists_in(key) holds (FLUSHDB, SWAPDB).
  template <class Pred>
  void touch_db(int db, Pred&& exists_in);
  bool empty() const { return by_db_.empty(); }

 private:
  void mark(Watcher& w, int db, std::string_view key, bool exists_now);

  using KeyMap = std::unordered_map<std::string, std::vector<Watcher*>, StringHash, std::equal_to<>>;
  std::unordered_map<int, KeyMap> by_db_;
};

template <class Pred>
void WatchTable::touch_db(int db, Pred&& exists_in) {
  auto it = by_db_.find(db);
  if (it == by_db_.end()) return;
  for (auto& [key, watchers] : it->second)
    if (exists_in(std::string_view(key)))
      for (Watcher* w : watchers) w->dirty = true;
}

}  // namespace lawnkv::store
