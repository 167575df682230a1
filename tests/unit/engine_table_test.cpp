// The command table (src/engine/table.hpp): find() through its hash index
// agrees with the name-ordered rows, in any letter case.

#include <doctest/doctest.h>

#include <string>

#include "commands/families.hpp"
#include "engine/keys.hpp"
#include "engine/table.hpp"

namespace lawnkv {

TEST_CASE("command table: every row is found by its name in any case") {
  CommandTable t;
  register_all_commands(t);
  REQUIRE(t.all().size() > 64);  // the index has grown past its first size
  for (const auto& row : t.all()) {
    // Not a structured binding: clang 14 cannot capture one (CAPTURE does).
    const std::string& name = row.first;
    const CommandSpec& spec = row.second;
    CAPTURE(name);
    // find() compares folded input with the stored name: rows must be lower case.
    CHECK(name == to_lower(name));
    CHECK(t.find(name) == &spec);
    CHECK(t.find(to_upper(name)) == &spec);
    std::string mixed = name;
    for (size_t i = 0; i < mixed.size(); i += 2) mixed[i] = to_upper(std::string(1, mixed[i]))[0];
    CHECK(t.find(mixed) == &spec);
  }
}

TEST_CASE("command table: unknown names") {
  CommandTable t;
  CHECK(t.find("get") == nullptr);  // empty table
  register_all_commands(t);
  CHECK(t.find("") == nullptr);
  CHECK(t.find("ge") == nullptr);
  CHECK(t.find("gett") == nullptr);
  CHECK(t.find(std::string_view("get\0", 4)) == nullptr);
  CHECK(t.find("config|get") == nullptr);  // subcommands are not top-level rows
  CHECK(t.find(std::string(100, 'g')) == nullptr);
  // Only ASCII letters fold: bytes that differ from a name's in bit 5
  // elsewhere are other names ('{' is not '[', 0xC5 is not 0xE5).
  CHECK(t.find("get{") == nullptr);
  CHECK(t.find("\xc5xists") == nullptr);
  CHECK(t.find("\x05XISTS") == nullptr);
  // A row added later is found too, and the others still are.
  CommandSpec extra{.name = "zz-test-only", .arity = 1, .acl = "@fast", .group = "server", .since = "0.1.0",
                    .complexity = "O(1)", .summary = "test row"};
  t.add(extra);
  CHECK(t.find("ZZ-TEST-ONLY") != nullptr);
  CHECK(t.find("exists") != nullptr);
}

namespace {

// What a row lacks, or "" when it is complete: the docs COMMAND DOCS
// reports, categories, a handler (or subcommands to dispatch to), and one
// key-spec flag group per key spec COMMAND INFO derives from its keys.
std::string incomplete(const CommandSpec& c, const CommandSpec* parent) {
  if (c.name.empty() || c.name != to_lower(c.name)) return "name not lower case";
  if (parent && c.name.rfind(parent->name + "|", 0) != 0) return "subcommand name not parent|sub";
  if (c.arity == 0) return "arity";
  if (c.acl.empty() || c.acl[0] != '@') return "ACL categories";
  if (c.group.empty() || c.since.empty() || c.complexity.empty() || c.summary.empty()) return "docs";
  if (!c.handler && c.subcommands.empty()) return "no handler";
  if ((c.flags & ~(kRedisFlags | kSubscribedContext | kTransactionControl | kRunsQueue)) != 0) return "unknown flag";
  const KeyRange& k = c.keys;
  if (k.first < 0 || (k.first == 0 && (k.last != 0 || k.step != 0))) return "key range";
  if (k.first > 0 && k.step <= 0) return "key step";
  // Counted keys, keys after a keyword, or keys a proc finds are what makes
  // a row's keys movable; a proc is what finds the keys of "unknown" key specs.
  if (c.has(kMovableKeys) != (c.keynum.index > 0 || c.get_keys != nullptr || !c.keyword.word.empty()))
    return "movablekeys and keynum (or get_keys) go together";
  // ... and the keys after a keyword when all of them are keys (MIGRATE's
  // KEYS: key_specs() alone would take half; GEORADIUS's STORE, lastkey 0,
  // is the one key after it).
  const bool needs_proc =
      c.unknown_key_specs > 0 || (!c.keyword.word.empty() && c.keyword.lastkey < 0 && c.keyword.limit == 0);
  if (needs_proc != (c.get_keys != nullptr)) return "unknown key specs and get_keys go together";
  if (c.keynum.index > 0 && (c.keynum.firstkey <= 0 || c.keynum.keystep <= 0)) return "keynum";
  // A row whose only key specs are not_key (a shard channel) has none to
  // COMMAND GETKEYS, but its specs still need their flags.
  if (has_key_arguments(c) || !key_specs(c).empty()) {
    size_t groups = c.key_flags.empty() ? 0 : 1;
    for (char ch : c.key_flags) groups += ch == ';';
    if (groups != key_specs(c).size()) return "key flags: one group per key spec";
  } else if (!c.key_flags.empty()) {
    return "key flags without keys";
  }
  return "";
}

}  // namespace

TEST_CASE("command table: every row is complete") {
  CommandTable t;
  register_all_commands(t);
  size_t rows = 0;
  for (const auto& row : t.all()) {
    // Not a structured binding: clang 14 cannot capture one (CAPTURE does).
    const std::string& name = row.first;
    const CommandSpec& spec = row.second;
    CAPTURE(name);
    CHECK(incomplete(spec, nullptr) == "");
    ++rows;
    for (const CommandSpec& sub : spec.subcommands) {
      CAPTURE(sub.name);
      CHECK(incomplete(sub, &spec) == "");
      CHECK(sub.subcommands.empty());
      ++rows;
    }
  }
  CHECK(rows > 100);
}

TEST_CASE("command table: the completeness check rejects incomplete rows") {
  const CommandSpec full{.name = "x", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1}, .acl = "@read",
                         .group = "generic", .since = "1.0.0", .complexity = "O(1)", .summary = "s",
                         .key_flags = "RO", .handler = [](Call&) {}};
  CHECK(incomplete(full, nullptr) == "");
  CommandSpec c = full;
  c.summary = {};
  CHECK(incomplete(c, nullptr) == "docs");
  c = full;
  c.key_flags = {};
  CHECK(incomplete(c, nullptr) == "key flags: one group per key spec");
  c = full;
  c.handler = nullptr;
  CHECK(incomplete(c, nullptr) == "no handler");
  c = full;
  c.name = "Get";
  CHECK(incomplete(c, nullptr) == "name not lower case");
  c = full;
  c.keys = {1, 3, 1};
  c.key_flags = "RO;RO";
  CHECK(incomplete(c, nullptr) == "key flags: one group per key spec");
  c = full;
  c.flags |= kMovableKeys;
  CHECK(incomplete(c, nullptr) == "movablekeys and keynum (or get_keys) go together");
  c.keynum = {2, 1, 1};
  CHECK(incomplete(c, nullptr) == "key flags: one group per key spec");
  c.key_flags = "RO;RO";
  CHECK(incomplete(c, nullptr) == "");
}

}  // namespace lawnkv
