// CONFIG GET, SET, RESETSTAT, REWRITE, HELP. The parameters, their text
// forms and Redis's error texts are the config room's (src/config/); this
// file turns arguments into calls and results into replies.

#include <string>
#include <utility>
#include <vector>

#include "commands/server_family.hpp"
#include "config/params.hpp"
#include "config/rewrite.hpp"
#include "durability/append_only.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kAppendonlyFailed =
    "ERR CONFIG SET failed (possibly related to argument 'appendonly') - ";
constexpr std::string_view kNoConfigFile = "ERR The server is running without a config file";
constexpr std::string_view kRewriteFailed = "ERR Rewriting config file: ";

/* CONFIG GET parameter [parameter ...]
 * A map of each matching name (globs allowed) to its value. */
void config_get_command(Call& call) {
  const std::vector<std::string_view> patterns(call.argv.begin() + 2, call.argv.end());
  const auto found = call.server.config.get(patterns);
  call.reply.map(found.size());
  for (const auto& [name, value] : found) {
    call.reply.bulk(name);
    call.reply.bulk(value);
  }
}

/* CONFIG SET parameter value [parameter value ...]
 * All or nothing. */
void config_set_command(Call& call) {
  if (call.argv.size() % 2 != 0) return call.error(err::kSyntax);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 2; i + 1 < call.argv.size(); i += 2) pairs.emplace_back(call.argv[i], call.argv[i + 1]);
  const config::Status st = call.server.config.set(pairs);
  if (!st.ok()) return call.error(st.error);
  // maxmemory and its policy act at once, as Redis's apply functions: a
  // lower limit starts evicting now (the rest goes on in the event loop).
  call.data.eviction.configure(call.cfg(), call.data.keyspace);
  call.data.evict(call.cfg());
  // requirepass is the default user's password, set again only when it is
  // set (ACL SETUSER default may have changed it since), as Redis's.
  call.server.acl.pubsub_default_all = call.cfg().acl_pubsub_default == "allchannels";
  for (const auto& [name, value] : pairs) {
    if (config::find_param(name) == config::find_param("requirepass"))
      call.server.acl.set_default_password(call.cfg().requirepass, call.server.commands);
  }
  // appendonly and appendfsync act at once, as Redis's: yes writes a base
  // from the dataset (a rewrite) and logs from now on.
  AppendOnly& aof = call.server.aof();
  aof.apply_fsync_policy(call.cfg().appendfsync);
  if (call.cfg().appendonly && !aof.enabled()) {
    if (const std::string why = aof.turn_on(call.server); !why.empty()) {
      call.server.config.mutable_values().appendonly = false;
      return call.error(std::string(kAppendonlyFailed) + why);
    }
  } else if (!call.cfg().appendonly && aof.enabled()) {
    aof.turn_off(call.server);
  }
  call.reply.simple("OK");
}

/* CONFIG RESETSTAT
 * Zeroes the counters INFO reports: keyspace (hits, misses, expiry),
 * per-command and server-wide statistics. */
void config_resetstat_command(Call& call) {
  call.data.keyspace.stats().reset();
  call.data.eviction.reset_stats();
  call.server.commands.reset_stats();
  call.server.facts.stats.reset();
  call.server.facts.errors.reset();
  call.reply.simple("OK");
}

/* CONFIG REWRITE
 * The config file the server started with, rewritten for the values it
 * runs with (config/rewrite.hpp). */
void config_rewrite_command(Call& call) {
  const std::string& file = call.server.config.file();
  if (file.empty()) return call.error(kNoConfigFile);
  // Without an aclfile the users live in the config file, as ACL LIST
  // describes them (Redis's rewriteConfigUserOption).
  std::vector<std::string> users;
  if (call.cfg().aclfile.empty())
    for (const auto& [name, u] : call.server.acl.all())
      users.push_back("user " + name + " " + u->describe(call.server.commands));
  const std::string why =
      config::rewrite_config_file(file, call.cfg(), call.cfg().aclfile.empty() ? &users : nullptr);
  if (!why.empty()) {
    if (call.server.log) call.server.log->log(LogLevel::kWarning, "CONFIG REWRITE failed: " + why);
    return call.error(std::string(kRewriteFailed) + why);
  }
  if (call.server.log) call.server.log->log(LogLevel::kWarning, "CONFIG REWRITE executed with success.");
  call.reply.simple("OK");
}

/* CONFIG HELP */
void config_help_command(Call& call) {
  reply_help(call, "CONFIG",
             {"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
              "SET <directive> <value>", "    Set the configuration <directive> to <value>.", "RESETSTAT",
              "    Reset statistics reported by the INFO command.", "REWRITE",
              "    Rewrite the configuration file."});
}

}  // namespace

void register_config_command(CommandTable& t) {
  t.add({
    {.name = "config", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "server", .since = "2.0.0", .complexity = "Depends on the subcommand",
     .summary = "Commands about the configuration",
     .subcommands = {
         {.name = "config|get", .arity = -3, .flags = kAdmin | kNoscript | kLoading | kStale,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "2.0.0", .complexity = "O(N) where N is the number of parameters",
          .summary = "Returns configuration parameters matching patterns",
          .handler = config_get_command},
         {.name = "config|set", .arity = -4, .flags = kAdmin | kNoscript | kLoading | kStale,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "2.0.0", .complexity = "O(N) where N is the number of parameters",
          .summary = "Changes configuration parameters, all or none",
          .tips = "request_policy:all_nodes response_policy:all_succeeded",
          .handler = config_set_command},
         {.name = "config|resetstat", .arity = 2, .flags = kAdmin | kNoscript | kLoading | kStale,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "2.0.0", .complexity = "O(1)",
          .summary = "Zeroes the statistics INFO reports",
          .handler = config_resetstat_command},
         {.name = "config|rewrite", .arity = 2, .flags = kAdmin | kNoscript | kLoading | kStale,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "2.8.0", .complexity = "O(1)",
          .summary = "Not supported: lawnkv does not write its configuration file",
          .handler = config_rewrite_command},
         {.name = "config|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Describes the CONFIG subcommands",
          .handler = config_help_command},
     }},
  });
}

}  // namespace lawnkv
