#include "replication/min_replicas.hpp"

namespace lawnkv::replication {

int64_t count_good_replicas(std::span<const ReplicaView> replicas, int64_t max_lag_s) {
  int64_t good = 0;
  // lag_s is whole seconds between the ACK and now, as Redis's unixtime
  // difference.
  for (const ReplicaView& r : replicas) good += r.state == "online" && r.lag_s <= max_lag_s;
  return good;
}

}  // namespace lawnkv::replication
