#include "engine/acl_users.hpp"

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

std::string Users::set_user(std::string_view name, std::span<const std::string_view> rules, const CommandTable& table) {
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

void Users::set_default_password(std::string_view pass, const CommandTable& table) {
  default_->apply("resetpass", table, pubsub_default_all);
  if (pass.empty())
    default_->apply("nopass", table, pubsub_default_all);
  else
    default_->apply(">" + std::string(pass), table, pubsub_default_all);
}

}  // namespace lawnkv::acl
