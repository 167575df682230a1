// REPLICAOF and SLAVEOF: the replica's side of replication
// (replication/replica.hpp); the primary's commands are in
// replication_family.cpp.

#include <string>
#include <string_view>

#include "commands/families.hpp"
#include "engine/args.hpp"
#include "engine/context.hpp"
#include "replication/replica.hpp"
#include "replication/replication.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kInvalidPort = "ERR Invalid master port";

void log_notice(const Call& call, const std::string& text) {
  if (call.server.log) call.server.log->log(LogLevel::kNotice, text);
}

/* REPLICAOF host port | NO ONE */
void replicaof_command(Call& call) {
  if (call.server.replication().failover().running())
    return call.error("ERR REPLICAOF not allowed while failing over.");
  replication::Replica& replica = call.server.replica();
  config::Values& cfg = call.server.config.mutable_values();
  const std::string client = call.server.client_info ? call.server.client_info(call.server, call.session, call.now_ms)
                                                     : std::string();
  if (is_option(call.argv[1], "no") && is_option(call.argv[2], "one")) {
    if (replica.is_replica()) {
      replica.unset_primary();
      cfg.replicaof_host.clear();
      cfg.replicaof_port = 0;
      log_notice(call, "MASTER MODE enabled (user request from '" + client + "')");
    }
    call.reply.simple("OK");
    return;
  }
  long long port;
  if (!integer_or_reply(call, call.argv[2], &port, kInvalidPort)) return;
  if (port < 0 || port > 65535) return call.error(kInvalidPort);
  const std::string host(call.argv[1]);
  // strcasecmp, as Redis compares the host.
  if (replica.is_replica() && iequals(c_string(host), c_string(replica.host())) && replica.port() == port) {
    log_notice(call, "REPLICAOF would result into synchronization with the master we are already connected with. "
                     "No operation performed.");
    call.reply.simple("OK Already connected to specified master");
    return;
  }
  replica.set_primary(host, port, call.now_ms);
  cfg.replicaof_host = host;
  cfg.replicaof_port = port;
  log_notice(call, "REPLICAOF " + host + ":" + std::to_string(port) + " enabled (user request from '" + client + "')");
  call.reply.simple("OK");
}

}  // namespace

void register_replicaof_commands(CommandTable& t) {
  t.add({
    {.name = "replicaof", .arity = 3, .flags = kAdmin | kNoscript | kStale | kNoAsyncLoading,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "5.0.0", .complexity = "O(1)",
     .summary = "Replicates another server (host port), or stops replicating and takes writes (NO ONE)",
     .handler = replicaof_command},
    {.name = "slaveof", .arity = 3, .flags = kAdmin | kNoscript | kStale | kNoAsyncLoading,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "The older name of REPLICAOF",
     .handler = replicaof_command},
  });
}

}  // namespace lawnkv
