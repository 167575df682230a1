#pragma once
// The replication stream on a replica: the bytes that follow the snapshot
// (or +CONTINUE) are RESP commands, run one by one as the primary's session
// (primary_session.hpp) through dispatch, their replies thrown away, the
// keyspace seen as the primary sees it (store::Keyspace::PrimaryView: no
// key is expired by the replica's clock).
//
// Offsets (Redis's master client reploff / read_reploff): read_offset()
// counts every byte received; offset() the bytes of commands processed,
// moved after each command outside MULTI (a transaction counts at its
// EXEC), which is what REPLCONF ACK reports and PSYNC continues from.
//
// REPLCONF GETACK from the primary is answered (ack callback) with the
// offset before it, as Redis 7.0 does; other REPLCONFs are ignored.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "replication/primary_session.hpp"
#include "resp/parser.hpp"

namespace lawnkv {
struct ServerState;
}

namespace lawnkv::replication {

class StreamApplier {
 public:
  StreamApplier(ServerState& server, PrimarySession& session) : server_(server), session_(session) {}

  // Starts at offset (the primary's offset of the snapshot, or ours).
  void reset(int64_t offset);
  // Runs every whole command in bytes (plus what was held back); keeps a
  // partial one for the next call. Returns "" or a protocol error (the
  // link must then be dropped).
  std::string feed(std::string_view bytes);
  // The link dropped: a partial command and an open transaction are
  // discarded, the read offset goes back to the processed one.
  void drop();

  int64_t offset() const { return offset_; }
  int64_t read_offset() const { return read_offset_; }
  // Called with the offset to ACK when the primary asks (GETACK).
  std::function<void(int64_t)> ack;
  // Called with the bytes of the commands processed, when offset() moves
  // (a transaction's whole at its EXEC): what a replica passes on.
  std::function<void(std::string_view)> applied;

 private:
  ServerState& server_;
  PrimarySession& session_;
  resp::Parser parser_;
  std::string input_;       // unconsumed stream bytes
  int64_t offset_ = 0;      // processed
  int64_t read_offset_ = 0; // received
  std::string unprocessed_; // whole commands read inside an open MULTI
  std::string scratch_;     // replies, thrown away
};

}  // namespace lawnkv::replication
