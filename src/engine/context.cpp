#include "engine/context.hpp"

namespace lawnkv {

void Call::block(const BlockingTable::Wait& wait) {
  if (retry) {
    retry->blocked_again = true;
    retry->ready_bound_ms = wait.ready_bound_ms;
    return;
  }
  if (!may_block()) return reply.null_array();
  server.data.blocking.block(session, *spec, wait.argv.empty() ? argv : wait.argv, db_index, wait);
}

}  // namespace lawnkv
