#pragma once
// The registry of connected clients, by id: CLIENT LIST/KILL walk it, the
// blocking table finds a served client again through it, and the server
// closes them all from it at shutdown. One map; the server's connections are
// the Sessions registered here.

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "engine/session.hpp"

namespace lawnkv {

class Clients {
 public:
  // A fresh id for a new connection (every accepted one gets one, as Redis
  // gives every client one, even those refused at once).
  uint64_t next_id() { return next_id_++; }
  void add(Session& s) { by_id_[s.id] = &s; }
  void remove(const Session& s) {
    by_id_.erase(s.id);
    stop_monitor(s);
  }
  Session* find(uint64_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
  }
  size_t size() const { return by_id_.size(); }
  // In id order (CLIENT LIST's order).
  const std::map<uint64_t, Session*>& all() const { return by_id_; }

  // MONITOR: the clients that hear of every command run (engine/monitor.hpp),
  // in the order they asked.
  void start_monitor(Session& s) {
    if (std::find(monitors_.begin(), monitors_.end(), &s) == monitors_.end()) monitors_.push_back(&s);
  }
  void stop_monitor(const Session& s) { std::erase(monitors_, &s); }
  bool monitoring(const Session& s) const {
    return std::find(monitors_.begin(), monitors_.end(), &s) != monitors_.end();
  }
  const std::vector<Session*>& monitors() const { return monitors_; }

 private:
  std::map<uint64_t, Session*> by_id_;
  std::vector<Session*> monitors_;
  uint64_t next_id_ = 1;
};

}  // namespace lawnkv
