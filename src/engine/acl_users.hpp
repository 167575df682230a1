#pragma once
// The ACL users by name (ACL LIST and USERS list them in byte order, as
// Redis's radix tree), the "default" user every connection starts as, and
// the ACL LOG. Users live at stable addresses: a Session points at its user,
// and ACL SETUSER changes a user in place (after its rules passed on a copy).
// Deleting a user hands it back to the caller, which logs its clients out
// before it goes.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include "config/config.hpp"
#include "engine/acl_user.hpp"

namespace lawnkv::acl {

// One ACL LOG entry (Redis's ACLLogEntry). Entries alike (reason, context,
// object, username, within 60 s) are counted in one.
struct LogEntry {
  uint64_t count = 1;
  Verdict reason = kDeniedCommand;
  std::string_view context;  // "toplevel", "multi", "lua"
  std::string object;        // the command, key, channel, or "AUTH"
  std::string username;
  int64_t ctime_ms = 0;      // of the last time it happened
  std::string client_info;   // CLIENT INFO of the last client
};

class Log {
 public:
  // Adds an entry, or counts it in a like one among the 10 newest (then
  // moved to the front); keeps the newest max_len.
  void add(LogEntry e, size_t max_len);
  void reset() { entries_.clear(); }
  // Newest first.
  const std::deque<LogEntry>& entries() const { return entries_; }

 private:
  std::deque<LogEntry> entries_;
};

class Users {
 public:
  Users();
  User* find(std::string_view name) const;
  User& default_user() const { return *default_; }
  const std::map<std::string, std::unique_ptr<User>, std::less<>>& all() const { return users_; }

  // ACL SETUSER name rules...: all rules apply or none. Returns "" or the
  // error text (without "ERR "). *narrowed (if given) tells whether an
  // existing user's channels may no longer cover what its clients are
  // subscribed to (Redis's ACLKillPubsubClientsIfNeeded test).
  std::string set_user(std::string_view name, std::span<const std::string_view> rules, const CommandTable& table,
                       bool* narrowed = nullptr);
  // Removes a user (never "default"); nullptr if there is none.
  std::unique_ptr<User> remove(std::string_view name);

  // A config file's `user` line: whether its rules apply to a fresh user,
  // unknown command names aside (Redis's ACLAppendUserForLoading).
  static std::optional<config::UserRuleError> check_config_rules(std::span<const std::string> rules,
                                                                 const CommandTable& table);
  // Creates the config file's users in order (a `user default` line resets
  // the default user first). "" or Redis's log line for the first error.
  std::string load_config_users(const std::vector<std::vector<std::string>>& users, const CommandTable& table);
  // ACL LOAD (acl_file.cpp): every user from the file, or no change and
  // Redis's error text. The users the file replaced are moved to *replaced
  // (the default user stays, with the file's rules): the caller logs their
  // clients out.
  std::string load_file(const std::string& path, const CommandTable& table,
                        std::vector<std::unique_ptr<User>>* replaced);
  // ACL SAVE: every user as ACL LIST shows it, through a temporary file
  // renamed over path; "" or why it failed (for the log).
  std::string save_file(const std::string& path, const CommandTable& table) const;

  // requirepass: "" makes the default user nopass, else its one password.
  void set_default_password(std::string_view pass, const CommandTable& table);

  // acl-pubsub-default: whether new users and selectors get allchannels.
  bool pubsub_default_all = false;
  Log log;

 private:
  std::map<std::string, std::unique_ptr<User>, std::less<>> users_;
  User* default_ = nullptr;
};

}  // namespace lawnkv::acl
