#pragma once
// Server configuration: one declarative table of parameters (name, type,
// default, whether CONFIG SET may change it, description) that drives
// redis.conf parsing, command-line overrides, CONFIG GET/SET/RESETSTAT-free
// reads, and INFO. The typed values live in Values, read directly on the hot
// path; the table converts them to and from Redis's text forms.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/values.hpp"

namespace lawnkv::config {

// The result of a load or set: empty error = success.
struct Status {
  std::string error;
  bool ok() const { return error.empty(); }
};

// Checks the rules of a `user` line (the words after the name) as Redis's
// ACLAppendUserForLoading does: "" if they apply, else {index, reason}
// with the index of the failing rule once selectors are merged (Redis then
// quotes the line's word at that index: "user" for the first rule). The
// engine's ACL model provides it (main sets it; without one, lines are
// kept unchecked).
struct UserRuleError {
  size_t index = 0;
  std::string reason;
};
using UserRuleCheck = std::function<std::optional<UserRuleError>(std::span<const std::string> rules)>;

class Config {
 public:
  Config();

  // Reads redis.conf text. A bad line stops with Redis's fatal-config text
  // naming the line: "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n
  // Reading the configuration file, at line 3\n>>> 'foo bar'\nBad directive
  // or wrong number of arguments" (the caller prints it plus a newline to
  // stderr and exits 1). Parameters set before the bad line keep their value.
  Status load_text(std::string_view text);
  Status load_file(const std::string& path);
  // `--name value [value...]` pairs after the config file, as redis-server:
  // they become lines appended to the file, so errors name the line numbers
  // redis-server names (the file's line count + 2 for the first option).
  Status load_args(const std::vector<std::string>& args);

  // CONFIG SET name value [name value ...]: all or nothing; error is the
  // exact Redis reply text (without "-"). Once every value has parsed, the
  // live applies of the parameters that changed (a special one such as bind
  // always counts as changed, as in Redis) run in the order given, with the
  // new values; if one fails, every one of them runs again with the old
  // values, nothing changes, and the error names the parameter that failed
  // (Redis's config.c: apply functions, restoreBackupConfig).
  Status set(const std::vector<std::pair<std::string, std::string>>& pairs);

  // What makes a parameter's new value act outside Values (bind and port:
  // the listening sockets): "" once done, else Redis's error reason. The
  // server sets them while it runs, and clears them (nullptr) before it goes.
  using LiveApply = std::function<std::string(const Values&)>;
  void set_live_apply(std::string_view name, LiveApply fn);
  // Set before loading a file: checks each `user` line (see UserRuleCheck).
  void set_user_rule_check(UserRuleCheck check) { user_rule_check_ = std::move(check); }
  // CONFIG GET pattern...: name/value pairs whose name matches any glob
  // (no case), in table order. As Redis: a pattern without glob characters
  // returns the name as typed; a pattern matches aliases too
  // ("slave-read-only"); no name is listed twice.
  std::vector<std::pair<std::string, std::string>> get(const std::vector<std::string_view>& patterns) const;

  const Values& values() const { return values_; }
  Values& mutable_values() { return values_; }
  const std::string& file() const { return file_; }

 private:
  Status load_lines(std::string_view text, int first_line, int depth);
  Status load_file_at(const std::string& path, int depth, size_t* newlines);

  Values values_;
  std::map<std::string, LiveApply, std::less<>> live_apply_;  // by parameter name
  UserRuleCheck user_rule_check_;
  std::string file_;         // absolute path of the config file, "" if none
  size_t file_newlines_ = 0;  // '\n' bytes of the file and stdin text: where load_args' lines start
};

}  // namespace lawnkv::config
