// Connection commands: PING, ECHO, QUIT, SELECT, HELLO, AUTH, CLIENT, RESET.

#include <string>

#include "commands/client_list.hpp"
#include "commands/client_pause_command.hpp"
#include "commands/client_setinfo.hpp"
#include "commands/client_tracking.hpp"
#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "core/error_format.hpp"
#include "engine/acl_check.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "pubsub/hub.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kProtocolNotInteger = "ERR Protocol version is not an integer or out of range";
constexpr std::string_view kHelloSyntax = "ERR Syntax error in HELLO option '%s'";
constexpr std::string_view kNoSuchClient = "ERR No such client";
constexpr std::string_view kUnblockReason = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";
constexpr std::string_view kNoPasswordSet =
    "ERR AUTH <password> called without any password configured for the default user. "
    "Are you sure your configuration is correct?";
constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// Logs the client in as user if pass is one of its passwords (Redis's
// ACLAuthenticateUser). Otherwise replies WRONGPASS, with an ACL LOG entry,
// and returns false.
bool authenticate_or_reply(Call& call, std::string_view user, std::string_view pass) {
  const acl::User* u = call.server.acl.find(user);
  if (u && u->enabled() && u->password_matches(pass)) {
    call.session.authenticated = true;
    call.session.user = u;
    return true;
  }
  acl_log(call.server, call.session, acl::kDeniedAuth, call.session.in_multi ? kAclMulti : kAclToplevel,
          call.argv[0], user, call.now_ms);
  call.error(err::kWrongPass);
  return false;
}

bool valid_client_name(std::string_view name) {
  for (unsigned char c : name)
    if (c < '!' || c > '~') return false;
  return true;
}

/* PING [message] */
void ping_command(Call& call) {
  if (call.argv.size() > 2) return call.error(err::wrong_arity("ping"));
  if (call.session.protocol == 2 && call.session.subscribed()) {
    call.reply.array(2);
    call.reply.bulk("pong");
    call.reply.bulk(call.argv.size() > 1 ? call.argv[1] : std::string_view());
    return;
  }
  if (call.argv.size() == 2) return call.reply.bulk(call.argv[1]);
  call.reply.simple("PONG");
}

/* ECHO message */
void echo_command(Call& call) { call.reply.bulk(call.argv[1]); }

/* QUIT */
void quit_command(Call& call) {
  call.reply.simple("OK");
  call.session.close_after_reply = true;
}

/* SELECT index */
void select_command(Call& call) {
  int db;
  if (!db_index_or_reply(call, call.argv[1], &db)) return;
  call.session.db = db;
  call.reply.simple("OK");
}

/* AUTH [username] password */
void auth_command(Call& call) {
  if (call.argv.size() > 3) return call.error(err::kSyntax);
  call.redact(1);
  if (call.argv.size() == 2 && call.server.acl.default_user().nopass()) return call.error(kNoPasswordSet);
  if (call.argv.size() == 3) call.redact(2);
  const std::string_view user = call.argv.size() == 3 ? call.argv[1] : std::string_view("default");
  if (authenticate_or_reply(call, user, call.argv.back())) call.reply.simple("OK");
}

/* HELLO [protover [AUTH username password] [SETNAME clientname]] */
void hello_command(Call& call) {
  int protocol = call.session.protocol;
  if (call.argv.size() >= 2) {
    long long v;
    if (!integer_or_reply(call, call.argv[1], &v, kProtocolNotInteger))
      return;
    if (v < 2 || v > 3) return call.error("NOPROTO unsupported protocol version");
    protocol = static_cast<int>(v);
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    const size_t more = call.argv.size() - i - 1;
    if (is_option(call.argv[i], "auth") && more >= 2) {
      has_auth = true;
      call.redact(i + 1);
      call.redact(i + 2);
      user = call.argv[i + 1];
      pass = call.argv[i + 2];
      i += 2;
    } else if (is_option(call.argv[i], "setname") && more >= 1) {
      has_name = true;
      name = call.argv[++i];
    } else {
      return call.error(format_error(kHelloSyntax, {call.argv[i]}));
    }
  }
  if (has_auth && !authenticate_or_reply(call, user, pass)) return;
  if (!call.session.authenticated) {
    return call.error("NOAUTH HELLO must be called with the client already authenticated, "
                      "otherwise the HELLO AUTH <user> <pass> option can be used to "
                      "authenticate the client and select the RESP protocol version at the same time");
  }
  if (has_name) {
    if (!valid_client_name(name)) return call.error(kBadClientName);
    call.session.name = std::string(name);
  }
  call.session.protocol = protocol;
  resp::Writer& out = call.reply;
  out.set_protocol(protocol);  // this reply already speaks the new protocol
  out.map(7);
  out.bulk("server");
  out.bulk("redis");
  out.bulk("version");
  out.bulk(config::kRedisVersion);
  out.bulk("proto");
  out.integer(protocol);
  out.bulk("id");
  out.integer(static_cast<int64_t>(call.session.id));
  out.bulk("mode");
  out.bulk("standalone");
  out.bulk("role");
  out.bulk("master");
  out.bulk("modules");
  out.array(0);
}

/* CLIENT ID */
void client_id_command(Call& call) { call.reply.integer(static_cast<int64_t>(call.session.id)); }

/* CLIENT GETNAME */
void client_getname_command(Call& call) {
  if (call.session.name.empty()) return call.reply.null();
  call.reply.bulk(call.session.name);
}

/* CLIENT SETNAME connection-name */
void client_setname_command(Call& call) {
  if (!valid_client_name(call.argv[2])) return call.error(kBadClientName);
  call.session.name = std::string(call.argv[2]);
  call.reply.simple("OK");
}

/* CLIENT INFO */
void client_info_command(Call& call) {
  call.reply.verbatim(client_line(call.server, call.session, call.now_ms) + "\n");
}

/* CLIENT LIST [TYPE NORMAL | MASTER | REPLICA | PUBSUB] [ID client-id [client-id ...]] */
void client_list_command(Call& call) {
  std::vector<Session*> clients;
  if (!clients_to_list_or_reply(call, &clients)) return;
  std::string out;
  for (const Session* s : clients) out += client_line(call.server, *s, call.now_ms) + "\n";
  call.reply.verbatim(out);
}

/* CLIENT KILL ip:port | CLIENT KILL <filter> <value> ... */
void client_kill_command(Call& call) {
  std::vector<Session*> victims;
  if (!clients_to_kill_or_reply(call, &victims)) return;
  for (Session* s : victims) kill_session(call, *s);
  // The old form answers OK or an error; the filters, how many were killed.
  if (call.argv.size() == 3) {
    if (victims.empty()) return call.error(kNoSuchClient);
    return call.reply.simple("OK");
  }
  call.reply.integer(static_cast<int64_t>(victims.size()));
}

/* CLIENT NO-EVICT ON | OFF */
void client_no_evict_command(Call& call) {
  if (iequals(call.argv[2], "on")) {
    call.session.no_evict = true;
  } else if (iequals(call.argv[2], "off")) {
    call.session.no_evict = false;
  } else {
    return call.error(err::kSyntax);
  }
  call.reply.simple("OK");
}

/* CLIENT REPLY ON | OFF | SKIP */
// OFF and SKIP answer nothing themselves; ON answers OK even while muted.
void client_reply_command(Call& call) {
  Session& s = call.session;
  if (iequals(call.argv[2], "on")) {
    s.reply_off = false;
    s.reply_skip = false;
    call.reply.unmute();
    call.reply.simple("OK");
  } else if (iequals(call.argv[2], "off")) {
    s.reply_off = true;
  } else if (iequals(call.argv[2], "skip")) {
    if (!s.reply_off) s.reply_skip_next = true;
  } else {
    call.error(err::kSyntax);
  }
}

/* CLIENT UNBLOCK client-id [TIMEOUT | ERROR] */
void client_unblock_command(Call& call) {
  if (call.argv.size() > 4) {
    return reply_subcommand_syntax_error(call);
  }
  bool error = false;
  if (call.argv.size() == 4) {
    if (is_option(call.argv[3], "error")) {
      error = true;
    } else if (!is_option(call.argv[3], "timeout")) {
      return call.error(kUnblockReason);
    }
  }
  long long id;
  if (!integer_or_reply(call, call.argv[2], &id)) return;
  const Session* target = id > 0 ? call.server.clients.find(static_cast<uint64_t>(id)) : nullptr;
  call.reply.integer(target && call.data.blocking.unblock(*target, error, &call.server.facts.errors) ? 1 : 0);
}

/* CLIENT HELP */
void client_help_command(Call& call) {
  reply_help(call, "CLIENT",
             {
                 "CACHING (YES|NO)",
                 "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
                 "GETREDIR",
                 "    Return the client ID we are redirecting to when tracking is enabled.",
                 "GETNAME",
                 "    Return the name of the current connection.",
                 "ID",
                 "    Return the ID of the current connection.",
                 "INFO",
                 "    Return information about the current client connection.",
                 "KILL <ip:port>",
                 "    Kill connection made from <ip:port>.",
                 "KILL <option> <value> [<option> <value> [...]]",
                 "    Kill connections. Options are: ID, TYPE, USER, ADDR, LADDR, SKIPME.",
                 "LIST [options ...]",
                 "    Return information about client connections. Options: TYPE, ID.",
                 "UNPAUSE",
                 "    Stop the current client pause, resuming traffic.",
                 "PAUSE <timeout> [WRITE|ALL]",
                 "    Suspend all, or just write, clients for <timeout> milliseconds.",
                 "NO-EVICT (ON|OFF)",
                 "    Protect current client connection from eviction.",
                 "REPLY (ON|OFF|SKIP)",
                 "    Control the replies sent to the current connection.",
                 "SETNAME <name>",
                 "    Assign the name <name> to the current connection.",
                 "SETINFO <option> <value>",
                 "    Set client meta attr. Options are:",
                 "    * LIB-NAME: the client lib name.",
                 "    * LIB-VER: the client lib version.",
                 "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                 "    Unblock the specified blocked client.",
                 "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
                 "         [OPTIN] [OPTOUT] [NOLOOP]",
                 "    Control server assisted client side caching.",
                 "TRACKINGINFO",
                 "    Report tracking status for the current connection.",
             });
}

/* RESET */
void reset_command(Call& call) {
  Session& s = call.session;
  s.db = 0;
  s.protocol = 2;
  s.name.clear();
  s.in_multi = false;
  s.multi_aborted = false;
  s.queued.clear();
  call.data.keyspace.watches().unwatch_all(s.watcher);
  call.data.hub.unsubscribe_all(s);
  call.data.tracking.disable(s);
  s.no_evict = false;
  // As Redis's clearClientConnectionState: replies come back on, unless
  // RESET is itself the command a CLIENT REPLY SKIP mutes.
  s.reply_off = false;
  s.reply_skip_next = false;
  if (!s.reply_skip) call.reply.unmute();
  call.server.clients.stop_monitor(s);
  // As Redis's clearClientConnectionState: back to the default user,
  // logged in if it needs no password.
  s.user = &call.server.acl.default_user();
  s.authenticated = s.user->nopass() && s.user->enabled();
  call.reply.simple("RESET");
}

}  // namespace

void register_connection_commands(CommandTable& t) {
  t.add({
    {.name = "auth", .arity = -2, .flags = kNoscript | kLoading | kStale | kFast | kNoAuth | kSentinel | kAllowBusy,
     .acl = "@fast @connection",
     .group = "connection", .since = "1.0.0", .complexity = "O(N) where N is the password length",
     .summary = "Authenticates the connection",
     .handler = auth_command},
    {.name = "client", .arity = -2, .flags = kSentinel,
     .acl = "@slow",
     .group = "connection", .since = "2.4.0", .complexity = "Depends on the subcommand",
     .summary = "Commands about client connections",
     .subcommands = with_client_setinfo_row(with_client_pause_rows(with_client_tracking_rows({
         {.name = "client|id", .arity = 2, .flags = kNoscript | kLoading | kStale | kSentinel,
          .acl = "@slow @connection",
          .group = "connection", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Returns the connection's id",
          .handler = client_id_command},
         {.name = "client|getname", .arity = 2, .flags = kNoscript | kLoading | kStale | kSentinel,
          .acl = "@slow @connection",
          .group = "connection", .since = "2.6.9", .complexity = "O(1)",
          .summary = "Returns the connection's name",
          .handler = client_getname_command},
         {.name = "client|setname", .arity = 3, .flags = kNoscript | kLoading | kStale | kSentinel,
          .acl = "@slow @connection",
          .group = "connection", .since = "2.6.9", .complexity = "O(1)",
          .summary = "Names the connection",
          .handler = client_setname_command},
         {.name = "client|info", .arity = 2, .flags = kNoscript | kLoading | kStale | kSentinel,
          .acl = "@slow @connection",
          .group = "connection", .since = "6.2.0", .complexity = "O(1)",
          .summary = "Describes this connection",
          .tips = "nondeterministic_output",
          .handler = client_info_command},
         {.name = "client|list", .arity = -2, .flags = kAdmin | kNoscript | kLoading | kStale | kSentinel,
          .acl = "@admin @slow @dangerous @connection",
          .group = "connection", .since = "2.4.0", .complexity = "O(N) where N is the number of clients",
          .summary = "Describes every connection",
          .tips = "nondeterministic_output",
          .handler = client_list_command},
         {.name = "client|kill", .arity = -3, .flags = kAdmin | kNoscript | kLoading | kStale | kSentinel,
          .acl = "@admin @slow @dangerous @connection",
          .group = "connection", .since = "2.4.0", .complexity = "O(N) where N is the number of clients",
          .summary = "Closes client connections",
          .handler = client_kill_command},
         {.name = "client|no-evict", .arity = 3, .flags = kAdmin | kNoscript | kLoading | kStale | kSentinel,
          .acl = "@admin @slow @dangerous @connection",
          .group = "connection", .since = "7.0.0", .complexity = "O(1)",
          .summary = "Sets the connection's client eviction mode",
          .handler = client_no_evict_command},
         {.name = "client|reply", .arity = 3, .flags = kNoscript | kLoading | kStale,
          .acl = "@slow @connection",
          .group = "connection", .since = "3.2.0", .complexity = "O(1)",
          .summary = "Instruct the server whether to reply to commands",
          .handler = client_reply_command},
         {.name = "client|unblock", .arity = -3, .flags = kAdmin | kNoscript | kLoading | kStale | kSentinel,
          .acl = "@admin @slow @dangerous @connection",
          .group = "connection", .since = "5.0.0", .complexity = "O(log N) where N is the number of client connections",
          .summary = "Unblocks a client blocked on keys, as if its timeout had come or with an error",
          .handler = client_unblock_command},
         {.name = "client|help", .arity = 2, .flags = kLoading | kStale | kSentinel,
          .acl = "@slow @connection",
          .group = "connection", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Describes the CLIENT subcommands",
          .handler = client_help_command},
     })))},
    {.name = "echo", .arity = 2, .flags = kLoading | kStale | kFast,
     .acl = "@fast @connection",
     .group = "connection", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns its argument",
     .handler = echo_command},
    {.name = "hello", .arity = -1, .flags = kNoscript | kLoading | kStale | kFast | kNoAuth | kSentinel | kAllowBusy,
     .acl = "@fast @connection",
     .group = "connection", .since = "6.0.0", .complexity = "O(1)",
     .summary = "Picks the protocol version and describes the server",
     .handler = hello_command},
    {.name = "ping", .arity = -1, .flags = kFast | kSentinel | kSubscribedContext,
     .acl = "@fast @connection",
     .group = "connection", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Checks that the server answers",
     .tips = "request_policy:all_shards response_policy:all_succeeded",
     .handler = ping_command},
    {.name = "quit", .arity = -1, .flags = kNoscript | kLoading | kStale | kFast | kNoAuth | kAllowBusy | kSubscribedContext | kTransactionControl,
     .acl = "@fast @connection",
     .group = "connection", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Closes the connection",
     .handler = quit_command},
    {.name = "reset", .arity = 1, .flags = kNoscript | kLoading | kStale | kFast | kNoAuth | kAllowBusy | kSubscribedContext | kTransactionControl,
     .acl = "@fast @connection",
     .group = "connection", .since = "6.2.0", .complexity = "O(1)",
     .summary = "Returns the connection to its initial state",
     .handler = reset_command},
    {.name = "select", .arity = 2, .flags = kLoading | kStale | kFast,
     .acl = "@fast @connection",
     .group = "connection", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Changes the connection's database",
     .handler = select_command},
  });
}

}  // namespace lawnkv
