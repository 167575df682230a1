#pragma once
// The good replicas of min-replicas-to-write (Redis's
// refreshGoodSlavesCount): online replicas whose last REPLCONF ACK is at
// most min-replicas-max-lag seconds old. The replication service counts
// them into ServerFacts::good_replicas before the loop waits and when a
// replica goes, and dispatch and scripts read that count
// (engine/good_replicas.hpp); INFO replication shows it as
// min_slaves_good_slaves while the check is on.

#include <cstdint>
#include <span>

#include "replication/replication_state.hpp"

namespace lawnkv::replication {

int64_t count_good_replicas(std::span<const ReplicaView> replicas, int64_t max_lag_s);

}  // namespace lawnkv::replication
