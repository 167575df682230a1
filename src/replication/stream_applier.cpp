#include "replication/stream_applier.hpp"

#include "core/ascii.hpp"
#include "engine/dispatch.hpp"
#include "engine/server_state.hpp"
#include "engine/transaction.hpp"

namespace lawnkv::replication {

void StreamApplier::reset(int64_t offset) {
  parser_.reset();
  input_.clear();
  offset_ = read_offset_ = offset;
  unprocessed_.clear();
  session_.pending_input = 0;
}

void StreamApplier::drop() {
  parser_.reset();
  input_.clear();
  if (session_.in_multi) discard_transaction(server_.data.keyspace.watches(), session_);
  read_offset_ = offset_;
  unprocessed_.clear();
  session_.pending_input = 0;
}

std::string StreamApplier::feed(std::string_view bytes) {
  read_offset_ += static_cast<int64_t>(bytes.size());
  input_.append(bytes);
  resp::Limits limits;
  limits.max_bulk_len = server_.config.values().proto_max_bulk_len;
  size_t pos = 0;
  std::string error;
  const store::Keyspace::PrimaryView view(server_.data.keyspace);
  while (pos < input_.size()) {
    const std::string_view rest(input_.data() + pos, input_.size() - pos);
    const resp::Status st = parser_.parse(rest, limits, true);
    if (st == resp::Status::kPending) break;
    if (st == resp::Status::kError) {
      error = "Protocol error from MASTER: " + std::string(parser_.error());
      break;
    }
    const size_t used = parser_.consumed();
    const auto& argv = parser_.argv();
    unprocessed_.append(rest.substr(0, used));
    pos += used;
    if (!argv.empty()) {
      if (iequals(argv[0], "replconf")) {
        // GETACK: the offset before this command, as Redis's replconfCommand.
        if (argv.size() >= 2 && iequals(argv[1], "getack") && ack) ack(offset_);
      } else {
        scratch_.clear();
        resp::Writer w(scratch_, session_.protocol);
        const int64_t now_ms = server_.clock.now_ms();
        dispatch(server_, session_, w, argv, now_ms);
      }
    }
    parser_.reset();
    if (!session_.in_multi) {
      offset_ += static_cast<int64_t>(unprocessed_.size());
      if (applied) applied(unprocessed_);
      unprocessed_.clear();
    }
  }
  input_.erase(0, pos);
  session_.pending_input = input_.size();
  return error;
}

}  // namespace lawnkv::replication
