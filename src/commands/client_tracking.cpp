// Client-side caching commands: CLIENT TRACKING, CLIENT CACHING, CLIENT
// GETREDIR, CLIENT TRACKINGINFO, as Redis 7.0's clientCommand serves them
// (option order, checks and error texts). The tracking table and the
// invalidation messages: engine/tracking.hpp.

#include <vector>

#include "commands/client_tracking.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kOneRedirect = "ERR A client can only redirect to a single other client";
constexpr std::string_view kNoRedirectClient = "ERR The client ID you want redirect to does not exist";
constexpr std::string_view kPrefixNeedsBcast = "ERR PREFIX option requires BCAST mode to be enabled";
constexpr std::string_view kBcastSwitch =
    "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling "
    "it with a different mode.";
constexpr std::string_view kOptBcast = "ERR OPTIN and OPTOUT are not compatible with BCAST";
constexpr std::string_view kOptBoth = "ERR You can't specify both OPTIN mode and OPTOUT mode";
constexpr std::string_view kOptSwitch =
    "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling "
    "it with a different mode.";
constexpr std::string_view kCachingNotTracking =
    "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode "
    "enabled";
constexpr std::string_view kCachingYes = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
constexpr std::string_view kCachingNo = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";

/* CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP] */
// The options are read first, in order (an unknown one, or REDIRECT or
// PREFIX without its value, is a syntax error); then ON's checks in
// Redis's order; OFF ignores the options.
void client_tracking_command(Call& call) {
  Tracking::Options o;
  long long redirect = 0;
  std::vector<std::string_view> prefixes;
  const size_t argc = call.argv.size();
  for (size_t j = 3; j < argc; ++j) {
    const bool more = j + 1 < argc;
    const std::string_view a = call.argv[j];
    if (is_option(a, "redirect") && more) {
      ++j;
      if (redirect != 0) return call.error(kOneRedirect);
      if (!integer_or_reply(call, call.argv[j], &redirect)) return;
      if (redirect <= 0 || call.server.clients.find(static_cast<uint64_t>(redirect)) == nullptr)
        return call.error(kNoRedirectClient);
    } else if (is_option(a, "bcast")) {
      o.bcast = true;
    } else if (is_option(a, "optin")) {
      o.optin = true;
    } else if (is_option(a, "optout")) {
      o.optout = true;
    } else if (is_option(a, "noloop")) {
      o.noloop = true;
    } else if (is_option(a, "prefix") && more) {
      prefixes.push_back(call.argv[++j]);
    } else {
      return call.error(err::kSyntax);
    }
  }
  Session& s = call.session;
  Tracking& tracking = call.data.tracking;
  if (is_option(call.argv[2], "on")) {
    if (!o.bcast && !prefixes.empty()) return call.error(kPrefixNeedsBcast);
    if (s.tracking.on && s.tracking.bcast != o.bcast) return call.error(kBcastSwitch);
    if (o.bcast && (o.optin || o.optout)) return call.error(kOptBcast);
    if (o.optin && o.optout) return call.error(kOptBoth);
    if ((o.optin && s.tracking.optout) || (o.optout && s.tracking.optin)) return call.error(kOptSwitch);
    if (o.bcast) {
      const Tracking::PrefixCheck check = tracking.check_prefixes(s, prefixes);
      if (!check.error.empty()) call.error(check.error);
      if (!check.proceed) return;
    }
    tracking.enable(s, static_cast<uint64_t>(redirect), o, prefixes);
  } else if (is_option(call.argv[2], "off")) {
    tracking.disable(s);
  } else {
    return call.error(err::kSyntax);
  }
  call.reply.simple("OK");
}

/* CLIENT CACHING YES|NO */
void client_caching_command(Call& call) {
  TrackingState& t = call.session.tracking;
  if (!t.on) return call.error(kCachingNotTracking);
  if (is_option(call.argv[2], "yes")) {
    if (!t.optin) return call.error(kCachingYes);
  } else if (is_option(call.argv[2], "no")) {
    if (!t.optout) return call.error(kCachingNo);
  } else {
    return call.error(err::kSyntax);
  }
  t.caching = true;
  call.reply.simple("OK");
}

int64_t redirect_shown(const TrackingState& t) { return t.on ? static_cast<int64_t>(t.redirect) : -1; }

/* CLIENT GETREDIR */
void client_getredir_command(Call& call) { call.reply.integer(redirect_shown(call.session.tracking)); }

/* CLIENT TRACKINGINFO */
// flags (a set: on/off, then bcast, optin [caching-yes], optout
// [caching-no], noloop, broken_redirect), redirect, prefixes.
void client_trackinginfo_command(Call& call) {
  const TrackingState& t = call.session.tracking;
  std::vector<std::string_view> flags{t.on ? "on" : "off"};
  if (t.bcast) flags.push_back("bcast");
  if (t.optin) {
    flags.push_back("optin");
    if (t.caching) flags.push_back("caching-yes");
  }
  if (t.optout) {
    flags.push_back("optout");
    if (t.caching) flags.push_back("caching-no");
  }
  if (t.noloop) flags.push_back("noloop");
  if (t.broken_redirect) flags.push_back("broken_redirect");
  resp::Writer& r = call.reply;
  r.map(3);
  r.bulk("flags");
  r.set(flags.size());
  for (std::string_view f : flags) r.bulk(f);
  r.bulk("redirect");
  r.integer(redirect_shown(t));
  r.bulk("prefixes");
  r.array(t.prefixes.size());
  for (const std::string& p : t.prefixes) r.bulk(p);
}

}  // namespace

std::vector<CommandSpec> with_client_tracking_rows(std::vector<CommandSpec> rows) {
  constexpr uint32_t kFlags = kNoscript | kLoading | kStale;
  rows.push_back({.name = "client|tracking", .arity = -3, .flags = kFlags,
                  .acl = "@slow @connection",
                  .group = "connection", .since = "6.0.0", .complexity = "O(1). Some options may introduce additional complexity.",
                  .summary = "Turns client-side caching (key invalidation messages) on or off for the connection",
                  .handler = client_tracking_command});
  rows.push_back({.name = "client|caching", .arity = 3, .flags = kFlags,
                  .acl = "@slow @connection",
                  .group = "connection", .since = "6.0.0", .complexity = "O(1)",
                  .summary = "Says whether the next command's keys are tracked (OPTIN and OPTOUT modes)",
                  .handler = client_caching_command});
  rows.push_back({.name = "client|getredir", .arity = 2, .flags = kFlags,
                  .acl = "@slow @connection",
                  .group = "connection", .since = "6.0.0", .complexity = "O(1)",
                  .summary = "Returns the id of the client that receives this connection's invalidations",
                  .handler = client_getredir_command});
  rows.push_back({.name = "client|trackinginfo", .arity = 2, .flags = kFlags,
                  .acl = "@slow @connection",
                  .group = "connection", .since = "6.2.0", .complexity = "O(1)",
                  .summary = "Describes the connection's client-side caching state",
                  .handler = client_trackinginfo_command});
  return rows;
}

}  // namespace lawnkv
