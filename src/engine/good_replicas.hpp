#pragma once
// min-replicas-to-write, as Redis's checkGoodReplicasStatus: a primary with
// both min-replicas-to-write and min-replicas-max-lag set refuses writes
// (-NOREPLICAS) while fewer of its replicas are good. The count is
// ServerFacts::good_replicas, kept by the replication service
// (src/replication/min_replicas.hpp); a replica never refuses for it.

#include "engine/server_state.hpp"

namespace lawnkv {

inline bool too_few_good_replicas(const ServerState& server) {
  const config::Values& v = server.config.values();
  return !server.facts.replica && v.min_replicas_to_write != 0 && v.min_replicas_max_lag != 0 &&
         server.facts.good_replicas < v.min_replicas_to_write;
}

}  // namespace lawnkv
