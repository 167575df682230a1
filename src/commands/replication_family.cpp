// The primary's side of replication as commands (src/replication/ does the
// work): ROLE, REPLCONF, SYNC, PSYNC and WAIT, with Redis 7.0's replies
// and error texts.

#include <string>

#include "commands/families.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/context.hpp"
#include "engine/errors.hpp"
#include "expiry/timer.hpp"
#include "replication/replica.hpp"
#include "replication/replication.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kUnknownReplconf = "ERR Unrecognized REPLCONF option: %s";
constexpr std::string_view kIpTooLong = "ERR REPLCONF ip-address provided by replica instance is too long: %s bytes";
constexpr std::string_view kWaitOnReplica =
    "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is "
    "configured to be writable (which is not the default) writes to replicas are just local and are not "
    "propagated.";
constexpr std::string_view kTimeoutNotInteger = "ERR timeout is not an integer or out of range";
constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
constexpr std::string_view kRdbOnlyRange = "ERR value is out of range, value must between 0 and 1";
constexpr size_t kHostMaxLen = 256;  // Redis's NET_HOST_STR_LEN

/* ROLE */
void role_command(Call& call) { call.server.replication().role_reply(call.reply, call.now_ms); }

/* REPLCONF <option> <value> [<option> <value> ...] */
void replconf_command(Call& call) {
  if (call.argv.size() % 2 == 0) return call.error(err::kSyntax);
  Replication& repl = call.server.replication();
  replication::Primary::Handshake& hs = repl.primary().handshake(call.session);
  for (size_t j = 1; j < call.argv.size(); j += 2) {
    const std::string_view opt = call.argv[j], value = call.argv[j + 1];
    if (is_option(opt, "listening-port")) {
      long long port;
      if (!string_to_ll(value, &port)) return call.error(err::kNotInteger);
      hs.port = port;
    } else if (is_option(opt, "ip-address")) {
      if (value.size() >= kHostMaxLen) return call.error(format_error(kIpTooLong, {std::to_string(value.size())}));
      hs.ip = std::string(value);
    } else if (is_option(opt, "capa")) {
      // Capabilities this primary does not know are ignored.
      if (is_option(value, "eof")) hs.capa_eof = true;
      if (is_option(value, "psync2")) hs.capa_psync2 = true;
    } else if (is_option(opt, "ack")) {
      // A replica's acknowledgement: never a reply.
      long long offset;
      if (call.session.replica && string_to_ll(value, &offset)) repl.primary().ack(call.session, offset, call.now_ms);
      return;
    } else if (is_option(opt, "getack")) {
      // From our primary: its ACK is due (never a reply).
      if (call.session.master && repl.state().is_replica()) repl.state().replica_side()->getack_received();
      return;
    } else if (is_option(opt, "rdb-only")) {
      long long v;
      if (!string_to_ll(value, &v)) return call.error(err::kNotInteger);
      if (v < 0 || v > 1) return call.error(kRdbOnlyRange);
    } else {
      return call.error(format_error(kUnknownReplconf, {opt}));
    }
  }
  call.reply.simple("OK");
}

/* SYNC, PSYNC replicationid offset [FAILOVER] */
void sync_command(Call& call) {
  Replication& repl = call.server.replication();
  if (!call.session.replica) {
    // A primary's FAILOVER: it asks us, its replica, to take its role and
    // continue its history (replication/failover.hpp).
    if (call.argv.size() > 3 && is_option(call.argv[0], "psync") && is_option(call.argv[3], "failover")) {
      if (call.server.log)
        call.server.log->log(LogLevel::kWarning,
                             "Failover request received for replid " + std::string(call.argv[1]) + ".");
      if (!repl.state().is_replica()) return call.error("ERR PSYNC FAILOVER can't be sent to a master.");
      if (!iequals(call.argv[1], repl.state().replid()))
        return call.error("ERR PSYNC FAILOVER replid must match my replid.");
      call.server.replica().unset_primary();
      config::Values& cfg = call.server.config.mutable_values();
      cfg.replicaof_host.clear();
      cfg.replicaof_port = 0;
      if (call.server.log) {
        const std::string client =
            call.server.client_info ? call.server.client_info(call.server, call.session, call.now_ms) : "";
        call.server.log->log(LogLevel::kNotice, "MASTER MODE enabled (failover request from '" + client + "')");
      }
    }
    if (repl.failover().running()) return call.error("NOMASTERLINK Can't SYNC while failing over");
    // A replica serves sub-replicas only while its own link is up, as
    // Redis's syncCommand: before its sync with its primary ends it has no
    // history of its primary's to give (the sub-replica tries again later).
    if (call.server.facts.replica && !call.server.facts.primary_link_up)
      return call.error("NOMASTERLINK Can't SYNC while not connected with my master");
  }
  const bool psync = call.argv.size() >= 3;
  long long offset = 0;
  if (psync && !string_to_ll(call.argv[2], &offset)) return call.error(err::kNotInteger);
  const std::string why = call.server.replication().primary().sync(
      call.session, psync, psync ? call.argv[1] : std::string_view(), offset, call.now_ms);
  if (!why.empty()) call.error(why);
}

/* WAIT numreplicas timeout */
void wait_command(Call& call) {
  Replication& repl = call.server.replication();
  if (repl.state().is_replica()) return call.error(kWaitOnReplica);
  long long wanted, timeout_ms;
  if (!string_to_ll(call.argv[1], &wanted)) return call.error(err::kNotInteger);
  if (!string_to_ll(call.argv[2], &timeout_ms)) return call.error(kTimeoutNotInteger);
  if (timeout_ms < 0) return call.error(kTimeoutNegative);
  // Run again (an ACK came, or its deadline passed): the deadline and the
  // offset it waits for ride in its stored arguments (argv[3], argv[4]).
  long long deadline_ms = timeout_ms > 0 ? call.now_ms + timeout_ms : expiry::kNever;
  long long offset = call.session.write_offset;
  if (call.retry && call.argv.size() == 5) {
    string_to_ll(call.argv[3], &deadline_ms);
    string_to_ll(call.argv[4], &offset);
  }
  const int64_t acks = repl.primary().count_acks(offset);
  if (acks >= wanted || call.session.in_multi || call.session.in_exec || !call.may_block() ||
      call.now_ms >= deadline_ms || (call.retry && call.retry->timed_out)) {
    return call.reply.integer(acks);
  }
  const std::string deadline = std::to_string(deadline_ms), target = std::to_string(offset);
  const std::string_view keys[] = {replication::kAckWaitKey};
  const std::string_view argv[] = {call.argv[0], call.argv[1], call.argv[2], deadline, target};
  // Every WAIT waits in db 0, where the acknowledgements signal.
  call.db_index = 0;
  call.block({.keys = keys,
              .timeout_at_ms = expiry::kNever,
              .ready_bound_ms = deadline_ms == expiry::kNever ? expiry::kNever : deadline_ms - 1,
              .argv = argv,
              .replies_own_timeout = true});
  repl.primary().request_acks();
}

}  // namespace

void register_replication_commands(CommandTable& t) {
  t.add({
    {.name = "role", .arity = 1, .flags = kNoscript | kLoading | kStale | kFast,
     .acl = "@admin @fast @dangerous",
     .group = "server", .since = "2.8.12", .complexity = "O(1)",
     .summary = "Tells whether this server is a primary or a replica, and its replication state",
     .handler = role_command},
    {.name = "replconf", .arity = -1, .flags = kAdmin | kNoscript | kLoading | kStale | kAllowBusy,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "3.0.0", .complexity = "O(1)",
     .summary = "Sets up a replica's link, or acknowledges the stream (internal to replication)",
     .handler = replconf_command},
    {.name = "psync", .arity = -3, .flags = kAdmin | kNoscript | kNoAsyncLoading | kNoMulti,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "2.8.0",
     .complexity = "O(N) in the bytes sent: the backlog from the offset, or the whole dataset",
     .summary = "Asks for the replication stream from an offset, or a full synchronisation (internal)",
     .handler = sync_command},
    {.name = "sync", .arity = 1, .flags = kAdmin | kNoscript | kNoAsyncLoading | kNoMulti,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(N) where N is the size of the dataset",
     .summary = "Asks for a full synchronisation and the replication stream (internal)",
     .handler = sync_command},
    {.name = "wait", .arity = 3, .flags = kNoscript,
     .acl = "@slow @connection",
     .group = "generic", .since = "3.0.0", .complexity = "O(1)",
     .summary = "Waits until the replicas acknowledge this client's writes, or a timeout",
     .tips = "request_policy:all_shards response_policy:agg_min",
     .handler = wait_command},
  });
}

}  // namespace lawnkv
