// CONFIG GET, SET, RESETSTAT, REWRITE, HELP. The parameters, their text
// forms and Redis's error texts are the config room's (src/config/); this
// file turns arguments into calls and results into replies.

#include <string>
#include <utility>
#include <vector>

#include "commands/errors.hpp"
#include "commands/server_family.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kNoConfigFile = "ERR The server is running without a config file";
// lawnkv never writes its config file: Redis's text for a rewrite that
// failed, with the reason strerror(EOPNOTSUPP) gives.
constexpr std::string_view kNoRewrite = "ERR Rewriting config file: Operation not supported";

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
  call.reply.simple("OK");
}

/* CONFIG RESETSTAT
 * Zeroes the counters INFO reports: keyspace (hits, misses, expiry),
 * per-command and server-wide statistics. */
void config_resetstat_command(Call& call) {
  call.server.keyspace.stats().reset();
  call.server.commands.reset_stats();
  call.server.stats.reset();
  call.reply.simple("OK");
}

/* CONFIG REWRITE */
void config_rewrite_command(Call& call) {
  call.error(call.server.config.file().empty() ? kNoConfigFile : kNoRewrite);
}

/* CONFIG HELP */
void config_help_command(Call& call) {
  reply_help(call, "CONFIG",
             {"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
              "SET <directive> <value>", "    Set the configuration <directive> to <value>.", "RESETSTAT",
              "    Reset statistics reported by the INFO command.", "REWRITE",
              "    Not supported: lawnkv does not write its configuration file."});
}

}  // namespace

void register_config_command(CommandTable& t) {
  constexpr uint32_t kAdminCfg = kAdmin | kNoscript | kLoading | kStale;
  const std::string acl = "@admin @slow @dangerous";
  CommandSpec config = server_row("config", -2, 0, nullptr, "@slow");
  config.subcommands = {
      server_row("config|get", -3, kAdminCfg, config_get_command, acl),
      server_row("config|set", -4, kAdminCfg, config_set_command, acl),
      server_row("config|resetstat", 2, kAdminCfg, config_resetstat_command, acl),
      server_row("config|rewrite", 2, kAdminCfg, config_rewrite_command, acl),
      server_row("config|help", 2, kLoading | kStale, config_help_command, "@slow"),
  };
  t.add(std::move(config));
}

}  // namespace lawnkv
