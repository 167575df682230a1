#include "engine/blocking.hpp"

#include <algorithm>
#include <limits>

#include "engine/session.hpp"
#include "expiry/timer.hpp"

namespace lawnkv {

void BlockingTable::block(Session& s, const CommandSpec& spec, std::span<const std::string_view> argv, int db,
                          const Wait& wait) {
  const uint64_t id = next_id_++;
  Waiter& w = waiters_[id];
  w.session = &s;
  w.spec = &spec;
  w.argv.assign(argv.begin(), argv.end());
  w.db = db;
  w.keys.assign(wait.keys.begin(), wait.keys.end());
  w.timeout_at_ms = wait.timeout_at_ms;
  w.wake_ms = expiry::kNever;
  w.replies_own_timeout = wait.replies_own_timeout;
  for (const std::string& key : w.keys) by_key_[DbKey(db, key)].ids.insert(id);
  by_session_[&s] = id;
  set_wake(id, w, wait.ready_bound_ms);
  s.blocked = true;
}

void BlockingTable::set_wake(uint64_t id, Waiter& w, int64_t ready_bound_ms) {
  if (w.wake_ms != expiry::kNever) wakes_.erase({w.wake_ms, id});
  // The timeout is reached once now >= timeout_at, i.e. now > timeout_at - 1.
  const int64_t timeout_wake = w.timeout_at_ms == expiry::kNever ? expiry::kNever : w.timeout_at_ms - 1;
  w.wake_ms = std::min(timeout_wake, ready_bound_ms);
  if (w.wake_ms != expiry::kNever) wakes_.insert({w.wake_ms, id});
}

void BlockingTable::remove(uint64_t id) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  Waiter& w = it->second;
  for (const std::string& key : w.keys) {
    auto k = by_key_.find(DbKey(w.db, key));
    if (k == by_key_.end()) continue;
    k->second.ids.erase(id);
    if (k->second.ids.empty()) by_key_.erase(k);
  }
  if (w.wake_ms != expiry::kNever) wakes_.erase({w.wake_ms, id});
  by_session_.erase(w.session);
  w.session->blocked = false;
  waiters_.erase(it);
  if (waiters_.empty()) ready_.clear();
}

void BlockingTable::forget(const Session& s) {
  auto it = by_session_.find(&s);
  if (it != by_session_.end()) remove(it->second);
}

bool BlockingTable::unblock(const Session& s, bool error, resp::ErrorObserver* errors, std::string_view error_text) {
  auto it = by_session_.find(&s);
  if (it == by_session_.end()) return false;
  Waiter& w = waiters_.at(it->second);
  if (w.unblocked) return false;  // unblocked already, its reply on the way
  if (!error && w.replies_own_timeout) {
    // Run again, timed out, at the next serve(), which wakes at once.
    w.unblocked = true;
    if (w.wake_ms != expiry::kNever) wakes_.erase({w.wake_ms, it->second});
    w.wake_ms = std::numeric_limits<int64_t>::min();
    wakes_.insert({w.wake_ms, it->second});
    return true;
  }
  Session& target = *w.session;
  std::string frame;
  resp::Writer out(frame, target.protocol);
  out.observe_errors(errors);
  if (error) {
    out.error(error_text);
  } else {
    out.null_array();
  }
  remove(it->second);
  to_resume_.push_back(target.id);
  target.deliver_reply(frame);
  return true;
}

void BlockingTable::signal(int db, std::string_view key) {
  // Only keys someone waits on are remembered, each once until served.
  auto it = by_key_.find(DbKey(db, std::string(key)));
  if (it == by_key_.end() || it->second.signalled) return;
  it->second.signalled = true;
  ready_.push_back(it->first);
}

void BlockingTable::signal_db(int db) {
  for (auto& [k, waiting] : by_key_)
    if (k.first == db && !waiting.signalled) {
      waiting.signalled = true;
      ready_.push_back(k);
    }
}

bool BlockingTable::try_serve(BlockedRunner& runner, uint64_t id, int64_t now_ms, std::string_view key) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return false;
  Session& s = *it->second.session;
  std::string frame;
  resp::Writer out(frame, s.protocol);
  out.observe_errors(runner.error_observer());
  if (now_ms >= it->second.timeout_at_ms) {
    out.null_array();
  } else {
    // The command runs as it did when it blocked; it may publish events that
    // close clients, this one included: the waiter is looked up again after.
    const Waiter& w = it->second;
    const std::vector<std::string_view> argv(w.argv.begin(), w.argv.end());
    int64_t ready_bound_ms = 0;
    const bool blocked_again =
        runner.run_again(s, *w.spec, argv, w.db, now_ms, key, w.unblocked, out, &ready_bound_ms);
    it = waiters_.find(id);
    if (it == waiters_.end()) return false;
    if (blocked_again) {
      set_wake(id, it->second, ready_bound_ms);
      return false;
    }
  }
  remove(id);
  to_resume_.push_back(s.id);
  s.deliver_reply(frame);
  return true;
}

void BlockingTable::serve(BlockedRunner& runner, int64_t now_ms) {
  // The clients whose time came: a timeout, or a key that may be ready by itself.
  std::vector<uint64_t> due;
  while (!wakes_.empty() && wakes_.begin()->first < now_ms) {
    due.push_back(wakes_.begin()->second);
    Waiter& w = waiters_.at(wakes_.begin()->second);
    w.wake_ms = expiry::kNever;
    wakes_.erase(wakes_.begin());
  }
  for (uint64_t id : due) {
    if (try_serve(runner, id, now_ms, {})) continue;
    // Still waiting with no new bound (its command did not run, or found the
    // key gone): wake again at its timeout.
    auto it = waiters_.find(id);
    if (it != waiters_.end() && it->second.wake_ms == expiry::kNever) set_wake(id, it->second, expiry::kNever);
  }
  // Keys changed, in the order they were signalled; serving one may signal
  // more (a command that writes), which this loop then serves too.
  for (size_t i = 0; i < ready_.size(); ++i) {
    auto k = by_key_.find(ready_[i]);
    if (k == by_key_.end()) continue;
    k->second.signalled = false;
    const std::vector<uint64_t> ids(k->second.ids.begin(), k->second.ids.end());
    const std::string key = ready_[i].second;  // serving may grow ready_
    for (uint64_t id : ids) try_serve(runner, id, now_ms, key);
  }
  ready_.clear();
  // Served clients go on with what they sent meanwhile, unless that closed
  // them or they blocked again.
  std::vector<uint64_t> resume;
  resume.swap(to_resume_);
  for (uint64_t sid : resume)
    if (Session* s = runner.find_client(sid); s && !s->blocked) s->resume();
}

int64_t BlockingTable::next_wakeup() const {
  if (!ready_.empty() || !to_resume_.empty()) return std::numeric_limits<int64_t>::min();
  return wakes_.empty() ? expiry::kNever : wakes_.begin()->first;
}

}  // namespace lawnkv
