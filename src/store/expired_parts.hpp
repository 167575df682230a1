#pragma once
// The hash fields one reaping pass removed, grouped per key.
//
// Redis 7.4's active expiry publishes one `hexpired` per hash and pass,
// however many of its fields went (a lazy removal by a command does the same
// for what that command found). The keyspace's reaper meets fields one at a
// time, in deadline order across every hash, so it notes each here and
// reports the groups when the pass ends: per key, the fields in the order they
// expired and whether the last of them took the key along.

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace lawnkv::store {

class ExpiredParts {
 public:
  struct Group {
    int db;
    std::string key;
    std::vector<std::string> parts;
    bool key_deleted = false;
  };

  // part of key in db expired; key_deleted: it was the last and the key went.
  void add(int db, std::string_view key, std::string part, bool key_deleted);
  bool empty() const { return groups_.empty(); }

  // Hands every group to report(const Group&), in the order their keys first
  // expired a part, and forgets them.
  template <class Report>
  void drain(Report&& report) {
    for (const Group& g : groups_)
      if (!g.parts.empty()) report(g);
    groups_.clear();
    index_.clear();
  }

  // Hands key's group, if any, to report and forgets it: a key that expires
  // during the pass has its fields reported before its own expiry.
  template <class Report>
  void drain_key(int db, std::string_view key, Report&& report) {
    auto it = index_.find(index_key(db, key));
    if (it == index_.end()) return;
    Group& g = groups_[it->second];
    index_.erase(it);
    report(g);
    g.parts.clear();  // stays in groups_ as an empty slot, skipped by drain
  }

 private:
  static std::string index_key(int db, std::string_view key);

  std::deque<Group> groups_;
  std::unordered_map<std::string, size_t> index_;  // index_key -> groups_ slot
};

}  // namespace lawnkv::store
