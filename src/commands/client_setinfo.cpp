// CLIENT SETINFO LIB-NAME name | LIB-VER version: Redis 7.2's
// clientSetinfoCommand (Redis 7.0.15 lacks it; client libraries send it on
// every connection and ignore an error). The value is checked as Redis's
// validateClientAttr checks it, as a C string: every byte up to the first
// NUL within '!'..'~'. An empty value clears the field. CLIENT LIST and
// CLIENT INFO show the fields as lib-name= and lib-ver= after resp=, as 7.2;
// RESET keeps them (they describe the library, not the session), and HELLO
// has no say in them.
#include "commands/client_setinfo.hpp"

#include "core/error_format.hpp"
#include "engine/args.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kUnknownAttr = "ERR Unrecognized option '%s'";
constexpr std::string_view kBadValue = "ERR %s cannot contain spaces, newlines or special characters.";

bool valid_attr(std::string_view value) {
  for (unsigned char c : value) {
    if (c == '\0') return true;
    if (c < '!' || c > '~') return false;
  }
  return true;
}

/* CLIENT SETINFO <LIB-NAME libname | LIB-VER libver> */
void client_setinfo_command(Call& call) {
  const std::string_view attr = call.argv[2];
  std::string* field = nullptr;
  if (is_option(attr, "lib-name")) {
    field = &call.session.lib_name;
  } else if (is_option(attr, "lib-ver")) {
    field = &call.session.lib_ver;
  } else {
    return call.error(format_error(kUnknownAttr, {attr}));
  }
  const std::string_view value = call.argv[3];
  if (!valid_attr(value)) return call.error(format_error(kBadValue, {attr}));
  // Shown as Redis prints it, up to a NUL.
  *field = std::string(value.substr(0, value.find('\0')));
  call.reply.simple("OK");
}

}  // namespace

std::vector<CommandSpec> with_client_setinfo_row(std::vector<CommandSpec> rows) {
  rows.push_back({.name = "client|setinfo", .arity = 4, .flags = kNoscript | kLoading | kStale | kSentinel,
                  .acl = "@slow @connection",
                  .group = "connection", .since = "7.2.0", .complexity = "O(1)",
                  .summary = "Names the client library behind the connection and its version",
                  .tips = "request_policy:all_nodes response_policy:all_succeeded",
                  .handler = client_setinfo_command});
  return rows;
}

}  // namespace lawnkv
