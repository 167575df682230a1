// COMMAND [COUNT | LIST | INFO | DOCS | GETKEYS | HELP]: the command table
// as Redis 7.0 describes it. redis-cli sends COMMAND DOCS when it starts, to
// build its help and hints.
//
// An INFO row: name, arity, flags, first key, last key, key step, ACL
// categories, tips, key specs, subcommands (rows too). Key specs are
// simplified: lawnkv's commands all find their keys by position, so each
// spec is an index begin_search with a range find_keys, derived from the
// row's key positions, with the flags and notes the row carries. Lists come
// in table order (alphabetical, subcommands after their parent) where Redis's
// follow its hash table.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "commands/server_family.hpp"
#include "engine/acl_categories.hpp"
#include "engine/keys.hpp"
#include "core/glob.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kInvalidCommand = "ERR Invalid command specified";
constexpr std::string_view kNoKeyArguments = "ERR The command has no key arguments";
constexpr std::string_view kInvalidArgCount = "ERR Invalid number of arguments specified for command";
constexpr std::string_view kInvalidArguments = "ERR Invalid arguments specified for command";

struct FlagName {
  uint32_t flag;
  std::string_view name;
};
// In the order Redis 7.0 lists them (sentinel, protected and may_replicate
// are not shown: Redis hides may_replicate on purpose).
constexpr FlagName kFlagNames[] = {
    {kWrite, "write"},           {kReadonly, "readonly"},          {kDenyOom, "denyoom"},
    {kAdmin, "admin"},           {kPubsub, "pubsub"},              {kNoscript, "noscript"},
    {kBlocking, "blocking"},     {kLoading, "loading"},            {kStale, "stale"},
    {kSkipMonitor, "skip_monitor"}, {kSkipSlowlog, "skip_slowlog"}, {kFast, "fast"},
    {kNoAuth, "no_auth"},        {kNoMandatoryKeys, "no_mandatory_keys"},
    {kNoAsyncLoading, "no_async_loading"}, {kNoMulti, "no_multi"}, {kMovableKeys, "movablekeys"},
    {kAllowBusy, "allow_busy"},
};


std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const size_t at = s.find(sep);
    if (at != 0) out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

// s cut at each sep, empty fields kept (";a" is "", "a"): key notes by spec.
std::vector<std::string_view> split_fields(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  while (true) {
    const size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// The row's ACL categories (its bits), as "@name", in Redis's order.
std::vector<std::string> categories(const CommandSpec& c) {
  std::vector<std::string> out;
  for (const AclCategoryName& cat : acl_category_names())
    if (c.acl_bits & cat.bit) out.push_back("@" + std::string(cat.name));
  return out;
}



void reply_key_spec(Call& call, const KeySpec& ks, std::string_view flags, std::string_view notes) {
  auto& r = call.reply;
  const std::vector<std::string_view> names = split(flags, ' ');
  r.map(notes.empty() ? 3 : 4);
  if (!notes.empty()) {
    r.bulk("notes");
    r.bulk(notes);
  }
  r.bulk("flags");
  r.set(names.size());
  for (std::string_view f : names) r.simple(f);
  r.bulk("begin_search");
  r.map(2);
  r.bulk("type");
  if (ks.unknown) {
    r.bulk("unknown");
    r.bulk("spec");
    r.map(0);
    r.bulk("find_keys");
    r.map(2);
    r.bulk("type");
    r.bulk("unknown");
    r.bulk("spec");
    r.map(0);
    return;
  }
  if (!ks.keyword.empty()) {
    r.bulk("keyword");
    r.bulk("spec");
    r.map(2);
    r.bulk("keyword");
    r.bulk(ks.keyword);
    r.bulk("startfrom");
    r.integer(ks.index);
  } else {
    r.bulk("index");
    r.bulk("spec");
    r.map(1);
    r.bulk("index");
    r.integer(ks.index);
  }
  r.bulk("find_keys");
  r.map(2);
  r.bulk("type");
  if (ks.keynum) {
    r.bulk("keynum");
    r.bulk("spec");
    r.map(3);
    r.bulk("keynumidx");
    r.integer(0);
    r.bulk("firstkey");
    r.integer(ks.firstkey);
    r.bulk("keystep");
    r.integer(ks.keystep);
    return;
  }
  r.bulk("range");
  r.bulk("spec");
  r.map(3);
  r.bulk("lastkey");
  r.integer(ks.lastkey);
  r.bulk("keystep");
  r.integer(ks.keystep);
  r.bulk("limit");
  r.integer(ks.limit);
}

// One COMMAND INFO row; null for an unknown command.
void reply_info(Call& call, const CommandSpec* c) {
  auto& r = call.reply;
  if (!c) return r.null();
  r.array(10);
  r.bulk(c->name);
  r.integer(c->arity);
  size_t nflags = 0;
  for (const auto& f : kFlagNames) nflags += c->has(f.flag);
  r.set(nflags);
  for (const auto& f : kFlagNames)
    if (c->has(f.flag)) r.simple(f.name);
  r.integer(c->keys.first);
  r.integer(c->keys.last);
  r.integer(c->keys.step);
  const auto cats = categories(*c);
  r.set(cats.size());
  for (const std::string& cat : cats) r.simple(cat);
  const auto tips = split(c->tips, ' ');
  r.set(tips.size());
  for (std::string_view tip : tips) r.bulk(tip);
  const auto specs = key_specs(*c);
  const auto flags = split(c->key_flags, ';');
  const auto notes = split_fields(c->key_notes, ';');
  r.set(specs.size());
  for (size_t i = 0; i < specs.size(); ++i)
    reply_key_spec(call, specs[i], i < flags.size() ? flags[i] : "", i < notes.size() ? notes[i] : "");
  if (c->subcommands.empty()) return r.set(0);
  r.array(c->subcommands.size());
  for (const CommandSpec& sub : c->subcommands) reply_info(call, &sub);
}

// One COMMAND DOCS entry: summary, since, group, complexity, subcommands.
void reply_docs(Call& call, const CommandSpec& c) {
  auto& r = call.reply;
  r.map(4 + (c.subcommands.empty() ? 0 : 1));
  r.bulk("summary");
  r.bulk(c.summary);
  r.bulk("since");
  r.bulk(c.since);
  r.bulk("group");
  r.bulk(c.group);
  r.bulk("complexity");
  r.bulk(c.complexity);
  if (c.subcommands.empty()) return;
  r.bulk("subcommands");
  r.map(c.subcommands.size());
  for (const CommandSpec& sub : c.subcommands) {
    r.bulk(sub.name);
    reply_docs(call, sub);
  }
}

/* COMMAND */
void command_command(Call& call) {
  const auto& all = call.server.commands.all();
  call.reply.array(all.size());
  for (const auto& [name, c] : all) reply_info(call, &c);
}

/* COMMAND COUNT */
void command_count_command(Call& call) { call.reply.integer(static_cast<int64_t>(call.server.commands.all().size())); }

/* COMMAND INFO [command-name ...] */
void command_info_command(Call& call) {
  if (call.argv.size() == 2) return command_command(call);
  call.reply.array(call.argv.size() - 2);
  for (size_t i = 2; i < call.argv.size(); ++i) reply_info(call, call.server.commands.find_fullname(call.argv[i]));
}

/* COMMAND DOCS [command-name ...]
 * Unknown names are left out. */
void command_docs_command(Call& call) {
  std::vector<const CommandSpec*> found;
  if (call.argv.size() == 2) {
    for (const auto& [name, c] : call.server.commands.all()) found.push_back(&c);
  } else {
    for (size_t i = 2; i < call.argv.size(); ++i)
      if (const CommandSpec* c = call.server.commands.find_fullname(call.argv[i])) found.push_back(c);
  }
  call.reply.map(found.size());
  for (const CommandSpec* c : found) {
    call.reply.bulk(c->name);
    reply_docs(call, *c);
  }
}

/* COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern] */
void command_list_command(Call& call) {
  enum { kNone, kModule, kAclCat, kPattern } filter = kNone;
  std::string_view arg;
  for (size_t i = 2; i < call.argv.size(); i += 3) {
    // Redis takes one FILTERBY, as the last three arguments.
    if (!iequals(call.argv[i], "filterby") || call.argv.size() - 1 - i != 2) return call.error(err::kSyntax);
    const std::string_view type = call.argv[i + 1];
    if (iequals(type, "module")) filter = kModule;
    else if (iequals(type, "aclcat")) filter = kAclCat;
    else if (iequals(type, "pattern")) filter = kPattern;
    else return call.error(err::kSyntax);
    arg = call.argv[i + 2];
  }
  const std::optional<AclCategory> category = find_acl_category(arg);
  auto keep = [&](const CommandSpec& c) {
    switch (filter) {
      case kNone: return true;
      case kModule: return false;  // lawnkv loads no modules
      case kAclCat:
        return category && (c.acl_bits & *category) != 0;
      case kPattern: return glob_match(arg, c.name, true);
    }
    return false;
  };
  std::vector<std::string_view> names;
  for (const auto& [name, c] : call.server.commands.all()) {
    if (keep(c)) names.push_back(c.name);
    for (const CommandSpec& sub : c.subcommands)
      if (keep(sub)) names.push_back(sub.name);
  }
  call.reply.array_of_bulks(names);
}

// COMMAND GETKEYS and GETKEYSANDFLAGS: the keys of the command given, by
// engine/keys.hpp, with their key spec's flags when with_flags.
void getkeys_generic(Call& call, bool with_flags) {
  const auto args = call.argv.subspan(2);
  const CommandSpec* c = call.server.commands.find(args[0]);
  if (c && !c->subcommands.empty() && args.size() >= 2) c = c->subcommand(to_lower(args[1]));
  if (!c) return call.error(kInvalidCommand);
  if (!has_key_arguments(*c)) return call.error(kNoKeyArguments);
  const long argc = static_cast<long>(args.size());
  if ((c->arity > 0 && c->arity != argc) || argc < -c->arity)
    return call.error(kInvalidArgCount);
  const std::vector<KeyRef> keys = find_keys(*c, args);
  if (keys.empty() && !c->has(kNoMandatoryKeys)) return call.error(kInvalidArguments);
  const auto spec_flags = split(c->key_flags, ';');
  call.reply.array(keys.size());
  for (const KeyRef& k : keys) {
    if (!with_flags) {
      call.reply.bulk(args[static_cast<size_t>(k.pos)]);
      continue;
    }
    call.reply.array(2);
    call.reply.bulk(args[static_cast<size_t>(k.pos)]);
    std::string_view flags = static_cast<size_t>(k.spec) < spec_flags.size() ? spec_flags[static_cast<size_t>(k.spec)] : "";
    if (c->variable_key_flags && flags.find("variable_flags") != std::string_view::npos)
      flags = c->variable_key_flags(args);
    const auto names = split(flags, ' ');
    call.reply.set(names.size());
    for (std::string_view f : names) call.reply.simple(f);
  }
}

/* COMMAND GETKEYS command [arg ...] */
void command_getkeys_command(Call& call) { getkeys_generic(call, false); }

/* COMMAND GETKEYSANDFLAGS command [arg ...] */
void command_getkeysandflags_command(Call& call) { getkeys_generic(call, true); }

/* COMMAND HELP */
void command_help_command(Call& call) {
  reply_help(call, "COMMAND",
             {"(no subcommand)", "    Return details about all commands.", "COUNT",
              "    Return the total number of commands in this server.", "LIST",
              "    Return a list of all commands in this server.", "INFO [<command-name> ...]",
              "    Return details about the given commands, or about all of them.", "DOCS [<command-name> ...]",
              "    Return documentation details about the given commands, or about all of them.",
              "GETKEYS <full-command>", "    Return the keys from a full command.",
              "GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full command."});
}

}  // namespace

void register_command_command(CommandTable& t) {
  t.add({
    {.name = "command", .arity = -1, .flags = kLoading | kStale,
     .acl = "@slow @connection",
     .group = "server", .since = "2.8.13", .complexity = "O(N) where N is the number of commands",
     .summary = "Describes every command",
     .tips = "nondeterministic_output_order",
     .handler = command_command,
     .subcommands = {
         {.name = "command|count", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "2.8.13", .complexity = "O(1)",
          .summary = "Returns the number of commands",
          .handler = command_count_command},
         {.name = "command|docs", .arity = -2, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "7.0.0", .complexity = "O(N) where N is the number of commands asked for",
          .summary = "Returns the documentation of commands",
          .tips = "nondeterministic_output_order",
          .handler = command_docs_command},
         {.name = "command|getkeys", .arity = -4, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "2.8.13", .complexity = "O(N) where N is the number of arguments",
          .summary = "Returns the keys of a full command line",
          .handler = command_getkeys_command},
         {.name = "command|getkeysandflags", .arity = -4, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "7.0.0", .complexity = "O(N) where N is the number of arguments",
          .summary = "Returns the keys of a full command line with the access flags of each",
          .handler = command_getkeysandflags_command},
         {.name = "command|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Describes the COMMAND subcommands",
          .handler = command_help_command},
         {.name = "command|info", .arity = -2, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "2.8.13", .complexity = "O(N) where N is the number of commands asked for",
          .summary = "Describes commands",
          .tips = "nondeterministic_output_order",
          .handler = command_info_command},
         {.name = "command|list", .arity = -2, .flags = kLoading | kStale,
          .acl = "@slow @connection",
          .group = "server", .since = "7.0.0", .complexity = "O(N) where N is the number of commands",
          .summary = "Returns the command names, optionally filtered",
          .tips = "nondeterministic_output_order",
          .handler = command_list_command},
     }},
  });
}

}  // namespace lawnkv
