#include "engine/acl_users.hpp"

#include <algorithm>
#include <vector>

namespace lawnkv::acl {

namespace {

constexpr int64_t kGroupingMs = 60000;  // Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA
constexpr int kGroupingScan = 10;

bool alike(const LogEntry& a, const LogEntry& b) {
  const int64_t delta = a.ctime_ms > b.ctime_ms ? a.ctime_ms - b.ctime_ms : b.ctime_ms - a.ctime_ms;
  return a.reason == b.reason && a.context == b.context && delta <= kGroupingMs && a.object == b.object &&
         a.username == b.username;
}

// Whether now's channels allow whatever before's did: a selector of now
// with allchannels, or every pattern of before's among now's (Redis's
// strict-superset test; no glob reasoning).
bool channels_cover(const User& now, const User& before) {
  for (const Selector& s : now.selectors())
    if (s.all_channels()) return true;
  for (const Selector& b : before.selectors()) {
    if (b.all_channels()) return false;
    for (const std::string& c : b.channels()) {
      bool found = false;
      for (const Selector& n : now.selectors())
        found |= std::find(n.channels().begin(), n.channels().end(), c) != n.channels().end();
      if (!found) return false;
    }
  }
  return true;
}

}  // namespace

void Log::add(LogEntry e, size_t max_len) {
  for (size_t i = 0; i < entries_.size() && i < kGroupingScan; ++i) {
    if (!alike(entries_[i], e)) continue;
    LogEntry match = std::move(entries_[i]);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    match.client_info = std::move(e.client_info);
    match.ctime_ms = e.ctime_ms;
    ++match.count;
    entries_.push_front(std::move(match));
    return;
  }
  entries_.push_front(std::move(e));
  while (entries_.size() > max_len) entries_.pop_back();
}

Users::Users() {
  auto user = std::make_unique<User>("default", false);
  default_ = user.get();
  users_.emplace("default", std::move(user));
  // +@all ~* &* on nopass, as Redis's ACLCreateDefaultUser; the table is
  // not needed for these rules.
  const CommandTable none;
  for (std::string_view op : {"+@all", "~*", "&*", "on", "nopass"}) default_->apply(op, none, false);
}

User* Users::find(std::string_view name) const {
  const auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second.get();
}

std::string Users::set_user(std::string_view name, std::span<const std::string_view> rules, const CommandTable& table,
                            bool* narrowed) {
  std::vector<std::string> merged;
  size_t open_at = 0;
  if (!merge_selector_args(rules, &merged, &open_at))
    return "Unmatched parenthesis in acl selector starting at '" + std::string(rules[open_at]) + "'.";
  User* existing = find(name);
  User staged(std::string(name), pubsub_default_all);
  if (existing) staged.assign_rules(*existing);
  for (const std::string& op : merged) {
    const RuleError e = staged.apply(op, table, pubsub_default_all);
    if (e != RuleError::kNone)
      return "Error in ACL SETUSER modifier '" + op + "': " + std::string(rule_error_text(e));
  }
  if (narrowed) *narrowed = existing && !channels_cover(staged, *existing);
  if (!existing) existing = users_.emplace(std::string(name), std::make_unique<User>(std::string(name), false)).first->second.get();
  existing->assign_rules(staged);
  return {};
}

std::unique_ptr<User> Users::remove(std::string_view name) {
  const auto it = users_.find(name);
  if (it == users_.end() || it->second.get() == default_) return nullptr;
  std::unique_ptr<User> gone = std::move(it->second);
  users_.erase(it);
  return gone;
}

std::optional<config::UserRuleError> Users::check_config_rules(std::span<const std::string> rules,
                                                               const CommandTable& table) {
  const std::vector<std::string_view> views(rules.begin(), rules.end());
  std::vector<std::string> merged;
  size_t open_at = 0;
  // An unclosed selector: Redis reports it with a reason left from an
  // earlier error; "Syntax error" here.
  if (!merge_selector_args(views, &merged, &open_at)) return config::UserRuleError{open_at, "Syntax error"};
  User fake("", false);
  for (size_t j = 0; j < merged.size(); ++j) {
    const RuleError e = fake.apply(merged[j], table, false);
    if (e != RuleError::kNone && e != RuleError::kUnknownName)
      return config::UserRuleError{j, std::string(rule_error_text(e))};
  }
  return std::nullopt;
}

std::string Users::load_config_users(const std::vector<std::vector<std::string>>& users, const CommandTable& table) {
  for (const std::vector<std::string>& line : users) {
    const std::string& name = line[0];
    if (has_spaces(name)) return "Spaces not allowed in ACL usernames";
    User* u = find(name);
    if (u) {
      u->apply("reset", table, pubsub_default_all);
    } else {
      u = users_.emplace(name, std::make_unique<User>(name, pubsub_default_all)).first->second.get();
    }
    const std::vector<std::string_view> views(line.begin() + 1, line.end());
    std::vector<std::string> merged;
    size_t open_at = 0;
    merge_selector_args(views, &merged, &open_at);
    for (const std::string& op : merged) {
      const RuleError e = u->apply(op, table, pubsub_default_all);
      if (e != RuleError::kNone)
        return "Error loading ACL rule '" + op + "' for the user named '" + name + "': " + std::string(rule_error_text(e));
    }
  }
  return {};
}

void Users::set_default_password(std::string_view pass, const CommandTable& table) {
  default_->apply("resetpass", table, pubsub_default_all);
  if (pass.empty())
    default_->apply("nopass", table, pubsub_default_all);
  else
    default_->apply(">" + std::string(pass), table, pubsub_default_all);
}

}  // namespace lawnkv::acl
