#pragma once
// The replication service the server owns (ServerState::replication()):
// the state of the history (replication_state.hpp) and the replicas this
// server feeds as a primary. Commands (ROLE, INFO replication, REPLCONF,
// PSYNC, WAIT) and the server's loop reach replication through it; the
// replica side plugs in through ReplicationState::set_replica_side() and
// hands the stream it receives from its primary to proxy().

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server_state.hpp"
#include "replication/failover.hpp"
#include "replication/primary.hpp"
#include "replication/replication_state.hpp"

namespace lawnkv {

class Replication final : public Service, public StreamOffset {
 public:
  explicit Replication(ServerState& server);
  ~Replication() override;

  replication::ReplicationState& state() { return state_; }
  const replication::ReplicationState& state() const { return state_; }
  // The replicas this server feeds.
  replication::Primary& primary() { return primary_; }
  const replication::Primary& primary() const { return primary_; }
  // FAILOVER's state (failover.hpp).
  replication::Failover& failover() { return failover_; }
  const replication::Failover& failover() const { return failover_; }

  // The loop's hooks: before it waits (GETACK), about once a second while
  // wants_cron(), and when a client disconnects.
  // Each recounts the good replicas of min-replicas-to-write.
  void before_sleep();
  void cron(int64_t now_ms);
  bool bulk_ready() const { return primary_.bulk_ready(); }
  bool wants_cron() const { return primary_.wants_cron(); }
  void client_closed(const Session& s);

  // StreamOffset: master_repl_offset.
  int64_t stream_offset() const override { return state_.master_repl_offset(); }

  // The connected replicas, as INFO and ROLE list them.
  std::vector<replication::ReplicaView> replica_views(int64_t now_ms) const;
  // INFO replication's lines and ROLE's reply.
  std::string info_fields(int64_t now_ms) const;
  void role_reply(resp::Writer& out, int64_t now_ms) const;

  // A replica's link to its primary received bytes of the stream: they
  // count in this server's offset, and go to its backlog and its own
  // replicas as they came (a chain primary -> replica -> sub-replica).
  void proxy(std::string_view bytes);

 private:
  // ServerFacts::good_replicas from the replicas now (min_replicas.hpp).
  void count_good_replicas(int64_t now_ms);

  ServerState& server_;
  replication::ReplicationState state_;
  replication::Primary primary_;
  replication::Failover failover_;
};

}  // namespace lawnkv
