#pragma once
// Leaving a transaction, shared by DISCARD, EXEC and a refused EXEC.

#include "engine/session.hpp"
#include "store/watch.hpp"

namespace lawnkv {

// The session leaves MULTI: no queue, no abort flag, no watched keys.
inline void discard_transaction(store::WatchTable& watches, Session& s) {
  s.in_multi = false;
  s.multi_aborted = false;
  s.queued.clear();
  s.queued_denyoom = false;
  watches.unwatch_all(s.watcher);
}

}  // namespace lawnkv
