#pragma once
// An ACL user (Redis 7.0): on or off, its passwords as SHA-256 hex digests
// (or nopass), the payload flags, and its selectors (selectors()[0] is the
// root one the rules outside parentheses change). A new user is off, has no
// password, no keys, the channels acl-pubsub-default gives, and no command:
// "off resetchannels -@all".
//
// User rules (the rest go to the root selector, acl_selector.hpp):
//   on, off              whether AUTH may log in as it (connections already
//                        logged in keep working, as in Redis 7.0)
//   >pass, <pass         add or remove a password (stored as its digest)
//   #hash, !hash         the same by digest: 64 lowercase hex characters
//   nopass, resetpass    any password works / no password works; both drop
//                        the passwords
//   sanitize-payload, skip-sanitize-payload   kept and shown; lawnkv does
//                        not check RESTORE payloads deeper either way
//   (rules)              a new selector; clearselectors drops all but root
//   reset                resetpass resetkeys resetchannels [allchannels]
//                        off sanitize-payload clearselectors -@all

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/acl_selector.hpp"

namespace lawnkv::acl {

enum UserFlag : uint8_t {
  kEnabled = 1,
  kDisabled = 2,
  kNoPass = 4,
  kSanitizePayload = 8,
  kSkipSanitizePayload = 16,
};

class User {
 public:
  // pubsub_all: acl-pubsub-default is allchannels.
  User(std::string name, bool pubsub_all);

  const std::string& name() const { return name_; }
  // Applies one rule; on error nothing useful is left (callers apply rules
  // to a copy, as ACL SETUSER does).
  RuleError apply(std::string_view op, const CommandTable& table, bool pubsub_all);

  bool enabled() const { return (flags_ & kEnabled) != 0; }
  bool nopass() const { return (flags_ & kNoPass) != 0; }
  uint8_t flags() const { return flags_; }
  const std::vector<std::string>& passwords() const { return passwords_; }
  const std::vector<Selector>& selectors() const { return selectors_; }
  // The root selector allows every command, key and channel: dispatch
  // checks nothing more (the default user's fast path).
  bool unrestricted() const { return unrestricted_; }

  // Whether pass logs in (nopass: any): its digest compared with each
  // stored one in constant time.
  bool password_matches(std::string_view pass) const;

  // Redis's ACLCheckAllUserCommandPerm: kAllowed if a selector allows the
  // call whole; otherwise the greatest reason, *pos at the last argument
  // that no selector allowed.
  Verdict check(const CommandSpec& spec, std::span<const std::string_view> argv, int* pos) const;
  // Whether a selector that allows the call also allows every key for
  // perms (Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess): SORT's BY
  // and GET read keys named by the data, so they need it.
  bool unrestricted_keys_for(const CommandSpec& spec, std::span<const std::string_view> argv,
                             uint8_t perms) const;
  // Whether a selector allows channel (Redis's ACLUserCheckChannelPerm).
  bool channel_allowed(std::string_view channel, bool is_pattern) const;

  // Its rules as ACL LIST shows them after "user <name> ".
  std::string describe(const CommandTable& table) const;

  // Copies another user's rules, keeping the name.
  void assign_rules(const User& other);

 private:
  void refresh();

  std::string name_;
  uint8_t flags_ = kDisabled;
  std::vector<std::string> passwords_;
  std::vector<Selector> selectors_;
  bool unrestricted_ = false;
};

// Names of user flags in the order ACL LIST and GETUSER show them.
struct UserFlagName {
  UserFlag flag;
  std::string_view name;
};
std::span<const UserFlagName> user_flag_names();

// Joins the parts of ACL SETUSER's arguments that a selector spans ("(~a"
// "+get)" -> "(~a +get)"). On an unclosed one, returns false with
// *open_at the index of its first part.
bool merge_selector_args(std::span<const std::string_view> args, std::vector<std::string>* out, size_t* open_at);

}  // namespace lawnkv::acl
