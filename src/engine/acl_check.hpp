#pragma once
// ACL permission checks of a client's commands, as Redis 7.0's
// processCommand, execCommand and scripts' redis.call make them: the
// verdict, Redis's NOPERM text for it, and the ACL LOG entry.
//
// The fast path: a client whose user is unrestricted (the default user's
// +@all ~* &*) costs dispatch one load and one test; nothing here runs.

#include <span>
#include <string>
#include <string_view>

#include "engine/acl_users.hpp"
#include "engine/server_state.hpp"

namespace lawnkv {

// The ACL LOG contexts.
inline constexpr std::string_view kAclToplevel = "toplevel";
inline constexpr std::string_view kAclMulti = "multi";
inline constexpr std::string_view kAclLua = "lua";

// Checks spec argv for user; when denied, adds the ACL LOG entry (for
// session, in context) and returns the verdict, *pos at the argument that
// was denied.
acl::Verdict acl_check_and_log(ServerState& server, const Session& session, const acl::User& user,
                               const CommandSpec& spec, std::span<const std::string_view> argv,
                               std::string_view context, int64_t now_ms);

// Adds an ACL LOG entry for session (its user's name unless username is
// given): object is the command's name, the key or channel, or "AUTH".
void acl_log(ServerState& server, const Session& session, acl::Verdict reason, std::string_view context,
             std::string_view object, std::string_view username, int64_t now_ms);

// "NOPERM this user has no permissions to run the 'get' command", ... (the
// refusal before a command runs).
std::string noperm_text(acl::Verdict v, const CommandSpec& spec);
// The refusal of a queued command at EXEC, when the rules changed since.
std::string exec_noperm_text(acl::Verdict v);

}  // namespace lawnkv
