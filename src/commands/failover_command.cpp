// FAILOVER: Redis 7.0's coordinated failover from a primary to one of its
// replicas (replication/failover.hpp has the states and what each does).

#include <string>
#include <string_view>

#include "commands/families.hpp"
#include "core/ascii.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/context.hpp"
#include "engine/errors.hpp"
#include "replication/replication.hpp"

namespace lawnkv {

namespace {

/* FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds] */
void failover_command(Call& call) {
  replication::Failover& failover = call.server.replication().failover();
  const auto& argv = call.argv;
  if (argv.size() == 2 && is_option(argv[1], "abort")) {
    const std::string err = failover.abort_by_user();
    if (!err.empty()) return call.error(err);
    return call.reply.simple("OK");
  }
  // Each option once, in any order, as Redis's loop takes them.
  replication::Failover::Request request;
  for (size_t j = 1; j < argv.size(); ++j) {
    if (is_option(argv[j], "timeout") && j + 1 < argv.size() && request.timeout_ms == 0) {
      long long ms;
      if (!string_to_ll(argv[j + 1], &ms)) return call.error(err::kNotInteger);
      if (ms <= 0) return call.error("ERR FAILOVER timeout must be greater than 0");
      request.timeout_ms = ms;
      ++j;
    } else if (is_option(argv[j], "to") && j + 2 < argv.size() && !request.to) {
      long long port;
      if (!string_to_ll(argv[j + 2], &port)) return call.error(err::kNotInteger);
      request.to = true;
      request.host = std::string(argv[j + 1]);
      request.port = port;
      j += 2;
    } else if (is_option(argv[j], "force") && !request.force) {
      request.force = true;
    } else {
      return call.error(err::kSyntax);
    }
  }
  const std::string err = failover.start(request, call.now_ms);
  if (!err.empty()) return call.error(err);
  call.reply.simple("OK");
}

}  // namespace

void register_failover_commands(CommandTable& t) {
  t.add({
    {.name = "failover", .arity = -1, .flags = kAdmin | kNoscript | kStale,
     .acl = "@admin @slow @dangerous",
     .group = "server", .since = "6.2.0", .complexity = "O(1)",
     .summary = "Hands this primary's role to one of its replicas, without losing a write",
     .handler = failover_command},
  });
}

}  // namespace lawnkv
