#include "dehydrator/blocking.hpp"

#include <algorithm>

#include "dehydrator/dehydrator.hpp"
#include "resp/writer.hpp"

namespace lawnkv::dehydrator {

namespace {

// The dehydrator at key, if the key holds one (lazy expiry applies).
Dehydrator* find(store::Keyspace& keyspace, int db, std::string_view key, int64_t now_ms) {
  store::Entry* e = keyspace.db(db).lookup(key, now_ms);
  if (!e || e->type() != store::Type::kDehydrator) return nullptr;
  return static_cast<Dehydrator*>(e->obj());
}

void unblock(Session& s, std::string_view frame) {
  s.blocked = false;
  s.deliver(frame);
  s.resume();
}

}  // namespace

void BlockedPollers::block(Session& s, int db, std::string_view key, int64_t timeout_at_ms, size_t count) {
  s.blocked = true;
  waiters_.push_back(Waiter{&s, db, std::string(key), timeout_at_ms, count});
}

void BlockedPollers::forget(Session& s) {
  waiters_.remove_if([&](const Waiter& w) { return w.session == &s; });
}

void BlockedPollers::serve(store::Keyspace& keyspace, int64_t now_ms) {
  std::string frame;
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    Waiter& w = *it;
    frame.clear();
    resp::Writer out(frame, w.session->protocol);
    Dehydrator* d = find(keyspace, w.db, w.key, now_ms);
    if (const size_t due = d ? d->due_count(now_ms) : 0) {
      out.array(std::min(due, w.count));
      d->poll(now_ms, w.count, [&](std::string_view v) { out.bulk(v); });
      keyspace.modified(w.db, w.key);
    } else if (now_ms >= w.timeout_at_ms) {
      out.null_array();
    } else {
      ++it;
      continue;
    }
    Session* s = w.session;
    it = waiters_.erase(it);
    unblock(*s, frame);
  }
}

int64_t BlockedPollers::next_wakeup(store::Keyspace& keyspace, int64_t now_ms) {
  int64_t next = expiry::kNever;
  for (const Waiter& w : waiters_) {
    // A timeout is reached once now >= timeout_at, i.e. now > timeout_at - 1.
    if (w.timeout_at_ms != expiry::kNever) next = std::min(next, w.timeout_at_ms - 1);
    // A lower bound: waking early only costs a look that finds nothing due.
    if (Dehydrator* d = find(keyspace, w.db, w.key, now_ms)) next = std::min(next, d->next_due_bound(now_ms));
  }
  return next;
}

}  // namespace lawnkv::dehydrator
