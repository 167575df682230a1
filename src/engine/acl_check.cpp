#include "engine/acl_check.hpp"

namespace lawnkv {

void acl_log(ServerState& server, const Session& session, acl::Verdict reason, std::string_view context,
             std::string_view object, std::string_view username, int64_t now_ms) {
  acl::LogEntry e;
  e.reason = reason;
  e.context = context;
  e.object = object;
  e.username = username;
  e.ctime_ms = now_ms;
  if (server.client_info) e.client_info = server.client_info(server, session, now_ms);
  const int64_t max_len = server.config.values().acllog_max_len;
  server.acl.log.add(std::move(e), static_cast<size_t>(max_len < 0 ? 0 : max_len));
}

acl::Verdict acl_check_and_log(ServerState& server, const Session& session, const acl::User& user,
                               const CommandSpec& spec, std::span<const std::string_view> argv,
                               std::string_view context, int64_t now_ms) {
  int pos = 0;
  const acl::Verdict v = user.check(spec, argv, &pos);
  if (v == acl::kAllowed) return v;
  const std::string_view object = v == acl::kDeniedCommand ? std::string_view(spec.name) : argv[static_cast<size_t>(pos)];
  acl_log(server, session, v, context, object, user.name(), now_ms);
  return v;
}

std::string noperm_text(acl::Verdict v, const CommandSpec& spec) {
  switch (v) {
    case acl::kDeniedCommand:
      return "NOPERM this user has no permissions to run the '" + spec.name + "' command";
    case acl::kDeniedKey:
      return "NOPERM this user has no permissions to access one of the keys used as arguments";
    case acl::kDeniedChannel:
      return "NOPERM this user has no permissions to access one of the channels used as arguments";
    default:
      return "ERR no permission";
  }
}

std::string exec_noperm_text(acl::Verdict v) {
  std::string_view reason = "no permission";
  if (v == acl::kDeniedCommand) reason = "no permission to execute the command or subcommand";
  if (v == acl::kDeniedKey) reason = "no permission to touch the specified keys";
  if (v == acl::kDeniedChannel) reason = "no permission to access one of the channels used as arguments";
  return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. "
         "This command is no longer allowed for the following reason: " + std::string(reason);
}

}  // namespace lawnkv
