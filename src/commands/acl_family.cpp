// ACL: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT, GENPASS, LOG,
// DRYRUN, LOAD, SAVE, HELP (Redis 7.0's aclCommand). The users and their
// rules are the engine's (engine/acl_users.hpp); the checks before every
// command are dispatch's (engine/acl_check.hpp).

#include <random>
#include <string>
#include <vector>

#include "commands/client_list.hpp"
#include "commands/server_family.hpp"
#include "core/error_format.hpp"
#include "core/log.hpp"
#include "engine/acl_categories.hpp"
#include "engine/acl_check.hpp"
#include "engine/args.hpp"
#include "engine/dispatch.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kUsernameSpaces = "ERR Usernames can't contain spaces or null characters";
constexpr std::string_view kDeleteDefault = "ERR The 'default' user cannot be removed";
constexpr std::string_view kUnknownCategory = "ERR Unknown category '%.128s'";
constexpr std::string_view kGenpassRange =
    "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096";
constexpr std::string_view kNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL "
    "SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order "
    "to store users in the Redis configuration.";
constexpr std::string_view kSaveFailed =
    "ERR There was an error trying to save the ACLs. Please check the server logs for more information";

// The user's subscribed clients whose channels or patterns its rules no
// longer allow are closed (Redis's ACLKillPubsubClientsIfNeeded: a pattern
// must be allowed literally, a channel by a pattern).
void close_revoked_subscribers(Call& call, const acl::User& user) {
  for (const auto& [id, s] : call.server.clients.all()) {
    if (s->user != &user || !s->subscribed()) continue;
    bool revoked = false;
    for (const std::string& p : call.data.hub.patterns_of(*s)) revoked |= !user.channel_allowed(p, true);
    for (const std::string& c : call.data.hub.channels_of(*s)) revoked |= !user.channel_allowed(c, false);
    if (revoked) kill_session(call, *s);
  }
}

void close_clients_of(Call& call, const acl::User* gone);

/* ACL SETUSER username [rule [rule ...]] */
void acl_setuser_command(Call& call) {
  for (size_t i = 2; i < call.argv.size(); ++i) call.redact(i);
  const std::string_view name = call.argv[2];
  if (acl::has_spaces(name)) return call.error(kUsernameSpaces);
  bool narrowed = false;
  const std::string error = call.server.acl.set_user(name, call.argv.subspan(3), call.server.commands, &narrowed);
  if (!error.empty()) return call.error("ERR " + error);
  if (narrowed) close_revoked_subscribers(call, *call.server.acl.find(name));
  call.reply.simple("OK");
}

/* ACL DELUSER username [username ...] */
void acl_deluser_command(Call& call) {
  for (size_t i = 2; i < call.argv.size(); ++i)
    if (call.argv[i] == "default") return call.error(kDeleteDefault);
  int64_t deleted = 0;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    const std::unique_ptr<acl::User> gone = call.server.acl.remove(call.argv[i]);
    if (!gone) continue;
    ++deleted;
    close_clients_of(call, gone.get());
  }
  call.reply.integer(deleted);
}

// commands, keys and channels of a selector (GETUSER's map entries).
void reply_selector(Call& call, const acl::Selector& s) {
  call.reply.bulk("commands");
  call.reply.bulk(s.describe_commands(call.server.commands));
  call.reply.bulk("keys");
  call.reply.bulk(s.describe_keys());
  call.reply.bulk("channels");
  call.reply.bulk(s.describe_channels());
}

/* ACL GETUSER username */
void acl_getuser_command(Call& call) {
  const acl::User* u = call.server.acl.find(call.argv[2]);
  if (!u) return call.reply.null();
  call.reply.map(6);
  call.reply.bulk("flags");
  size_t nflags = 0;
  for (const acl::UserFlagName& f : acl::user_flag_names()) nflags += (u->flags() & f.flag) ? 1 : 0;
  call.reply.set(nflags);
  for (const acl::UserFlagName& f : acl::user_flag_names())
    if (u->flags() & f.flag) call.reply.bulk(f.name);
  call.reply.bulk("passwords");
  call.reply.array_of_bulks(u->passwords());
  reply_selector(call, u->selectors().front());
  call.reply.bulk("selectors");
  call.reply.array(u->selectors().size() - 1);
  for (size_t i = 1; i < u->selectors().size(); ++i) {
    call.reply.map(3);
    reply_selector(call, u->selectors()[i]);
  }
}

/* ACL LIST */
void acl_list_command(Call& call) {
  const auto& users = call.server.acl.all();
  call.reply.array(users.size());
  for (const auto& [name, u] : users) call.reply.bulk("user " + name + " " + u->describe(call.server.commands));
}

/* ACL USERS */
void acl_users_command(Call& call) {
  const auto& users = call.server.acl.all();
  call.reply.array(users.size());
  for (const auto& [name, u] : users) call.reply.bulk(name);
}

/* ACL WHOAMI */
void acl_whoami_command(Call& call) {
  if (!call.session.user) return call.reply.null();
  call.reply.bulk(call.session.user->name());
}

/* ACL CAT [category] */
void acl_cat_command(Call& call) {
  if (call.argv.size() == 2) {
    const auto names = acl_category_names();
    call.reply.array(names.size());
    for (const AclCategoryName& c : names) call.reply.bulk(c.name);
    return;
  }
  if (call.argv.size() != 3) return reply_subcommand_syntax_error(call);
  const std::optional<AclCategory> cat = find_acl_category(call.argv[2]);
  if (!cat) return call.error(format_error(kUnknownCategory, {call.argv[2]}));
  std::vector<std::string_view> names;
  call.server.commands.for_each_spec([&](const CommandSpec& spec) {
    if (spec.acl_bits & *cat) names.push_back(spec.name);
  });
  call.reply.array_of_bulks(names);
}

/* ACL GENPASS [bits] */
void acl_genpass_command(Call& call) {
  if (call.argv.size() > 3) return reply_subcommand_syntax_error(call);
  long long bits = 256;
  if (call.argv.size() == 3 && !integer_or_reply(call, call.argv[2], &bits)) return;
  if (bits <= 0 || bits > 4096) return call.error(kGenpassRange);
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device rd;
  std::string pass(static_cast<size_t>((bits + 3) / 4), '0');
  for (char& c : pass) c = kHex[rd() % 16];
  call.reply.bulk(pass);
}

/* ACL LOG [count | RESET] */
void acl_log_command(Call& call) {
  if (call.argv.size() > 3) return reply_subcommand_syntax_error(call);
  long long count = 10;
  if (call.argv.size() == 3) {
    if (is_option(call.argv[2], "reset")) {
      call.server.acl.log.reset();
      return call.reply.simple("OK");
    }
    if (!integer_or_reply(call, call.argv[2], &count)) return;
    if (count < 0) count = 0;
  }
  const auto& entries = call.server.acl.log.entries();
  const size_t n = std::min(entries.size(), static_cast<size_t>(count));
  call.reply.array(n);
  for (size_t i = 0; i < n; ++i) {
    const acl::LogEntry& e = entries[i];
    call.reply.map(7);
    call.reply.bulk("count");
    call.reply.integer(static_cast<int64_t>(e.count));
    call.reply.bulk("reason");
    call.reply.bulk(e.reason == acl::kDeniedCommand ? "command"
                    : e.reason == acl::kDeniedKey   ? "key"
                    : e.reason == acl::kDeniedChannel ? "channel"
                    : e.reason == acl::kDeniedAuth    ? "auth"
                                                      : "unknown");
    call.reply.bulk("context");
    call.reply.bulk(e.context);
    call.reply.bulk("object");
    call.reply.bulk(e.object);
    call.reply.bulk("username");
    call.reply.bulk(e.username);
    call.reply.bulk("age-seconds");
    call.reply.dbl(static_cast<double>(call.now_ms - e.ctime_ms) / 1000);
    call.reply.bulk("client-info");
    call.reply.bulk(e.client_info);
  }
}

/* ACL DRYRUN username command [arg ...] */
void acl_dryrun_command(Call& call) {
  const acl::User* u = call.server.acl.find(call.argv[2]);
  if (!u) return call.error("ERR User '" + std::string(c_string(call.argv[2])) + "' not found");
  const std::span<const std::string_view> args = call.argv.subspan(3);
  const CommandSpec* spec = call.server.commands.find(args[0]);
  if (spec && !spec->subcommands.empty() && args.size() >= 2) spec = spec->subcommand(to_lower(args[1]));
  if (!spec) return call.error("ERR Command '" + std::string(c_string(args[0])) + "' not found");
  if (!arity_ok(*spec, args.size()))
    return call.error("ERR wrong number of arguments for '" + spec->name + "' command");
  int pos = 0;
  const acl::Verdict v = u->check(*spec, args, &pos);
  if (v == acl::kAllowed) return call.reply.simple("OK");
  if (v == acl::kDeniedCommand)
    return call.reply.bulk("This user has no permissions to run the '" + spec->name + "' command");
  const std::string what = v == acl::kDeniedKey ? "key" : "channel";
  call.reply.bulk("This user has no permissions to access the '" + std::string(c_string(args[static_cast<size_t>(pos)])) +
                  "' " + what);
}

// Logs out and closes the clients of users that are gone (Redis's
// ACLFreeUserAndKillClients).
void close_clients_of(Call& call, const acl::User* gone) {
  for (const auto& [id, s] : call.server.clients.all()) {
    if (s->user != gone) continue;
    s->user = &call.server.acl.default_user();
    s->authenticated = false;
    kill_session(call, *s);
  }
  if (call.session.user == gone) call.session.user = &call.server.acl.default_user();
}

/* ACL LOAD */
void acl_load_command(Call& call) {
  const std::string& path = call.cfg().aclfile;
  if (path.empty()) return call.error(kNoAclFile);
  std::vector<std::unique_ptr<acl::User>> replaced;
  const std::string errors = call.server.acl.load_file(path, call.server.commands, &replaced);
  if (!errors.empty()) return call.error("ERR " + errors);
  for (const auto& u : replaced) close_clients_of(call, u.get());
  call.reply.simple("OK");
}

/* ACL SAVE */
void acl_save_command(Call& call) {
  const std::string& path = call.cfg().aclfile;
  if (path.empty()) return call.error(kNoAclFile);
  const std::string why = call.server.acl.save_file(path, call.server.commands);
  if (!why.empty()) {
    if (call.server.log) call.server.log->log(LogLevel::kWarning, why);
    return call.error(kSaveFailed);
  }
  call.reply.simple("OK");
}

/* ACL HELP */
void acl_help_command(Call& call) {
  reply_help(call, "ACL",
             {"CAT [<category>]",
              "    List all commands that belong to <category>, or all command categories",
              "    when no category is specified.",
              "DELUSER <username> [<username> ...]",
              "    Delete a list of users.",
              "DRYRUN <username> <command> [<arg> ...]",
              "    Returns whether the user can execute the given command without executing the command.",
              "GETUSER <username>",
              "    Get the user's details.",
              "GENPASS [<bits>]",
              "    Generate a secure 256-bit user password. The optional `bits` argument can",
              "    be used to specify a different size.",
              "LIST",
              "    Show users details in config file format.",
              "LOAD",
              "    Reload users from the ACL file.",
              "LOG [<count> | RESET]",
              "    Show the ACL log entries.",
              "SAVE",
              "    Save the current config to the ACL file.",
              "SETUSER <username> <attribute> [<attribute> ...]",
              "    Create or modify a user with the specified attributes.",
              "USERS",
              "    List all the registered usernames.",
              "WHOAMI",
              "    Return the current connection username."});
}

constexpr uint32_t kAclAdminFlags = kAdmin | kNoscript | kLoading | kStale;

}  // namespace

void register_acl_commands(CommandTable& t) {
  t.add({
    {.name = "acl", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "server", .since = "6.0.0", .complexity = "Depends on the subcommand",
     .summary = "Commands about ACL users and their permissions",
     .subcommands = {
         {.name = "acl|cat", .arity = -2, .flags = kNoscript | kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "6.0.0", .complexity = "O(1) since the categories and commands are a fixed set.",
          .summary = "Lists the ACL categories, or the commands of one",
          .handler = acl_cat_command},
         {.name = "acl|deluser", .arity = -3, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(1) amortized time considering the typical user.",
          .summary = "Deletes ACL users and logs their clients out",
          .handler = acl_deluser_command},
         {.name = "acl|dryrun", .arity = -4, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "7.0.0", .complexity = "O(1).",
          .summary = "Says whether a user may run a command, without running it",
          .handler = acl_dryrun_command},
         {.name = "acl|genpass", .arity = -2, .flags = kNoscript | kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "6.0.0", .complexity = "O(1)",
          .summary = "Makes a random password (hex digits)",
          .handler = acl_genpass_command},
         {.name = "acl|getuser", .arity = 3, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0",
          .complexity = "O(N). Where N is the number of password, command and pattern rules that the user has.",
          .summary = "Returns an ACL user's rules",
          .handler = acl_getuser_command},
         {.name = "acl|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "6.0.0", .complexity = "O(1)",
          .summary = "Describes the ACL subcommands",
          .handler = acl_help_command},
         {.name = "acl|list", .arity = 2, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(N). Where N is the number of configured users.",
          .summary = "Lists the ACL users as config file lines",
          .handler = acl_list_command},
         {.name = "acl|load", .arity = 2, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(N). Where N is the number of configured users.",
          .summary = "Reloads the ACL users from the aclfile",
          .handler = acl_load_command},
         {.name = "acl|log", .arity = -2, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(N) with N being the number of entries shown.",
          .summary = "Lists the latest commands ACL refused, or forgets them",
          .handler = acl_log_command},
         {.name = "acl|save", .arity = 2, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(N). Where N is the number of configured users.",
          .summary = "Saves the ACL users to the aclfile",
          .handler = acl_save_command},
         {.name = "acl|setuser", .arity = -3, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(N). Where N is the number of rules provided.",
          .summary = "Creates an ACL user or changes its rules",
          .handler = acl_setuser_command},
         {.name = "acl|users", .arity = 2, .flags = kAclAdminFlags,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "6.0.0", .complexity = "O(N). Where N is the number of configured users.",
          .summary = "Lists the ACL users' names",
          .handler = acl_users_command},
         {.name = "acl|whoami", .arity = 2, .flags = kNoscript | kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "6.0.0", .complexity = "O(1)",
          .summary = "Returns the name of the connection's ACL user",
          .handler = acl_whoami_command},
     }},
  });
}

}  // namespace lawnkv
