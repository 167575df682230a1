#pragma once
// Clients blocked in REDE.BPOLL, waiting for an element of a dehydrator key
// to come due or for their timeout.
//
// The server calls serve() once per loop iteration (before poll) and wakes
// itself for next_wakeup(), so a blocked client gets its elements in the
// first iteration after they are due: at most about 1 ms late. Clients
// blocked on the same key are served in the order they blocked; each takes at
// most its COUNT.

#include <cstdint>
#include <list>
#include <string>
#include <string_view>

#include "commands/session.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::dehydrator {

class BlockedPollers {
 public:
  // s waits on key in db until timeout_at_ms (expiry::kNever: forever), for
  // at most count elements.
  void block(Session& s, int db, std::string_view key, int64_t timeout_at_ms, size_t count);
  // Forgets s (disconnect, CLIENT KILL) without replying.
  void forget(Session& s);

  // Replies to every waiter whose key has due elements, and a null array to
  // every waiter whose timeout has passed; unblocks them.
  void serve(store::Keyspace& keyspace, int64_t now_ms);
  // serve() has something to do once now > the time returned (a deadline,
  // as the expiry index's; expiry::kNever: nothing to wait for).
  int64_t next_wakeup(store::Keyspace& keyspace, int64_t now_ms);

  bool empty() const { return waiters_.empty(); }
  size_t size() const { return waiters_.size(); }

 private:
  struct Waiter {
    Session* session;
    int db;
    std::string key;
    int64_t timeout_at_ms;
    size_t count;
  };
  std::list<Waiter> waiters_;  // in the order they blocked
};

}  // namespace lawnkv::dehydrator
