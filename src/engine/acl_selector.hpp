#pragma once
// An ACL selector: what commands, keys and channels it allows, built by the
// rules of ACL SETUSER (Redis 7.0's acl.c ACLSetSelector) and described back
// as ACL LIST and GETUSER print it. A user has a root selector and any number
// of `(...)` selectors; a command runs if one selector allows it whole.
//
//   commands  a bit per command row and subcommand (CommandSpec::acl_id);
//             +cmd / -cmd set or clear a row's bit and those of its
//             subcommands, +@cat / -@cat those of every row in the category,
//             +@all also sets the "future commands" bit that makes the
//             description start from +@all. +cmd|arg on a command without
//             subcommands allows that first argument only (Redis's
//             deprecated first-args).
//   keys      patterns, each for reading (%R~), writing (%W~) or both (~):
//             a key spec that reads (access) needs R, one that inserts,
//             deletes or updates needs W; allkeys (~*) allows every key.
//   channels  patterns (&p); allchannels (&*) allows every channel. A
//             PSUBSCRIBE pattern must equal an allowed pattern literally.
//
// The description of the commands is the shortest Redis finds greedily: +@all
// or -@all, then the category that best fits what differs, again until none
// fits better than it misfits, then single commands. With lawnkv's table the
// single commands come in name order (Redis's in its hash table's order).

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/table.hpp"

namespace lawnkv::acl {

// Why a rule was refused, as Redis's errno values in ACLSetUser; the text
// is rule_error_text's.
enum class RuleError : uint8_t {
  kNone,
  kUnknownName,         // ENOENT: no such command or category
  kSyntax,              // EINVAL
  kKeyAfterAllKeys,     // EEXIST
  kChannelAfterAll,     // EISDIR
  kNoSuchPassword,      // ENODEV
  kBadHash,             // EBADMSG
  kDuplicateUser,       // EALREADY (config files)
  kSubcommandFirstArg,  // ECHILD
};
std::string_view rule_error_text(RuleError e);

// What ACL checks find (Redis's ACL_OK, ACL_DENIED_*, with its values:
// when no selector allows a command, the greatest reason is reported).
enum Verdict : uint8_t { kAllowed = 0, kDeniedCommand = 1, kDeniedKey = 2, kDeniedAuth = 3, kDeniedChannel = 4 };

// The values of engine/keys.hpp's kKeySpecReads and kKeySpecWrites: a key
// spec's bits are the permissions it needs.
enum KeyPerm : uint8_t { kKeyRead = 1, kKeyWrite = 2, kKeyReadWrite = 3 };
// A key pattern, with how it is matched: the simple kinds without the glob
// engine, each answering as glob_match would (which matches the empty key
// to the empty pattern alone).
struct KeyPattern {
  enum Kind : uint8_t {
    kGlob,     // anything else: glob_match
    kLiteral,  // no * ? [ or \: the key equals it
    kPrefix,   // a literal, then one '*' ("*", "cache:*"): a non-empty key starting with the literal
  };
  KeyPattern(std::string p, uint8_t perm);
  bool matches(std::string_view key) const;

  std::string pattern;
  uint8_t perms;  // KeyPerm bits
  Kind kind;
};

// True if s has a space (isspace) or a NUL byte: names and patterns may not.
bool has_spaces(std::string_view s);

class Selector {
 public:
  // all_channels: acl-pubsub-default is allchannels.
  Selector(bool root, bool all_channels);

  // Applies one rule (not a user's: on, >pass... are User's).
  RuleError apply(std::string_view op, const CommandTable& table);

  bool root() const { return root_; }
  bool all_keys() const { return all_keys_; }
  bool all_channels() const { return all_channels_; }
  bool all_commands() const { return all_commands_; }

  // The checks of one command (argv whole, arity checked); on a denied key
  // or channel *pos is its argument's index.
  Verdict check(const CommandSpec& spec, std::span<const std::string_view> argv, int* pos) const;
  bool command_allowed(const CommandSpec& spec, std::span<const std::string_view> argv) const;
  bool key_allowed(std::string_view key, uint8_t perms) const;
  bool channel_allowed(std::string_view channel, bool is_pattern) const;
  // Whether it allows every key for perms (a '*' pattern with them, or allkeys).
  bool unrestricted_keys(uint8_t perms) const;
  const std::vector<std::string>& channels() const { return channels_; }

  // "+@all -debug" (ACL GETUSER's commands).
  std::string describe_commands(const CommandTable& table) const;
  // "~a %R~b" or "~*" (GETUSER's keys); "&a &b" or "&*" (its channels).
  std::string describe_keys() const;
  std::string describe_channels() const;
  // What ACL LIST shows of it: "~* &* +@all", "resetchannels -@all".
  std::string describe(const CommandTable& table) const;

 private:
  bool bit(uint32_t id) const;
  void set_bit(uint32_t id, bool on);
  // Allows or denies a row and its subcommands (Redis's ACLChangeSelectorPerm).
  void change(const CommandSpec& spec, bool allow);
  void change_category(uint32_t category, bool allow, const CommandTable& table);
  void set_all(bool allow);
  RuleError apply_key_pattern(std::string_view op);
  RuleError apply_channel_pattern(std::string_view op);
  RuleError allow_command(std::string_view name, const CommandTable& table);
  RuleError deny_command(std::string_view name, const CommandTable& table);

  // The keys part of check (the selector has key patterns).
  Verdict check_keys(const CommandSpec& spec, std::span<const std::string_view> argv, int* pos) const;

  bool root_;
  bool all_keys_ = false;
  bool all_channels_;
  bool all_commands_ = false;  // +@all and nothing taken away since
  // Redis's reserved bit that only +@all sets (-@all clears): the
  // description starts from +@all when it is set. Bits past bits_ (rows
  // added after the last +@all or -@all) read as it.
  bool future_ = false;
  std::vector<uint64_t> bits_;
  std::map<uint32_t, std::vector<std::string>> first_args_;  // by acl_id
  std::vector<KeyPattern> keys_;
  std::vector<std::string> channels_;
};

// A row named as ACL rules name it: "get", "config|get" (nullptr if none;
// as Redis's lookupCommandBySdsLogic, any case, at most one '|').
const CommandSpec* find_acl_command(const CommandTable& table, std::string_view name);

}  // namespace lawnkv::acl
